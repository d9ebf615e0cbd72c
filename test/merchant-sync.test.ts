/**
 * The merchant API for sync tools (docs/oauth.md "Batch", "Inventory by SKU", "Refusals"):
 * `POST /3.0/products/batch` (each item checked on its own, the valid ones written together,
 * unchanged ones not written, too many refused), `PUT /3.0/inventory` naming the variant by SKU
 * (unknown and shared SKUs), the refusals the product schema makes in words on POST/PUT, the batch
 * and catalog files, and the tenant and scope rules: another shop's token touches nothing here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { tokensFor } from './support/oauth.ts';
import { CatalogFileError, checkCatalogFile } from '../server/core/catalog/catalog-check.ts';
import { BATCH_LIMIT } from '../server/core/catalog/catalog-batch.ts';

const SCOPES = 'products_read products_write inventories_read inventories_write';
let s: TestServer;
let demo: string; // shop_demo's owner
let other: string; // shop_other's owner
let readOnly: string; // shop_demo, products_read and inventories_read only
beforeAll(async () => {
  s = await startTestServer();
  demo = (await tokensFor(s, SCOPES)).access_token;
  other = (await tokensFor(s, SCOPES, { username: 'owner@other.localhost', password: 'other' })).access_token;
  readOnly = (await tokensFor(s, 'products_read inventories_read')).access_token;
}, 60_000);
afterAll(() => s.close());

const api = (token: string, method: string, path: string, body?: unknown, merchant = 'shop_demo') =>
  s.req('localhost', method, `/merchants/${merchant}/3.0${path}`, body, { authorization: `Bearer ${token}` });
const batch = (products: unknown[], token = demo, merchant = 'shop_demo') => api(token, 'POST', '/products/batch', { products }, merchant);

const product = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  handle: id.replace(/_/g, '-'),
  title: 'Sync Lamp',
  description: 'A lamp a sync tool sent.',
  categories: ['lighting'],
  variants: [{ id: `${id}_v1`, sku: `SKU-${id}`, price: 4500 }],
  ...extra,
});
const sized = (id: string, variantOptions: Record<string, string>) =>
  product(id, {
    options: [{ name: 'size', label: 'Size', values: [{ id: 's', label: 'S' }, { id: 'm', label: 'M' }] }],
    variants: [{ id: `${id}_v1`, price: 4500, options: variantOptions }],
  });
const updatedAt = async (id: string, shop = 'shop_demo') =>
  (await s.db.selectFrom('products').select('updated_at').where('shop_id', '=', shop).where('id', '=', id).executeTakeFirst())?.updated_at as Date | string | undefined;

describe('POST /3.0/products/batch', () => {
  it('creates every item, then answers unchanged for equal ones (not written) and updated for changed ones', async () => {
    const items = [product('sync_a'), product('sync_b'), product('sync_c')];
    const first = await batch(items);
    expect(first.status).toBe(200);
    expect(first.body.results).toEqual(items.map((p, index) => ({ index, id: p.id, status: 'created' })));
    for (const p of items) expect((await api(demo, 'GET', `/products/${p.id}`)).body).toMatchObject({ id: p.id, title: 'Sync Lamp' });
    const before = await Promise.all(items.map((p) => updatedAt(p.id)));
    await new Promise((r) => setTimeout(r, 20));
    const again = await batch([items[0], { ...items[1], title: 'Sync Lamp, brass' }, items[2]]);
    expect(again.status).toBe(200);
    expect(again.body.results.map((r: { status: string }) => r.status)).toEqual(['unchanged', 'updated', 'unchanged']);
    const after = await Promise.all(items.map((p) => updatedAt(p.id)));
    expect(after[0]).toEqual(before[0]);
    expect(after[2]).toEqual(before[2]);
    expect(new Date(after[1]!).getTime()).toBeGreaterThan(new Date(before[1]!).getTime());
    expect((await api(demo, 'GET', '/products/sync_b')).body.title).toBe('Sync Lamp, brass');
  });

  it('products the batch does not list are not touched', async () => {
    const before = await api(demo, 'GET', '/products/prod_classic_tee');
    const stamp = await updatedAt('prod_classic_tee');
    expect((await batch([product('sync_partial')])).body.results[0].status).toBe('created');
    expect((await api(demo, 'GET', '/products/prod_classic_tee')).body).toEqual(before.body);
    expect(await updatedAt('prod_classic_tee')).toEqual(stamp);
    expect((await api(demo, 'GET', '/products/sync_a')).status).toBe(200);
  });

  it('an invalid item is answered with its errors; the valid ones around it are written', async () => {
    const r = await batch([
      product('sync_ok_1'),
      product('sync_bad_price', { price: 2550 }),
      product('sync_bad_html', { description: '<p>Bright</p>' }),
      product('sync_bad_decimal', { variants: [{ id: 'sync_bad_decimal_v1', price: 25.5 }] }),
      sized('sync_bad_option', { colour: 'red' }),
      sized('sync_bad_value', { size: 'xl' }),
      42,
      product('sync_ok_1'),
      product('sync_taken', { variants: [{ id: 'var_tee_s_white', price: 100 }] }),
      sized('sync_ok_2', { size: 'm' }),
    ]);
    expect(r.status).toBe(200);
    const res = r.body.results;
    expect(res.map((x: { status: string }) => x.status)).toEqual(['created', 'error', 'error', 'error', 'error', 'error', 'error', 'error', 'error', 'created']);
    expect(res.map((x: { id: string | null }) => x.id)).toEqual(['sync_ok_1', 'sync_bad_price', 'sync_bad_html', 'sync_bad_decimal', 'sync_bad_option', 'sync_bad_value', null, 'sync_ok_1', 'sync_taken', 'sync_ok_2']);
    const first = (i: number) => res[i].errors[0];
    expect(first(1)).toMatchObject({ path: '$.products[1].price', message: expect.stringContaining('price belongs on each variant, in minor units') });
    expect(first(2)).toMatchObject({ path: '$.products[2].description', message: 'plain text expected; put HTML in description_html' });
    expect(first(3).path).toBe('$.products[3].variants[0].price');
    expect(first(3).message).toMatch(/minor units.*2550 for 25\.50/);
    expect(first(4)).toMatchObject({ path: '$.products[4].variants[0].options.colour', message: expect.stringContaining("declares no option 'colour'") });
    expect(first(5)).toMatchObject({ path: '$.products[5].variants[0].options.size', message: expect.stringContaining("no value 'xl'") });
    expect(first(6).path).toBe('$.products[6]');
    expect(first(7)).toMatchObject({ path: '$.products[7].id', code: 'duplicate_product_id', message: expect.stringContaining('products[0]') });
    expect(first(8)).toMatchObject({ path: '$.products[8].variants[0].id', code: 'variant_id_taken', message: expect.stringContaining('prod_classic_tee') });
    for (const i of [0, 9]) expect(res[i].errors).toBeUndefined();
    expect((await api(demo, 'GET', '/products/sync_ok_1')).status).toBe(200);
    expect((await api(demo, 'GET', '/products/sync_ok_2')).status).toBe(200);
    for (const id of ['sync_bad_price', 'sync_bad_html', 'sync_bad_decimal', 'sync_bad_option', 'sync_bad_value', 'sync_taken']) expect((await api(demo, 'GET', `/products/${id}`)).status, id).toBe(404);
    // The demo variant stayed where it was.
    const owner = await s.db.selectFrom('variants').select('product_id').where('shop_id', '=', 'shop_demo').where('id', '=', 'var_tee_s_white').executeTakeFirstOrThrow();
    expect(owner.product_id).toBe('prod_classic_tee');
  });

  it(`more than ${BATCH_LIMIT} items is refused whole (413), naming the limit; nothing is written`, async () => {
    const many = Array.from({ length: BATCH_LIMIT + 1 }, (_, i) => product(`sync_many_${i}`));
    const r = await batch(many);
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('too_many_products');
    expect(r.body.error.message).toContain(`at most ${BATCH_LIMIT} products; this one has ${BATCH_LIMIT + 1}`);
    expect((await api(demo, 'GET', '/products/sync_many_0')).status).toBe(404);
    // Exactly the limit is fine.
    const full = await batch(many.slice(0, BATCH_LIMIT));
    expect(full.status).toBe(200);
    expect(full.body.results.filter((x: { status: string }) => x.status === 'created')).toHaveLength(BATCH_LIMIT);
  }, 60_000);

  it('a body that is not {products: [...]} is 422 naming the field', async () => {
    for (const body of [{}, { products: {} }, { products: [], extra: 1 }, []]) {
      const r = await api(demo, 'POST', '/products/batch', body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error.code).toBe('validation_failed');
    }
    expect((await batch([])).body).toEqual({ results: [] });
  });
});

describe('PUT /3.0/inventory by SKU', () => {
  it('sets and adjusts the count of the variant with that SKU', async () => {
    const set = await api(demo, 'PUT', '/inventory', { sku: 'TEE-S-NAVY', available: 7 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ variant_id: 'var_tee_s_navy', product_id: 'prod_classic_tee', sku: 'TEE-S-NAVY', on_hand: 7 });
    const adjusted = await api(demo, 'PUT', '/inventory', { sku: 'TEE-S-NAVY', adjust: -2 });
    expect(adjusted.body.on_hand).toBe(5);
    expect((await api(demo, 'GET', '/inventory/var_tee_s_navy')).body.on_hand).toBe(5);
    const tooMany = await api(demo, 'PUT', '/inventory', { sku: 'TEE-S-NAVY', adjust: -6 });
    expect(tooMany.status).toBe(422);
    expect((await api(demo, 'PUT', '/inventory', { sku: 'TEE-S-NAVY', available: 1, adjust: 1 })).status).toBe(422);
    expect((await api(demo, 'PUT', '/inventory', { available: 1 })).status).toBe(422);
  });

  it('an unknown SKU is 404 naming it; a SKU two variants share is 409 naming both', async () => {
    const unknown = await api(demo, 'PUT', '/inventory', { sku: 'NO-SUCH-SKU', available: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain('NO-SUCH-SKU');
    const shared = await batch([
      product('sync_twin_a', { variants: [{ id: 'sync_twin_a_v', sku: 'TWIN', price: 100, inventory: 3 }] }),
      product('sync_twin_b', { variants: [{ id: 'sync_twin_b_v', sku: 'TWIN', price: 100, inventory: 4 }] }),
    ]);
    expect(shared.body.results.map((x: { status: string }) => x.status)).toEqual(['created', 'created']);
    const r = await api(demo, 'PUT', '/inventory', { sku: 'TWIN', available: 9 });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('sku_not_unique');
    expect(r.body.error.message).toContain('sync_twin_a_v');
    expect(r.body.error.message).toContain('sync_twin_b_v');
    expect((await api(demo, 'GET', '/inventory/sync_twin_a_v')).body.on_hand).toBe(3);
    expect((await api(demo, 'GET', '/inventory/sync_twin_b_v')).body.on_hand).toBe(4);
  });
});

describe('refusals in words, on POST and PUT and in catalog files', () => {
  const detail = (r: { status: number; body: any }) => {
    expect(r.status).toBe(422);
    return r.body.error.details[0] as { path: string; code: string; message: string };
  };

  it('a product-level price', async () => {
    const d = detail(await api(demo, 'POST', '/products', product('sync_r1', { price: 2550 })));
    expect(d.path).toBe('$.price');
    expect(d.message).toContain('price belongs on each variant, in minor units');
  });

  it('HTML in title or description', async () => {
    expect((await api(demo, 'POST', '/products', product('sync_r2'))).status).toBe(201);
    const t = detail(await api(demo, 'PUT', '/products/sync_r2', product('sync_r2', { title: 'Lamp <b>new</b>' })));
    expect(t).toMatchObject({ path: '$.title', message: 'plain text expected; put HTML in description_html' });
    const d = detail(await api(demo, 'PUT', '/products/sync_r2', product('sync_r2', { description: { en: 'ok', fr: 'une <em>lampe</em>' } })));
    expect(d).toMatchObject({ path: '$.description.fr', message: 'plain text expected; put HTML in description_html' });
    // Markup where it belongs, and a lone "<" in text, are fine.
    const ok = await api(demo, 'PUT', '/products/sync_r2', product('sync_r2', { description: 'Under 30 cm (< 1 ft).', description_html: '<p>Under 30 cm</p>' }));
    expect(ok.status).toBe(200);
  });

  it('a decimal where minor units are expected', async () => {
    const d = detail(await api(demo, 'POST', '/products', product('sync_r3', { variants: [{ id: 'sync_r3_v', price: 4500, list_price: 49.99 }] })));
    expect(d.path).toBe('$.variants[0].list_price');
    expect(d.message).toContain('minor units');
    expect(d.message).toContain('2550 for 25.50');
  });

  it('a variant option the product does not declare, or a value it does not list', async () => {
    const a = detail(await api(demo, 'POST', '/products', sized('sync_r4', { colour: 'red' })));
    expect(a.path).toBe('$.variants[0].options.colour');
    expect(a.message).toContain("the product declares no option 'colour' (its options: size)");
    const b = detail(await api(demo, 'POST', '/products', sized('sync_r4', { size: 'xl' })));
    expect(b.path).toBe('$.variants[0].options.size');
    expect(b.message).toContain("option 'size' has no value 'xl' (its values: s, m)");
    expect((await api(demo, 'POST', '/products', sized('sync_r4', { size: 'm' }))).status).toBe(201);
  });

  it('the same refusals in a catalog file, each naming its path', () => {
    const file = {
      shop: { id: 'shop_file', domain: 'file.localhost', name: 'File' },
      products: [product('f1', { price: 10 }), product('f2', { title: '<h1>Lamp</h1>' }), product('f3', { variants: [{ id: 'f3_v', price: 0.5 }] }), sized('f4', { size: 'l' })],
    };
    let issues: Array<{ path: string; content: string }> = [];
    try {
      checkCatalogFile(file);
    } catch (e) {
      if (!(e instanceof CatalogFileError)) throw e;
      issues = e.issues;
    }
    const at = (path: string) => issues.find((i) => i.path === path)?.content ?? '';
    expect(at('$.products[0].price')).toContain('price belongs on each variant');
    expect(at('$.products[1].title')).toContain('plain text expected');
    expect(at('$.products[2].variants[0].price')).toContain('minor units');
    expect(at('$.products[3].variants[0].options.size')).toContain("no value 'l'");
  });
});

describe('tenant and scope', () => {
  it('another shop’s token cannot reach this shop’s batch or SKU routes (404), and writes only its own shop', async () => {
    const stamp = await updatedAt('sync_a');
    const cross = await batch([product('sync_a', { title: 'Hijacked' })], other);
    expect(cross.status).toBe(404);
    expect((await api(other, 'PUT', '/inventory', { sku: 'TEE-S-NAVY', available: 99 })).status).toBe(404);
    expect(await updatedAt('sync_a')).toEqual(stamp);
    // On its own shop, the same ids are that shop's own products, and demo's SKUs are unknown there.
    const own = await batch([product('sync_a', { title: 'Other lamp' })], other, 'shop_other');
    expect(own.body.results[0]).toMatchObject({ id: 'sync_a', status: 'created' });
    expect((await api(demo, 'GET', '/products/sync_a')).body.title).toBe('Sync Lamp');
    const foreignSku = await api(other, 'PUT', '/inventory', { sku: 'TEE-S-NAVY', available: 99 }, 'shop_other');
    expect(foreignSku.status).toBe(404);
    expect((await api(demo, 'GET', '/inventory/var_tee_s_navy')).body.on_hand).toBe(5);
  });

  it('the scope each route needs', async () => {
    const b = await batch([product('sync_scope')], readOnly);
    expect(b.status).toBe(403);
    expect(b.body.error.required_scope).toBe('products_write');
    const i = await api(readOnly, 'PUT', '/inventory', { sku: 'TEE-S-NAVY', available: 1 });
    expect(i.status).toBe(403);
    expect(i.body.error.required_scope).toBe('inventories_write');
    expect((await api(demo, 'GET', '/products/sync_scope')).status).toBe(404);
  });

  it('the OpenAPI document lists both routes with their scopes and body schemas', async () => {
    const doc = (await s.req('localhost', 'GET', '/merchants/shop_demo/3.0/openapi.json')).body;
    const post = doc.paths['/3.0/products/batch'].post;
    expect(post.security).toEqual([{ oauth2: ['products_write'] }]);
    expect(post.requestBody.content['application/json'].schema.properties.products.maxItems).toBe(BATCH_LIMIT);
    expect(post.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ProductBatchResult' });
    const put = doc.paths['/3.0/inventory'].put;
    expect(put.security).toEqual([{ oauth2: ['inventories_write'] }]);
    expect(JSON.stringify(put.requestBody.content['application/json'].schema)).toContain('"sku"');
  });
});

describe('GET /3.0/feeds', () => {
  it("lists the shop's own feeds with their last result, with feeds_read; another shop's feeds never", async () => {
    await s.db.insertInto('import_feeds' as never).values([
      { shop_id: 'shop_demo', url: 'https://feeds.example/demo.xml', format: 'google', options: JSON.stringify({}), interval_seconds: 3600, last_status: 'failed', last_error: 'the feed answered HTTP 503' },
      { shop_id: 'shop_other', url: 'https://feeds.example/other.xml', format: 'google', options: JSON.stringify({}) },
    ] as never).execute();
    const token = (await tokensFor(s, 'feeds_read')).access_token;
    const res = await api(token, 'GET', '/feeds');
    expect(res.status).toBe(200);
    expect(res.body.feeds).toEqual([expect.objectContaining({ url: 'https://feeds.example/demo.xml', format: 'google', every_seconds: 3600, last_status: 'failed', last_error: 'the feed answered HTTP 503', last_counts: null })]);
    const without = await api(demo, 'GET', '/feeds');
    expect(without.status).toBe(403);
  });
});
