/**
 * /metrics under `server/cluster.ts`: the workers share one port, and a scrape of whichever worker
 * answers sees every worker's series summed by the primary (server/http/metrics-cluster.ts). On
 * PostgreSQL (TEST_DATABASE_URL) two workers, which the primary hands connections in turn, so a
 * scrape of one worker alone would see about half the requests; on the embedded database one
 * worker, through the same path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { send, sleep, spawnServer, type ServerProcess } from '../scripts/faults/lib.ts';
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

  it('a worker killed between two scrapes: no counter goes down, and the scrape right after answers at once', async () => {
    const before = parseMetrics((await send(c.port, 'localhost', 'GET', '/metrics')).text);
    const searches = valueOf(before, 'ucp_requests_total', SEARCH)!;
    const durations = valueOf(before, 'ucp_request_duration_seconds_count', { transport: 'rest', operation: SEARCH.operation })!;
    expect(searches).toBeGreaterThan(0);
    const [victim, ...others] = workerPids(c.child.pid!);
    expect(others.length).toBe(WORKERS - 1);
    process.kill(victim, 'SIGKILL');
    const exits = () => c.output().match(/worker exited/g)?.length ?? 0;
    while (exits() === 0) await sleep(20);
    if (WORKERS > 1) {
      // The replacement is loading; the live worker answers, with the dead one's last counts.
      const t0 = Date.now();
      const r = await send(c.port, 'localhost', 'GET', '/metrics');
      expect(r.status, r.text).toBe(200);
      expect(Date.now() - t0).toBeLessThan(1000);
      expect(valueOf(parseMetrics(r.text), 'ucp_requests_total', SEARCH)).toBe(searches);
    }
    // Once the replacement serves, the sum is the dead worker's, the live ones' and the new one's.
    while (workerPids(c.child.pid!).length < WORKERS || (await send(c.port, 'localhost', 'GET', '/readyz').catch(() => ({ status: 0 }))).status !== 200) await sleep(200);
    for (let i = 0; i < 4; i++) expect((await send(c.port, 'demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'flask' })).status).toBe(200);
    for (let scrape = 0; scrape < 3; scrape++) {
      const m = parseMetrics((await send(c.port, 'localhost', 'GET', '/metrics')).text);
      expect(valueOf(m, 'ucp_requests_total', SEARCH)).toBe(searches + 4);
      expect(valueOf(m, 'ucp_request_duration_seconds_count', { transport: 'rest', operation: SEARCH.operation })).toBe(durations + 4);
    }
  }, 240_000);
});

/** The cluster's workers: the primary's children running server/cluster.ts (not tsx's esbuild). */
function workerPids(primary: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === primary && readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('cluster.ts');
      } catch {
        return false;
      }
    })
    .map(Number);
}
