/**
 * The embedded database runs statements with parameters as named prepared statements
 * (server/db/pglite-worker.mjs): results must be exactly what PGlite's own `query` returns — types,
 * nulls, arrays, JSON, bigints as numbers, affected rows, errors with their fields — on the first
 * call and on every later one, and a statement prepared before its table changed shape still answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase, type DB } from '../server/db/index.ts';

let db: DB;
beforeAll(async () => {
  db = await openDatabase({ dataDir: 'memory://' });
  await sql`create table t (id text primary key, n bigint, tags text[], doc jsonb, at timestamptz, note text)`.execute(db);
});
afterAll(() => db?.destroy());

describe('prepared statements on the embedded database', () => {
  it('the same statement answers the same values every time it runs, with every type', async () => {
    const at = new Date('2026-11-26T10:00:00.000Z');
    for (let i = 0; i < 3; i++) {
      const ins = await sql`insert into t (id, n, tags, doc, at, note) values (${`r${i}`}, ${9_007_199_254_740_991 - i}, ${['a', 'b c', 'd"e']}::text[], ${JSON.stringify({ k: [i, null] })}::jsonb, ${at}, ${null})`.execute(db);
      expect(Number(ins.numAffectedRows)).toBe(1);
    }
    for (let i = 0; i < 3; i++) {
      const r = await sql<{ id: string; n: number; tags: string[]; doc: unknown; at: Date; note: null }>`select * from t where id = ${`r${i}`}`.execute(db);
      expect(r.rows).toEqual([{ id: `r${i}`, n: 9_007_199_254_740_991 - i, tags: ['a', 'b c', 'd"e'], doc: { k: [i, null] }, at, note: null }]);
    }
    const upd = await sql`update t set note = ${'x'} where id = any(${['r0', 'r1']}::text[])`.execute(db);
    expect(Number(upd.numAffectedRows)).toBe(2);
  });

  it('errors keep their PostgreSQL fields, and the statement works again afterwards', async () => {
    const insert = (id: string) => sql`insert into t (id) values (${id})`.execute(db);
    await insert('dup');
    const err = await insert('dup').catch((e) => e);
    expect(err).toMatchObject({ code: '23505', constraint: 't_pkey' });
    await insert('dup2');
    expect((await sql<{ n: number }>`select count(*)::int as n from t where id like ${'dup%'}`.execute(db)).rows[0].n).toBe(2);
  });

  it('a statement prepared before its table changed shape answers with the new shape', async () => {
    const read = () => sql<Record<string, unknown>>`select * from t where id = ${'r0'}`.execute(db);
    expect(Object.keys((await read()).rows[0])).not.toContain('extra');
    await sql`alter table t add column extra text default 'yes'`.execute(db);
    expect((await read()).rows[0]).toMatchObject({ id: 'r0', extra: 'yes' });
    expect((await read()).rows[0]).toMatchObject({ extra: 'yes' });
  });
});
