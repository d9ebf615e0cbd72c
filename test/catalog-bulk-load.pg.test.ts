/**
 * A bulk load (server/core/catalog/catalog-store.ts) skips the per-row foreign-key checks only where its
 * role may turn triggers off (a superuser), and merges its search-index entries at the end only
 * where its role owns those indexes. The roles a hosted PostgreSQL hands out are neither, or own
 * the schema without being a superuser: both must load the same catalog, with every key enforced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestDatabase, requirePostgres, type TestDatabase } from './support/postgres.ts';
import { openDatabase, type DB } from '../server/db/index.ts';
import { prepareDatabase } from '../server/seed/prepare.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { BULK_LOAD_PRODUCTS } from '../server/core/catalog/catalog-store.ts';
import { loadCatalogFile, loadCatalogs } from '../server/core/catalog/catalog-load.ts';

let tdb: TestDatabase;
let admin: DB;
/** Owns the schema (ran the migrations), not a superuser. */
let owner: DB;
/** May read and write the tables, owns nothing. */
let plain: DB;
const suffix = process.pid;

async function connectAs(role: string): Promise<DB> {
  const url = new URL(tdb.url);
  url.username = role;
  return openDatabase({ databaseUrl: url.href, dataDir: 'memory://' });
}

beforeAll(async () => {
  tdb = await createTestDatabase(requirePostgres());
  admin = await openDatabase({ databaseUrl: tdb.url, dataDir: 'memory://' });
  await sql.raw(`create role ucp_owner_${suffix} login; grant create, usage on schema public to ucp_owner_${suffix}; create role ucp_plain_${suffix} login`).execute(admin);
  owner = await connectAs(`ucp_owner_${suffix}`);
  await prepareDatabase(owner, { demo: false, accounts: false });
  await sql.raw(`grant usage on schema public to ucp_plain_${suffix}; grant all on all tables in schema public to ucp_plain_${suffix}; grant all on all sequences in schema public to ucp_plain_${suffix}`).execute(owner);
  plain = await connectAs(`ucp_plain_${suffix}`);
}, 60_000);
afterAll(async () => {
  await plain?.destroy();
  await owner?.destroy();
  await tdb?.drop();
  if (admin) {
    await sql.raw(`drop role if exists ucp_plain_${suffix}; drop role if exists ucp_owner_${suffix}`).execute(admin).catch(() => {});
    await admin.destroy();
  }
});

async function expectLoaded(db: DB, shopId: string) {
  const file = generateCatalog({ products: BULK_LOAD_PRODUCTS + 100, shopId, domain: `${shopId}.localhost`, name: shopId });
  await loadCatalogFile(db, file);
  const counts = await sql<{ products: number; variants: number; search: number }>`
    select (select count(*) from products where shop_id = ${shopId})::int as products,
           (select count(*) from variants where shop_id = ${shopId})::int as variants,
           (select count(*) from product_search where shop_id = ${shopId})::int as search`.execute(db);
  expect(counts.rows[0]).toEqual({ products: file.products.length, variants: file.products.reduce((n, p) => n + p.variants.length, 0), search: file.products.length });
  await expect(sql`insert into variants (shop_id, id, product_id, sku) values (${shopId}, 'var_orphan', 'no_such_product', null)`.execute(db)).rejects.toMatchObject({ code: '23503' });
  const options = await sql<{ reloptions: string[] | null }>`select reloptions from pg_class where relname in ('product_search_tsv_idx', 'product_search_title_idx')`.execute(db);
  for (const r of options.rows) expect(r.reloptions).toContain('fastupdate=off');
}

describe('bulk load by roles that are not superusers', () => {
  it('the role that ran the migrations loads with every key checked', async () => {
    expect((await sql<{ s: boolean }>`select rolsuper as s from pg_roles where rolname = current_user`.execute(owner)).rows[0].s).toBe(false);
    await expectLoaded(owner, 'shop_owner');
  }, 120_000);

  it('a role that owns nothing loads too (it may not change the search indexes: rows go in one at a time)', async () => {
    await expectLoaded(plain, 'shop_plain');
  }, 120_000);

  it('a run of files by a role that may neither turn off checks nor merge: a failing file leaves nothing, the others load', async () => {
    const file = (shopId: string) => generateCatalog({ products: BULK_LOAD_PRODUCTS / 2, shopId, domain: `${shopId}.localhost`, name: shopId });
    const bad = file('shop_plain_bad');
    bad.products[400].variants[0].id = bad.products[3].variants[0].id;
    const taken = file('shop_plain_taken');
    taken.shop.domain = 'shop_plain.localhost'; // served by the shop the test above loaded
    const sources = [file('shop_plain_a'), bad, taken, file('shop_plain_b')].map((f) => ({ name: f.shop.id, read: () => f }));
    const results = await loadCatalogs(plain, sources);
    expect(results.map((r) => r.error ?? r.products)).toEqual([BULK_LOAD_PRODUCTS / 2, 'an id is used twice', "domain shop_plain.localhost is already shop shop_plain's", BULK_LOAD_PRODUCTS / 2]);
    const shops = await sql<{ id: string; products: number }>`select s.id, (select count(*) from products p where p.shop_id = s.id)::int as products
      from shops s where s.id like 'shop_plain_%' order by s.id`.execute(plain);
    expect(shops.rows).toEqual([{ id: 'shop_plain_a', products: BULK_LOAD_PRODUCTS / 2 }, { id: 'shop_plain_b', products: BULK_LOAD_PRODUCTS / 2 }]);
  }, 120_000);
});
