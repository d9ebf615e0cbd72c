/**
 * Loading many catalog files in one run (server/core/catalog/catalog-load.ts, docs/catalog-format.md
 * "Loading files"): each file atomic (a failed file leaves nothing, its shop row included) while the
 * others load, small files written together as bulk groups, refusals that name the ids, and ids
 * scoped per shop (two shops may use the same product and variant ids). Runs on the embedded
 * database, and on PostgreSQL with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from './support/server.ts';
import { tokensFor } from './support/oauth.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { loadCatalogs, loadCatalogFile, loadTuning, type CatalogSource } from '../server/core/catalog/catalog-load.ts';
import { CatalogFileError, checkCatalogFile } from '../server/core/catalog/catalog-check.ts';
import { BULK_LOAD_PRODUCTS } from '../server/core/catalog/catalog-store.ts';
import type { CatalogFile } from '../server/formats/catalog-format.ts';
import { DEMO_DATA_DIR } from '../server/seed/demo.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

const catalog = (shopId: string, products: number) => generateCatalog({ products, shopId, domain: `${shopId.replace(/_/g, '-')}.localhost`, name: shopId });
const source = (name: string, file: unknown): CatalogSource => ({ name, read: () => file });

/** Everything a file writes for its shop, counted. */
async function traces(shopId: string) {
  const r = await sql<Record<string, number>>`select
      (select count(*) from shops where id = ${shopId})::int as shops,
      (select count(*) from products where shop_id = ${shopId})::int as products,
      (select count(*) from variants where shop_id = ${shopId})::int as variants,
      (select count(*) from product_search where shop_id = ${shopId})::int as search,
      (select count(*) from discounts where shop_id = ${shopId})::int as discounts,
      (select count(*) from catalog_versions where shop_id = ${shopId})::int as versions`.execute(s.db);
  return r.rows[0];
}
const nothing = { shops: 0, products: 0, variants: 0, search: 0, discounts: 0, versions: 0 };

async function searchIds(host: string, query: string) {
  const r = await s.req(host, 'POST', '/api/ucp/catalog/search', { query, pagination: { limit: 50 } });
  expect(r.status, r.text).toBe(200);
  return (r.body.products as Array<{ id: string }>).map((p) => p.id);
}

describe('a run of several files', () => {
  it('loads the good files; a file that fails leaves nothing, its shop row included', async () => {
    const good1 = catalog('shop_run_a', 30);
    const bad = catalog('shop_run_bad', 30);
    bad.products[20].variants[0].id = bad.products[4].variants[1].id;
    const good2 = catalog('shop_run_c', 30);
    const results = await loadCatalogs(s.db, [source('a.json', good1), source('bad.json', bad), source('c.json', good2)]);
    expect(results.map((r) => [r.file, r.shop, r.products, r.error])).toEqual([
      ['a.json', 'shop_run_a', 30, undefined],
      ['bad.json', undefined, undefined, 'an id is used twice'],
      ['c.json', 'shop_run_c', 30, undefined],
    ]);
    expect(results[1].issues).toEqual([
      {
        path: '$.products[20].variants[0].id',
        code: 'duplicate_variant_id',
        content: `variant id ${bad.products[4].variants[1].id} is used by products ${bad.products[4].id} (products[4].variants[1]) and ${bad.products[20].id} (products[20].variants[0])`,
      },
    ]);
    expect(await traces('shop_run_bad')).toEqual(nothing);
    expect(await traces('shop_run_a')).toMatchObject({ shops: 1, products: 30, search: 30, versions: 1 });
    expect(await searchIds('shop-run-c.localhost', good2.products[3].id)).toEqual([good2.products[3].id]);
  });

  it('a file the database refuses in the middle of a bulk group is rolled back alone; the group around it commits', async () => {
    // Three files written in one bulk transaction (1,200 products); the second collides with what
    // the database holds only once it is written: its variant id belongs to a product it does not list.
    const per = Math.ceil(BULK_LOAD_PRODUCTS / 2.5);
    const existing = catalog('shop_mid', 5);
    await loadCatalogFile(s.db, existing);
    const first = catalog('shop_mid_a', per);
    const reload: CatalogFile = { ...catalog('shop_mid', per), shop: { ...existing.shop, name: 'Renamed by a failed file' } };
    reload.products = reload.products.slice(5); // not the products it had
    reload.products[per - 10].variants[0].id = existing.products[2].variants[0].id;
    const last = catalog('shop_mid_c', per);
    const results = await loadCatalogs(s.db, [source('a', first), source('mid', reload), source('c', last)]);
    expect(results.map((r) => r.error ?? 'ok')).toEqual(['ok', 'a variant id belongs to another product', 'ok']);
    expect(results[1].issues).toEqual([
      {
        path: `$.products[${per - 10}].variants[0].id`,
        code: 'variant_id_taken',
        content: `variant id ${existing.products[2].variants[0].id} of product ${reload.products[per - 10].id} already belongs to product ${existing.products[2].id} of shop shop_mid, which this file does not list`,
      },
    ]);
    // shop_mid is as the earlier load left it: its name, its five products, no more.
    const shop = await s.db.selectFrom('shops').select('name').where('id', '=', 'shop_mid').executeTakeFirstOrThrow();
    expect(shop.name).toBe('shop_mid');
    expect(await traces('shop_mid')).toMatchObject({ products: 5, search: 5, versions: 1 });
    expect(await traces('shop_mid_a')).toMatchObject({ shops: 1, products: per, search: per });
    expect(await traces('shop_mid_c')).toMatchObject({ shops: 1, products: per, search: per });
    for (const p of [first.products[0], last.products[per - 1]]) expect(await searchIds(`${p.id.split('_p')[0].replace(/_/g, '-')}.localhost`, p.id)).toEqual([p.id]);
    // The bulk group put the search indexes back to one entry at a time and left nothing pending.
    const options = await sql<{ reloptions: string[] | null }>`select reloptions from pg_class where relname in ('product_search_tsv_idx', 'product_search_title_idx')`.execute(s.db);
    for (const r of options.rows) expect(r.reloptions).toContain('fastupdate=off');
  }, 120_000);

  it("a fence that says no (the first-run seed found its shops written by another process) writes nothing and says skipped", async () => {
    const seen: string[][] = [];
    const results = await loadCatalogs(s.db, [source('a.json', catalog('shop_fence_a', 3)), source('b.json', catalog('shop_fence_b', 2))], {
      fence: async (tx, shops) => {
        seen.push(shops);
        await sql`select 1`.execute(tx); // runs inside the group's own transaction
        return false;
      },
    });
    expect(seen).toEqual([['shop_fence_a', 'shop_fence_b']]);
    expect(results).toEqual([
      { file: 'a.json', shop: 'shop_fence_a', skipped: true },
      { file: 'b.json', shop: 'shop_fence_b', skipped: true },
    ]);
    expect(await traces('shop_fence_a')).toEqual(nothing);
    expect(await traces('shop_fence_b')).toEqual(nothing);
    const yes = await loadCatalogs(s.db, [source('a.json', catalog('shop_fence_a', 3))], { fence: async () => true });
    expect(yes).toEqual([{ file: 'a.json', shop: 'shop_fence_a', products: 3 }]);
    expect((await traces('shop_fence_a')).products).toBe(3);
  });

  it('a domain another shop serves: refused by name, nothing written', async () => {
    const file = catalog('shop_squatter', 3);
    file.shop.domain = 'Demo.localhost';
    const [r] = await loadCatalogs(s.db, [source('squat', file)]);
    expect(r).toMatchObject({ error: 'domain Demo.localhost is already shop shop_demo\'s', issues: [{ path: '$.shop.domain', code: 'domain_taken' }] });
    expect(await traces('shop_squatter')).toEqual(nothing);
  });

  it('groups of files commit one after another, each file counted once', async () => {
    const saved = loadTuning.groupProducts;
    loadTuning.groupProducts = 25;
    try {
      const files = [1, 2, 3, 4, 5].map((i) => catalog(`shop_grp_${i}`, 10));
      files[3].products[1].variants[0].price = -1 as never;
      const results = await loadCatalogs(s.db, files.map((f, i) => source(`f${i}`, f)));
      expect(results.map((r) => r.products ?? r.error)).toEqual([10, 10, 10, 'not a valid catalog file', 10]);
      expect(results[3].issues?.[0]).toMatchObject({ path: '$.products[1].variants[0].price', content: expect.stringContaining(`(product ${files[3].products[1].id}, variant ${files[3].products[1].variants[0].id})`) });
      for (const i of [1, 2, 3, 5]) expect((await traces(`shop_grp_${i}`)).products).toBe(10);
      expect(await traces('shop_grp_4')).toEqual(nothing);
    } finally {
      loadTuning.groupProducts = saved;
    }
  });

  it('a file read error or JSON error is that file\'s result; the run goes on', async () => {
    const boom: CatalogSource = { name: 'gone.json', read: () => { throw new Error('no such file'); } };
    const results = await loadCatalogs(s.db, [boom, source('ok', catalog('shop_after_gone', 2))]);
    expect(results).toEqual([{ file: 'gone.json', error: 'no such file' }, { file: 'ok', shop: 'shop_after_gone', products: 2 }]);
  });
});

describe('ids in a file', () => {
  it('a product listed twice, a variant id twice in one product: each named', () => {
    const file = catalog('shop_ids', 6);
    file.products[3] = { ...file.products[1] };
    file.products[5].variants[1].id = file.products[5].variants[0].id;
    const issues = loadIssues(file);
    expect(issues).toEqual([
      `$.products[3].id: product id ${file.products[1].id} is used twice: products[1] and products[3]`,
      `$.products[5].variants[1].id: variant id ${file.products[5].variants[0].id} is used twice in product ${file.products[5].id}: variants[0] and variants[1]`,
    ]);
  });

  it('a load moves a variant between two of its products, whichever batch writes each', async () => {
    const file = catalog('shop_move', 620);
    await loadCatalogFile(s.db, file);
    // The variant leaves product 600 (second batch) for product 3 (first batch).
    const moved = file.products[600].variants.pop()!;
    // Its option values are product 600's; product 3 declares others (a variant names only its own product's options).
    file.products[3].variants.push({ ...moved, options: {} });
    await loadCatalogFile(s.db, file);
    const owner = await s.db.selectFrom('variants').select('product_id').where('shop_id', '=', 'shop_move').where('id', '=', moved.id).executeTakeFirstOrThrow();
    expect(owner.product_id).toBe(file.products[3].id);
  }, 60_000);
});

function loadIssues(file: unknown): string[] {
  try {
    checkCatalogFile(file);
  } catch (e) {
    if (e instanceof CatalogFileError) return e.issues.map((i) => `${i.path}: ${i.content}`);
    throw e;
  }
  return [];
}

describe('ids are scoped per shop', () => {
  it('two shops with the same product and variant ids: each shop sees, sells and counts its own', async () => {
    const demo = JSON.parse(readFileSync(`${DEMO_DATA_DIR}/demo.json`, 'utf8')) as CatalogFile;
    const twin: CatalogFile = {
      ...demo,
      shop: { ...demo.shop, id: 'shop_twin', domain: 'twin.localhost', name: 'Twin' },
      products: demo.products.map((p) => ({ ...p, title: `Twin ${p.id}`, variants: p.variants.map((v) => ({ ...v, price: v.price + 100 })) })),
    };
    const [r] = await loadCatalogs(s.db, [source('twin', twin)]);
    expect(r.error).toBeUndefined();

    const lookup = async (host: string) => (await s.req(host, 'POST', '/api/ucp/catalog/lookup', { ids: ['var_tee_s_white', 'prod_engraved_flask'] })).body;
    const [mine, theirs] = [await lookup('twin.localhost'), await lookup('demo.localhost')];
    expect(mine.products.map((p: { title: string }) => p.title).sort()).toEqual(['Twin prod_classic_tee', 'Twin prod_engraved_flask']);
    expect(theirs.products.map((p: { title: string }) => p.title).sort()).toEqual(['Classic Tee', 'Engraved Steel Flask']);

    const cart = async (host: string) => (await s.req(host, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] })).body;
    expect((await cart('twin.localhost')).line_items[0].item.price).toBe(2600);
    expect((await cart('demo.localhost')).line_items[0].item.price).toBe(2500);

    // The demo owner sets the demo shop's stock of the variant to 0; the twin's is untouched.
    const token = (await tokensFor(s, 'inventories_read inventories_write products_read')).access_token;
    const api = (method: string, path: string, body?: unknown) => s.req('localhost', method, `/merchants/shop_demo/3.0${path}`, body, { authorization: `Bearer ${token}` });
    expect((await api('PUT', '/inventory/var_tee_s_white', { available: 0 })).status).toBe(200);
    expect((await api('GET', '/products/prod_classic_tee')).body.title).toEqual(demo.products.find((p) => p.id === 'prod_classic_tee')!.title);
    const twinTee = await s.db.selectFrom('products').select('doc').where('shop_id', '=', 'shop_twin').where('id', '=', 'prod_classic_tee').executeTakeFirstOrThrow();
    expect((twinTee.doc as CatalogFile['products'][number]).variants.find((v) => v.id === 'var_tee_s_white')!.inventory).toBe(40);
    const sold = await s.req('twin.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 2 }] });
    expect(sold.status, sold.text).toBe(201);
    expect(sold.body.messages ?? []).toEqual([]);
  });
});
