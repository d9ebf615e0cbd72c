/**
 * ucp_db_group_commit_size on the embedded database on disk with durable commits
 * (server/db/pglite-durable.mjs): concurrent cart creates are acknowledged by flushes that each
 * carry one or more commits; the histogram counts the flushes, its sum the commits, and a scrape
 * with no writes in between adds nothing (the worker's counts are cumulative; only what is new is
 * observed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './support/server.ts';
import { parseMetrics, valueOf } from './support/metrics.ts';

let s: TestServer;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ucp-metrics-'));
  s = await startTestServer({ dataDir: dir, durableCommits: true });
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const commits = async () => {
  const m = parseMetrics((await s.req('localhost', 'GET', '/metrics')).text);
  return { flushes: valueOf(m, 'ucp_db_group_commit_size_count'), commits: valueOf(m, 'ucp_db_group_commit_size_sum') };
};

describe('group commit sizes', () => {
  it('move with durable writes, by flushes and by commits, and only once per flush', async () => {
    const before = await commits();
    const carts = await Promise.all(Array.from({ length: 30 }, () => s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] })));
    for (const c of carts) expect(c.status).toBe(201);
    const after = await commits();
    expect(after.flushes).toBeGreaterThan(before.flushes);
    expect(after.commits - before.commits).toBeGreaterThanOrEqual(after.flushes - before.flushes);
    const again = await commits();
    expect(again).toEqual(after);
  });
});
