/**
 * PostgreSQL failover at a small size (the full run: `FAULTS=failover npm run test:faults`): a
 * primary and a hot standby of this test's own with synchronous replication, DATABASE_URL naming
 * both with target_session_attrs=read-write (server/db/hosts.ts, failover.ts).
 *
 * - start-up (migrations and their locks) finds the primary when the standby is listed first;
 * - a server that turns read-only (as a demoted primary does) fails writes as unavailable (503),
 *   its connection is dropped from the pool rather than reused, and writes resume on a new
 *   connection by themselves once it is writable again;
 * - the primary is killed and the standby promoted under cart creates from client processes: the
 *   same server process reaches the new primary, answers 503 + Retry-After meanwhile, and every
 *   acknowledged cart is on the new primary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { sql } from 'kysely';
import { failoverDuringWrites } from '../scripts/faults/failover.ts';
import { isUnavailable } from '../server/core/shared/errors.ts';
import { openDatabase, writeGateOf, type DB } from '../server/db/index.ts';
import { WATCH_MS } from '../server/db/commit-probe.ts';
import { prepareDatabase } from '../server/seed/prepare.ts';
import { createTestDatabase, startPostgresPair, type PostgresPair } from './support/postgres.ts';
import { startTestServer } from './support/server.ts';
import { configureLog, resetLog } from '../server/lib/log.ts';

async function onPrimary(pair: PostgresPair, ...statements: string[]): Promise<void> {
  const c = new pg.Client({ connectionString: pair.primary.url.replace(/\/ucp$/, '/postgres') });
  await c.connect();
  try {
    for (const s of statements) await c.query(s);
  } finally {
    await c.end();
  }
}

/** The standby as the primary sees it: `state/sync_state` of its replication connection, or ''. */
async function standbyState(pair: PostgresPair): Promise<string> {
  const c = new pg.Client({ connectionString: pair.primary.url.replace(/\/ucp$/, '/postgres') });
  await c.connect();
  try {
    const r = await c.query<{ s: string }>("select state || '/' || sync_state as s from pg_stat_replication where application_name = 'ucp_standby'");
    return r.rows[0]?.s ?? '';
  } finally {
    await c.end();
  }
}

/** The error `f` fails with, or null when it succeeds. */
const failure = (f: () => Promise<unknown>) => f().then(() => null, (e: unknown) => e);

const backendPid = async (db: DB) => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0].pid;

describe('failover between a primary and a hot standby', () => {
  let pair: PostgresPair;
  beforeAll(async () => {
    pair = await startPostgresPair({ sync: true });
  }, 300_000);
  afterAll(() => pair?.stop());

  it('start-up (migrations under their advisory locks) runs on the writable host whatever the order of the list', async () => {
    const t = await createTestDatabase(pair.primary.url);
    const [primary, standby] = [pair.primary, pair.standby].map((s) => new URL(s.url).host);
    const db = await openDatabase({ databaseUrl: `postgres://postgres@${standby},${primary}/${t.name}?target_session_attrs=read-write`, dataDir: 'memory://' });
    try {
      await prepareDatabase(db, { demo: false, accounts: false });
      const { rows } = await sql<{ port: number; standby: boolean }>`select inet_server_port() as port, pg_is_in_recovery() as standby`.execute(db);
      expect(rows[0]).toEqual({ port: Number(new URL(pair.primary.url).port), standby: false });
      // The standby has what the primary committed (synchronous replication): on disk when the
      // commit returned, visible once it has replayed it, which a loaded machine may take a moment to do.
      const c = new pg.Client({ connectionString: pair.standby.url.replace(/\/ucp$/, `/${t.name}`) });
      await c.connect();
      try {
        const migrations = async () => (await c.query('select count(*)::int as n from kysely_migration').catch(() => ({ rows: [{ n: 0 }] }))).rows[0].n as number;
        let n = await migrations();
        for (const deadline = Date.now() + 15_000; n === 0 && Date.now() < deadline; n = await migrations()) await new Promise((r) => setTimeout(r, 100));
        expect(n).toBeGreaterThan(0);
      } finally {
        await c.end();
      }
    } finally {
      await db.destroy();
    }
  }, 120_000);

  /**
   * Turns the primary read-only under an open pool on `url` (of a fresh database `name`): writes
   * fail as unavailable (25006), connecting then fails with `noHost` (08001, unavailable), and once
   * it is writable again writes resume on a new connection.
   */
  async function readOnlyRoundTrip(url: (database: string) => string, noHost: RegExp): Promise<void> {
    const t = await createTestDatabase(pair.primary.url);
    const db = await openDatabase({ databaseUrl: url(t.name), dataDir: 'memory://', pgPoolSize: 2, pgConnectTimeoutMs: 3000 });
    try {
      await sql`create table notes (n int)`.execute(db);
      const before = await backendPid(db);
      await onPrimary(pair, 'alter system set default_transaction_read_only = on', 'select pg_reload_conf()');
      // The backends pick the setting up at their next command once the reload signal reaches them.
      let refused: unknown = null;
      for (let i = 0; i < 200 && !refused; i++) {
        refused = await failure(() => sql`insert into notes values (1)`.execute(db));
        if (!refused) await new Promise((r) => setTimeout(r, 50));
      }
      expect((refused as { code?: string }).code).toBe('25006');
      expect(isUnavailable(refused)).toBe(true);
      // The connection is not reused: a new one is checked, and refused as not read-write.
      const none = await failure(() => sql`insert into notes values (2)`.execute(db));
      expect(none).toMatchObject({ code: '08001', message: expect.stringMatching(noHost) });
      expect(isUnavailable(none)).toBe(true);
      await onPrimary(pair, 'alter system reset default_transaction_read_only', 'select pg_reload_conf()');
      let resumed: unknown = 'not yet';
      for (let i = 0; i < 200 && resumed; i++) {
        resumed = await failure(() => sql`insert into notes values (3)`.execute(db));
        if (resumed) await new Promise((r) => setTimeout(r, 50));
      }
      expect(resumed).toBeNull();
      // A new connection: the one the server refused a write on was not put back in the pool.
      expect(await backendPid(db)).not.toBe(before);
    } finally {
      await db.destroy();
      await onPrimary(pair, 'alter system reset default_transaction_read_only', 'select pg_reload_conf()');
    }
  }

  it('a server turned read-only: writes are unavailable, its connection is dropped, writes resume by themselves', async () => {
    // No host is read-write then (the standby is in recovery): connecting fails at once, naming why for each.
    await readOnlyRoundTrip((db) => pair.url.replace('/ucp?', `/${db}?`), /no PostgreSQL host is read-write: .*read-only.*; .*a standby/);
  }, 60_000);

  it('the same with one host (a managed service endpoint whose DNS name now points at a reader)', async () => {
    await readOnlyRoundTrip((db) => `${pair.primary.url.replace(/\/ucp$/, `/${db}`)}?target_session_attrs=read-write`, /PostgreSQL host 127\.0\.0\.1:\d+ is read-only/);
  }, 60_000);

  it('a lost synchronous standby: new writes refused at once (503) while searches go on, /readyz answers 503 naming it, the log names the cause, all back once it returns (issue 39 point 15)', async () => {
    const lines: string[] = [];
    // The transport limiter on, as in production: every UCP request takes a token with a write (unlogged: migration 0014).
    const s = await startTestServer({ databaseUrl: (await createTestDatabase(pair.primary.url)).url, transportRateLimits: true });
    configureLog({ json: true, write: (_level, line) => lines.push(line) });
    const readyz = async () => {
      const r = await s.req('localhost', 'GET', '/readyz');
      return { status: r.status, body: r.body };
    };
    const timed = async <T>(f: () => Promise<T>) => {
      const t = Date.now();
      return { r: await f(), ms: Date.now() - t };
    };
    const search = () => s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' });
    const createCart = () => s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] }, { 'Idempotency-Key': crypto.randomUUID() });
    try {
      expect(await readyz()).toEqual({ status: 200, body: { status: 'ok' } });
      expect((await createCart()).status).toBe(201);
      await pair.killStandby();
      // Nobody asks /readyz yet: the background watch (db/commit-probe.ts watchCommits) finds the stall.
      const gate = writeGateOf(s.db)!;
      const tw = Date.now();
      while (!gate.stalled && Date.now() - tw < 15_000) await new Promise((res) => setTimeout(res, 100));
      expect(gate.stalled?.cause).toBe('sync_standby_lost');
      expect(Date.now() - tw).toBeLessThan(WATCH_MS + 5_000);
      expect(lines.map((l) => JSON.parse(l))).toContainEqual(expect.objectContaining({ level: 'error', scope: 'db', msg: 'writes refused until commits complete', cause: 'sync_standby_lost' }));
      // A write is refused at once, not left waiting for the standby; a search (and its limiter token) goes through.
      const refused = await timed(createCart);
      expect(refused.r.status).toBe(503);
      expect(refused.r.headers['retry-after']).toBeTruthy();
      expect(refused.ms).toBeLessThan(2_000);
      const found = await timed(search);
      expect(found.r.status).toBe(200);
      expect(found.ms).toBeLessThan(2_000);
      const t0 = Date.now();
      let r = await readyz();
      while (r.status === 200 && Date.now() - t0 < 15_000) r = await readyz();
      expect(r).toEqual({ status: 503, body: { status: 'writes_blocked', cause: 'sync_standby_lost' } });
      expect(Date.now() - t0).toBeLessThan(5_000);
      const logged = lines.map((l) => JSON.parse(l)).find((l) => l.scope === 'readiness');
      expect(logged).toMatchObject({ level: 'error', msg: 'not ready: writes do not commit', cause: 'sync_standby_lost', detail: expect.stringMatching(/none is connected \(synchronous_standby_names = '.+'\)/) });
      // Each probe cancels its own waiting commit: nothing piles up waiting for the standby. The
      // background watch probes every second while stalled, so at most its one probe waits at a
      // time, and between probes none does (writes are refused before they reach the server).
      const samples: number[] = [];
      for (const until = Date.now() + 5_000; Date.now() < until; await new Promise((res) => setTimeout(res, 100))) {
        samples.push((await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where wait_event = 'SyncRep'`.execute(s.db)).rows[0].n);
      }
      expect(Math.max(...samples)).toBeLessThanOrEqual(1);
      expect(Math.min(...samples)).toBe(0);
      await pair.restartStandby();
      // The standby streams and is the synchronous one again (on a loaded machine its restart and
      // catch-up take a while): then, and only then, writes commit and /readyz must say so.
      const t1 = Date.now();
      let replication = '';
      while (Date.now() - t1 < 90_000) {
        replication = await standbyState(pair);
        if (replication === 'streaming/sync') break;
        await new Promise((res) => setTimeout(res, 250));
      }
      expect(replication, 'the restarted standby is streaming as the synchronous one').toBe('streaming/sync');
      const t2 = Date.now();
      while ((r = await readyz()).status !== 200 && Date.now() - t2 < 30_000) await new Promise((res) => setTimeout(res, 200));
      expect(r.status).toBe(200);
      expect(lines.map((l) => JSON.parse(l))).toContainEqual(expect.objectContaining({ scope: 'readiness', msg: 'ready again: writes commit', after: 'sync_standby_lost' }));
      // The probe that committed opened the gate: writes go through again.
      expect(gate.stalled).toBeNull();
      expect(lines.map((l) => JSON.parse(l))).toContainEqual(expect.objectContaining({ scope: 'db', msg: 'writes accepted again: commits complete', after: 'sync_standby_lost' }));
      expect((await createCart()).status).toBe(201);
    } finally {
      resetLog();
      await s.close();
    }
  }, 240_000);

  it('kill -9 of the primary, promote of the standby: the same server process recovers, 503s meanwhile, no acknowledged cart lost', async () => {
    const r = await failoverDuringWrites({ sync: true, pair, seconds: 1, servers: 1, clients: 2, detectMs: 500 });
    expect(r.pass, `${r.name}\n${r.lines.join('\n')}`).toBe(true);
  }, 300_000);
});
