/**
 * The product document cache (server/core/products/product-cache.ts): a catalog write is visible to the very
 * next cart and search, a removed product cannot be added, a read that raced a write never stores
 * the old document, and a PostgreSQL database is never cached (other processes write it too).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { deleteProduct, upsertProducts } from '../server/core/catalog/catalog-store.ts';
import { findShopByDomain } from '../server/core/shops/shops.ts';
import { cachedVariants, catalogChanged } from '../server/core/products/product-cache.ts';
import { loadVariants } from '../server/core/catalog/catalog.ts';
import { isSingleWriter } from '../server/db/index.ts';
import type { StoredProduct } from '../server/formats/types.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const createCart = (variant: string) =>
  s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: variant }, quantity: 1 }] });

async function productOf(variantId: string): Promise<StoredProduct> {
  const shop = (await findShopByDomain(s.db, 'demo.localhost'))!;
  const hit = (await loadVariants(s.db, shop, [variantId])).get(variantId)!;
  return structuredClone(hit.product);
}

describe('product cache', () => {
  const embedded = !process.env.TEST_DATABASE_URL;

  it('is on for the embedded database only', () => {
    expect(isSingleWriter(s.db)).toBe(embedded);
  });

  it('shows a price change to the next cart', async () => {
    const before = await createCart('var_tee_s_white');
    const oldPrice = before.body.line_items[0].item.price;
    const shop = (await findShopByDomain(s.db, 'demo.localhost'))!;
    const tee = await productOf('var_tee_s_white');
    for (const v of tee.variants) v.price += 111;
    await upsertProducts(s.db, shop, [tee]);
    const after = await createCart('var_tee_s_white');
    expect(after.status).toBe(201);
    expect(after.body.line_items[0].item.price).toBe(oldPrice + 111);
  });

  it('shows a changed title to the next search', async () => {
    const search = () => s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'flask', limit: 50 });
    const before = await search();
    const flask = before.body.products.find((p: { id: string }) => p.id === 'prod_engraved_flask');
    expect(flask.title).toBe('Engraved Steel Flask');
    const shop = (await findShopByDomain(s.db, 'demo.localhost'))!;
    const doc = await productOf('var_flask_steel');
    doc.title = { en: 'Engraved Steel Flask, Mark II', fr: 'Flasque en acier gravée, mk II' };
    await upsertProducts(s.db, shop, [doc]);
    const after = await search();
    expect(after.body.products.find((p: { id: string }) => p.id === 'prod_engraved_flask').title).toBe('Engraved Steel Flask, Mark II');
  });

  it('refuses a variant whose product was deleted', async () => {
    expect((await createCart('var_candle_fig')).status).toBe(201);
    const shop = (await findShopByDomain(s.db, 'demo.localhost'))!;
    const candle = await productOf('var_candle_fig');
    expect(await deleteProduct(s.db, shop.id, candle.id)).toBe(true);
    const r = await createCart('var_candle_fig');
    expect(r.body.messages[0]).toMatchObject({ code: 'not_found', path: '$.line_items[0].item.id' });
  });

  it(embedded ? 'never stores a document read before a write it raced' : 'never stores anything on PostgreSQL', async () => {
    const shop = (await findShopByDomain(s.db, 'demo.localhost'))!;
    const old = await productOf('var_flask_steel'); // a load: cached when embedded
    expect(cachedVariants(s.db, shop.id, ['var_flask_steel']).hits.has('var_flask_steel')).toBe(embedded);
    const read = cachedVariants(s.db, shop.id, ['var_black_tea_unused', 'var_flask_steel']);
    catalogChanged(s.db, shop.id); // a write committed while that read was in flight
    read.store([old]);
    expect(cachedVariants(s.db, shop.id, ['var_flask_steel']).missing).toEqual(['var_flask_steel']);
    // A read that starts after the write is stored (embedded only).
    await loadVariants(s.db, shop, ['var_flask_steel']);
    expect(cachedVariants(s.db, shop.id, ['var_flask_steel']).hits.has('var_flask_steel')).toBe(embedded);
  });
});
