/**
 * Single-row inserts that arrive together are written as one statement (server/db/coalesced-insert.ts):
 * fewer statements and commits, the same rows, and each caller told about its own row only.
 * Runs on the embedded database and, under TEST_DATABASE_URL, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from './support/server.ts';
import { coalescedInsert } from '../server/db/coalesced-insert.ts';
import { connectionsOf, isSingleWriter, type DB } from '../server/db/index.ts';
import { createCart, findCart } from '../server/core/carts/carts.ts';
import { findShopByDomain } from '../server/core/shops/shops.ts';

let s: TestServer;
let db: DB;
beforeAll(async () => {
  s = await startTestServer();
  db = s.db;
  await sql`create table coalesce_probe (id text primary key, doc jsonb, label text, n int, at timestamptz)`.execute(db);
});
afterAll(() => s?.close());

interface Probe extends Record<string, string | number | null | Date | { json: string }> {
  id: string;
  doc: { json: string } | null;
  label: string | null;
  n: number;
  at: Date;
}
const probes = coalescedInsert<Probe>({
  table: 'coalesce_probe',
  columns: [['id', 'text'], ['doc', 'jsonb'], ['label', 'text'], ['n', 'int'], ['at', 'timestamptz']],
});
const probe = (id: string, extra: Partial<Probe> = {}): Probe => ({ id, doc: { json: JSON.stringify({ id, list: [1, 'two', null] }) }, label: `label ${id}`, n: 1, at: new Date(), ...extra });
const insert = (p: Probe, on: DB = db) => probes(on, p);

/** Statements in flight at once before rows start to wait (the module's rule). */
const inFlight = () => (isSingleWriter(db) ? 1 : connectionsOf(db));
/** How many transactions wrote these rows (each row's xmin is its writer's transaction). */
async function writers(prefix: string): Promise<number> {
  const r = await sql<{ n: number }>`select count(distinct xmin::text)::int as n from coalesce_probe where id like ${`${prefix}%`}`.execute(db);
  return r.rows[0].n;
}

describe('coalesced inserts', () => {
  it('writes rows that arrive while statements are in flight as one statement', async () => {
    const rows = Array.from({ length: inFlight() + 20 }, (_, i) => probe(`together-${i}`));
    await Promise.all(rows.map((p) => insert(p)));
    const count = await sql<{ n: number }>`select count(*)::int as n from coalesce_probe where id like 'together-%'`.execute(db);
    expect(count.rows[0].n).toBe(rows.length);
    // The first ones go at once, alone; the 20 that waited go together.
    expect(await writers('together-')).toBeLessThanOrEqual(inFlight() + 1);
  });

  it('sends a row at once, alone, when nothing is in flight', async () => {
    for (let i = 0; i < 3; i++) await insert(probe(`sequential-${i}`));
    expect(await writers('sequential-')).toBe(3);
  });

  it('stores the same values in a batch as alone', async () => {
    const tricky = (id: string): Probe =>
      probe(id, {
        doc: { json: JSON.stringify({ quote: 'a "b" \\ c', emoji: '🧵', line: 'x\ny', nested: { deep: [{ k: 0.5 }] } }) },
        label: 'tab\there, quote \' and "double", backslash \\',
        n: -7,
        at: new Date('2026-05-04T03:02:01.123Z'),
      });
    await insert(tricky('values-alone'));
    await Promise.all([...Array.from({ length: inFlight() }, (_, i) => insert(probe(`values-filler-${i}`))), insert(tricky('values-batched')), insert(probe('values-null', { doc: null, label: null }))]);
    const r = await sql<{ id: string; doc: string | null; label: string | null; n: number; at: Date }>`
      select id, doc::text as doc, label, n, at from coalesce_probe where id in ('values-alone', 'values-batched', 'values-null') order by id`.execute(db);
    const [alone, batched, nulls] = r.rows;
    expect(batched).toEqual({ ...alone, id: 'values-batched' });
    expect(new Date(batched.at).toISOString()).toBe('2026-05-04T03:02:01.123Z');
    expect(nulls).toMatchObject({ doc: null, label: null });
  });

  it('fails only the row that breaks its batch; the others are written', async () => {
    await insert(probe('clash'));
    const rows = [...Array.from({ length: inFlight() + 5 }, (_, i) => probe(`isolated-${i}`)), probe('clash'), probe('isolated-last')];
    const outcomes = await Promise.allSettled(rows.map((p) => insert(p)));
    const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [{ id: rows[i].id, code: (o.reason as { code?: string }).code }] : []));
    expect(failed).toEqual([{ id: 'clash', code: '23505' }]);
    const count = await sql<{ n: number }>`select count(*)::int as n from coalesce_probe where id like 'isolated-%'`.execute(db);
    expect(count.rows[0].n).toBe(rows.length - 1);
  });

  it('a row whose statement cannot be built fails alone, in a batch or not', async () => {
    // A value that throws when read: neither the batch's JSON nor the row's own statement can be built.
    const broken = (p: Probe) =>
      probes(
        db,
        Object.defineProperty({ ...p }, 'n', {
          enumerable: true,
          get() {
            throw new Error(`cannot write ${p.id}`);
          },
        }),
      );
    await expect(broken(probe('unbuildable-alone'))).rejects.toThrow('cannot write unbuildable-alone');
    const rows = Array.from({ length: inFlight() + 4 }, (_, i) => probe(`unbuildable-${i}`));
    const outcomes = await Promise.allSettled([...rows.map((p) => insert(p)), broken(probe('unbuildable-batched'))]);
    expect(outcomes.map((o) => o.status)).toEqual([...rows.map(() => 'fulfilled'), 'rejected']);
    const count = await sql<{ n: number }>`select count(*)::int as n from coalesce_probe where id like 'unbuildable-%'`.execute(db);
    expect(count.rows[0].n).toBe(rows.length);
  });

  it('builds the single-row statement from the same columns, written only where its condition holds', async () => {
    const p = probe('single-kept', { label: 'tab\there', n: 42 });
    await probes.single(p).execute(db);
    await probes.single(probe('single-refused'), sql<boolean>`false`).execute(db);
    const r = await sql<{ id: string; doc: unknown; label: string; n: number }>`select id, doc, label, n from coalesce_probe where id like 'single-%'`.execute(db);
    expect(r.rows).toEqual([{ id: 'single-kept', doc: JSON.parse(p.doc!.json), label: 'tab\there', n: 42 }]);
  });

  it('runs inside a transaction as part of it', async () => {
    await expect(
      db.transaction().execute(async (tx) => {
        await insert(probe('in-tx'), tx);
        const seen = await sql<{ n: number }>`select count(*)::int as n from coalesce_probe where id = 'in-tx'`.execute(tx);
        expect(seen.rows[0].n).toBe(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const after = await sql<{ n: number }>`select count(*)::int as n from coalesce_probe where id = 'in-tx'`.execute(db);
    expect(after.rows[0].n).toBe(0);
  });
});

describe('cart creates arriving together', () => {
  it('are written together, and each reads back as created', async () => {
    const shop = (await findShopByDomain(db, 'demo.localhost'))!;
    const req = (i: number) => ({ line_items: [{ item: { id: i % 2 ? 'var_tee_s_white' : 'var_candle_fig' }, quantity: 1 + (i % 3) }], context: { address_country: 'FR' } });
    await createCart(db, shop, req(0)); // products cached: the creates below differ only in their writes
    const created = await Promise.all(Array.from({ length: 12 }, (_, i) => createCart(db, shop, req(i))));
    for (const { record } of created) {
      const stored = await findCart(db, shop, record.id);
      expect(stored).toMatchObject({ id: record.id, currency: record.currency, context: record.context, line_items: record.line_items, discounts: record.discounts, buyer: record.buyer });
      expect(stored!.expires_at.getTime()).toBe(record.expires_at.getTime());
    }
    const ids = created.map((c) => c.record.id);
    const r = await sql<{ n: number }>`select count(distinct xmin::text)::int as n from carts where id = any(${ids}::text[])`.execute(db);
    // On the embedded database: the first ones alone, the rest together. (A PostgreSQL pool takes up
    // to its size at once, each alone, and when the others arrive depends on its round trips: the
    // same-tick probes above prove its rule.)
    if (isSingleWriter(db)) expect(r.rows[0].n).toBeLessThanOrEqual(inFlight() + 1);
  });
});
