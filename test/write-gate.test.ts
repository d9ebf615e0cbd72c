/**
 * The write gate (server/db/write-gate.ts, issue 39 point 15): while commits stall, every write
 * fails at once with WritesBlocked (503 at the edges) and reads pass; writes to unlogged tables
 * pass; the first committed probe lets writes through again. The gate reads statements as Kysely
 * builds them, so these run on Kysely's dummy driver (no database); test/failover.pg.test.ts proves
 * it against a real lost standby.
 */
import { describe, expect, it } from 'vitest';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { WriteGate, WritesBlocked, writtenTables } from '../server/db/write-gate.ts';
import { isUnavailable } from '../server/core/shared/errors.ts';

function gated() {
  const gate = new WriteGate();
  const db = new Kysely<any>({
    dialect: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (k) => new PostgresIntrospector(k), createQueryCompiler: () => new PostgresQueryCompiler() },
    plugins: [gate],
  });
  return { gate, db };
}

const STALL = { ok: false as const, cause: 'sync_standby_lost', detail: 'commits wait for a synchronous standby and none is connected' };
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e);

describe('which statements are writes', () => {
  const { db } = gated();
  it.each([
    ['insert', db.insertInto('carts').values({ id: 'c' }), ['carts']],
    ['update', db.updateTable('carts').set({ id: 'c' }), ['carts']],
    ['delete', db.deleteFrom('carts'), ['carts']],
    ['select', db.selectFrom('carts').selectAll(), []],
    ['select … for update', db.selectFrom('carts').selectAll().forUpdate().skipLocked(), []],
    ['raw insert naming its table', sql`insert into rate_buckets as b (key) values (${'k'}) on conflict (key) do update set tokens = 1`, ['rate_buckets']],
    ['raw insert into an identifier node', sql`insert into ${sql.id('carts')} (id) values (${'c'})`, ['?']],
    ['raw update', sql`UPDATE "webhook_deliveries" set status = 'pending'`, ['webhook_deliveries']],
    ['raw update with an alias', sql`update webhook_deliveries as d set status = 'pending'`, ['webhook_deliveries']],
    ['raw delete', sql`  delete from variants where shop_id = ${'s'}`, ['variants']],
    ['raw write nested in a with (the idempotent insert)', sql`with claimed as (${sql`insert into idempotency_keys (key) values (${'k'}) returning 1`}) select count(*) from claimed`, ['idempotency_keys']],
    ['raw select … for update skip locked', sql`select id from webhook_deliveries for update skip locked`, []],
    ['raw select', sql`select pg_logical_emit_message(true, 'ucp-readiness', '')`, []],
  ])('%s', (_name, query, tables) => {
    expect(writtenTables(query.toOperationNode())).toEqual(tables);
  });
});

describe('the gate', () => {
  it('open: every statement runs', async () => {
    const { db } = gated();
    expect(await failure(db.insertInto('carts').values({ id: 'c' }).execute())).toBeNull();
  });

  it('a stall refuses writes, built or raw, with an error the edges answer 503; reads and unlogged tables pass', async () => {
    const { gate, db } = gated();
    gate.note(STALL);
    expect(gate.stalled).toEqual({ cause: 'sync_standby_lost', detail: STALL.detail });
    for (const write of [db.insertInto('carts').values({ id: 'c' }).execute(), db.updateTable('carts').set({ id: 'c' }).execute(), sql`insert into ${sql.id('carts')} (id) values ('c')`.execute(db)]) {
      const e = await failure(write);
      expect(e).toBeInstanceOf(WritesBlocked);
      expect(isUnavailable(e)).toBe(true);
    }
    expect(await failure(db.selectFrom('carts').selectAll().execute())).toBeNull();
    expect(await failure(sql`insert into rate_buckets as b (key) values ('k')`.execute(db))).toBeNull();
    expect(await failure(db.deleteFrom('rate_buckets').execute())).toBeNull();
  });

  it('inside a transaction too', async () => {
    const { gate, db } = gated();
    gate.note(STALL);
    expect(await failure(db.transaction().execute((tx) => tx.insertInto('orders').values({ id: 'o' }).execute()))).toBeInstanceOf(WritesBlocked);
  });

  it('a committed probe opens it again; an unreachable database changes nothing', async () => {
    const { gate, db } = gated();
    gate.note({ ok: false, cause: 'database_unavailable', detail: 'no answer' });
    expect(gate.stalled).toBeNull();
    gate.note(STALL);
    gate.note({ ok: false, cause: 'database_unavailable', detail: 'no answer' });
    expect(gate.stalled?.cause).toBe('sync_standby_lost');
    gate.note({ ok: true });
    expect(gate.stalled).toBeNull();
    expect(await failure(db.insertInto('carts').values({ id: 'c' }).execute())).toBeNull();
  });
});
