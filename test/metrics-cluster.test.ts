/**
 * /metrics under `server/cluster.ts`: the workers share one port, and a scrape of whichever worker
 * answers sees every worker's series summed by the primary (server/http/metrics-cluster.ts). On
 * PostgreSQL (TEST_DATABASE_URL) two workers, which the primary hands connections in turn, so a
 * scrape of one worker alone would see about half the requests; on the embedded database one
 * worker, through the same path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { send, spawnServer, type ServerProcess } from '../scripts/faults/lib.ts';
import { createTestDatabase, type TestDatabase } from './support/postgres.ts';
import { parseMetrics, valueOf } from './support/metrics.ts';

const PG = process.env.TEST_DATABASE_URL;
const WORKERS = PG ? 2 : 1;
const SEARCH = { transport: 'rest', operation: 'POST /api/ucp/catalog/search', status: '200' };

let tdb: TestDatabase | undefined;
let dir: string | undefined;
let c: ServerProcess;
beforeAll(async () => {
  if (PG) tdb = await createTestDatabase(PG);
  else dir = mkdtempSync(join(tmpdir(), 'ucp-metrics-cluster-'));
  c = await spawnServer({ script: 'server/cluster.ts', env: { WORKERS: String(WORKERS), ...(tdb ? { DATABASE_URL: tdb.url } : { DATA_DIR: dir! }) }, timeoutMs: 200_000 });
}, 240_000); // the primary seeds a fresh data directory first: a minute on a busy machine
afterAll(async () => {
  await c?.kill();
  await tdb?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(`/metrics of a cluster of ${WORKERS}`, () => {
  it('every scrape, whichever worker answers it, counts every worker\'s requests', async () => {
    expect(c.output()).toMatch(new RegExp(`${WORKERS} workers?`));
    const n = 20;
    // One connection each (the helper sends Connection: close): the primary deals them out in turn.
    for (let i = 0; i < n; i++) expect((await send(c.port, 'demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'flask' })).status).toBe(200);
    for (let scrape = 0; scrape < 4; scrape++) {
      const r = await send(c.port, 'localhost', 'GET', '/metrics');
      expect(r.status, r.text).toBe(200);
      const m = parseMetrics(r.text);
      expect(valueOf(m, 'ucp_requests_total', SEARCH)).toBe(n);
      expect(valueOf(m, 'ucp_request_duration_seconds_count', { transport: 'rest', operation: SEARCH.operation })).toBe(n);
      // Per-process gauges add up: every worker built the demo shop's index for its searches.
      expect(valueOf(m, 'ucp_search_index_shops')).toBeGreaterThanOrEqual(WORKERS);
      // Default metrics come through the aggregation too.
      expect(valueOf(m, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    }
  });
});
