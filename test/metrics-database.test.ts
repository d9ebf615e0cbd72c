/**
 * The database gauges of /metrics on either database (both passes of scripts/test-all.sh): while
 * every connection is held (PostgreSQL: the pool's; embedded: its one connection, by a transaction),
 * a further query waits, and ucp_db_pool_waiting says so; once released both fall back. The scrape
 * itself still answers, within its own 1 s bound on database reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from './support/server.ts';
import { parseMetrics, valueOf } from './support/metrics.ts';
import { connectionsOf } from '../server/db/index.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ pgPoolSize: 2 });
});
afterAll(() => s?.close());

const gauges = async () => {
  const r = await s.req('localhost', 'GET', '/metrics');
  expect(r.status).toBe(200);
  const m = parseMetrics(r.text);
  return { inUse: valueOf(m, 'ucp_db_pool_in_use'), waiting: valueOf(m, 'ucp_db_pool_waiting') };
};

describe('database pool gauges', () => {
  it('count held connections and the queries waiting behind them', async () => {
    await gauges(); // the platform's Host is looked up once, so the next scrape needs no connection
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held = Array.from({ length: connectionsOf(s.db) }, () =>
      s.db.transaction().execute(async (tx) => {
        await sql`select 1`.execute(tx);
        await gate;
      }),
    );
    await new Promise((r) => setTimeout(r, 200));
    const queued = sql`select 1`.execute(s.db);
    await new Promise((r) => setTimeout(r, 50));
    const busy = await gauges();
    release();
    await Promise.all([...held, queued]);
    expect(busy.waiting).toBeGreaterThanOrEqual(1);
    expect(busy.inUse).toBeGreaterThanOrEqual(1);
    // Released: the queue drains (the webhook worker and the scrape use the pool too, so a few tries).
    let idle = await gauges();
    for (let i = 0; i < 10 && idle.waiting > 0; i++) idle = await gauges();
    expect(idle.waiting).toBe(0);
  });
});
