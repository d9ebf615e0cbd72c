/**
 * A bulk load (server/core/catalog/catalog-store.ts: from BULK_LOAD_PRODUCTS products in one call) merges
 * the search indexes' entries at the end instead of row by row. It must be invisible in results:
 * the same products loaded in small calls and in one bulk call search the same, and the indexes are
 * back to one-entry-at-a-time afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from './support/server.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { BULK_LOAD_PRODUCTS, upsertProducts } from '../server/core/catalog/catalog-store.ts';
import { loadCatalogFile } from '../server/core/catalog/catalog-load.ts';
import { forgetCachedShops } from '../server/core/shops/shops.ts';

let s: TestServer;
const COUNT = BULK_LOAD_PRODUCTS + 200;

beforeAll(async () => {
  s = await startTestServer();
  const bulk = generateCatalog({ products: COUNT, shopId: 'shop_bulk', domain: 'bulk.localhost', name: 'Bulk' });
  await loadCatalogFile(s.db, bulk);
  // The same products for a second shop, in calls small enough never to be bulk.
  const small = generateCatalog({ products: COUNT, shopId: 'shop_small', domain: 'small.localhost', name: 'Small' });
  await loadCatalogFile(s.db, { ...small, products: small.products.slice(0, 100) });
  for (let i = 100; i < COUNT; i += 100) await upsertProducts(s.db, { id: 'shop_small', settings: small.shop.settings }, small.products.slice(i, i + 100));
  forgetCachedShops(s.db);
}, 240_000);
afterAll(() => s?.close());

/** Product ids without their shop's prefix (the generator names them per shop). */
const ids = (r: { products: Array<{ id: string }> }) => r.products.map((p) => p.id.replace(/^shop_(bulk|small)_/, ''));
const search = async (host: string, body: unknown) => {
  const r = await s.req(host, 'POST', '/api/ucp/catalog/search', body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { products: Array<{ id: string }>; pagination?: { cursor?: string } };
};

describe('bulk catalog load', () => {
  it('searches exactly like the same products loaded a hundred at a time', async () => {
    const queries = ['linen', 'stoneware bowl', 'vintage tent', 'kraft', 'cozy vest', 'lamp', 'modern', 'ripstop', 'soft', 'toile de lin'];
    for (const query of queries) {
      const a = await search('bulk.localhost', { query, pagination: { limit: 50 } });
      const b = await search('small.localhost', { query, pagination: { limit: 50 } });
      expect(ids(a), query).toEqual(ids(b));
      if (a.pagination?.cursor) {
        const a2 = await search('bulk.localhost', { query, pagination: { limit: 50, cursor: a.pagination.cursor } });
        const b2 = await search('small.localhost', { query, pagination: { limit: 50, cursor: b.pagination!.cursor } });
        expect(ids(a2), `${query}, page 2`).toEqual(ids(b2));
      }
    }
    expect((await search('bulk.localhost', { query: 'linen' })).products.length).toBeGreaterThan(0);
  });

  it('a second load replaces each product\'s variants and keeps its place in the catalog', async () => {
    const file = generateCatalog({ products: COUNT, shopId: 'shop_reload', domain: 'reload.localhost', name: 'Reload' });
    await loadCatalogFile(s.db, file);
    const positions = await sql<{ id: string; position: number }>`select id, position from products where shop_id = 'shop_reload' order by id`.execute(s.db);
    // Every product keeps only its first variant, under a new SKU; one product in 100 is new.
    const changed = file.products.map((p) => ({ ...p, variants: [{ ...p.variants[0], sku: `NEW-${p.id}` }] }));
    const added = generateCatalog({ products: 12, shopId: 'shop_reload2', domain: 'x.localhost', name: 'X' }).products;
    await loadCatalogFile(s.db, { ...file, products: [...changed, ...added] });
    const variants = await sql<{ id: string; product_id: string; sku: string }>`select id, product_id, sku from variants where shop_id = 'shop_reload'`.execute(s.db);
    const expected = [...changed, ...added].flatMap((p) => p.variants.map((v) => ({ id: v.id, product_id: p.id, sku: v.sku })));
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(variants.rows.sort(byId)).toEqual(expected.sort(byId));
    const after = await sql<{ id: string; position: number }>`select id, position from products where shop_id = 'shop_reload' and id = any(${positions.rows.map((r) => r.id)}::text[]) order by id`.execute(s.db);
    expect(after.rows).toEqual(positions.rows);
    const hit = await search('reload.localhost', { query: `NEW-${file.products[7].id}` });
    expect(hit.products.map((p) => p.id)).toEqual([file.products[7].id]);
    const old = await search('reload.localhost', { query: file.products[7].variants[1].sku! });
    expect(old.products).toEqual([]);
  }, 120_000);

  it('writes no row a foreign key would refuse, and leaves the keys enforced afterwards', async () => {
    // Where the loader may (a superuser: always on the embedded database) it skips the per-row key
    // checks for the load's own transaction; the rows it writes must satisfy them anyway.
    const orphans = await sql<{ n: number }>`
      select (select count(*) from variants v where not exists (select 1 from products p where p.shop_id = v.shop_id and p.id = v.product_id))
           + (select count(*) from product_search x where not exists (select 1 from products p where p.shop_id = x.shop_id and p.id = x.product_id)) as n`.execute(s.db);
    expect(Number(orphans.rows[0].n)).toBe(0);
    expect((await sql<{ r: string }>`select current_setting('session_replication_role') as r`.execute(s.db)).rows[0].r).toBe('origin');
    const orphan = sql`insert into variants (shop_id, id, product_id, sku) values ('shop_bulk', 'var_orphan', 'no_such_product', null)`.execute(s.db);
    await expect(orphan).rejects.toMatchObject({ code: '23503' });
  });

  it('leaves the search indexes writing one entry at a time (fastupdate off), nothing pending in any GIN index', async () => {
    const rows = await sql<{ relname: string; reloptions: string[] | null }>`select relname, reloptions from pg_class where relname in ('product_search_tsv_idx', 'product_search_title_idx')`.execute(s.db);
    expect(rows.rows).toHaveLength(2);
    for (const r of rows.rows) expect(r.reloptions, r.relname).toContain('fastupdate=off');
    // Nothing left in any GIN pending list for later writes to merge or browses to scan.
    for (const index of ['product_search_tsv_idx', 'product_search_title_idx', 'products_categories_idx']) {
      const merged = await sql<{ pages: number }>`select gin_clean_pending_list(${index}::regclass) as pages`.execute(s.db);
      expect(Number(merged.rows[0].pages), index).toBe(0);
    }
  });
});
