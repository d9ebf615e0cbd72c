/**
 * Memory bounded by shop count, not only per shop (docs/deploy.md "Memory"): the parsed-document
 * cache (server/core/products/product-cache.ts) holds at most so many documents and shops across a
 * database, and the typo-correction words (server/core/search/search-correction.ts) at most so many
 * shops; the least recently used shops go first. Runs on both databases (the document cache is the
 * embedded database's only: on PostgreSQL it holds nothing at all).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { loadCatalogFile } from '../server/core/catalog/catalog-load.ts';
import { loadProducts } from '../server/core/catalog/catalog.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { findShopById } from '../server/core/shops/shops.ts';
import { cachedProducts, productCacheStats, productCacheTuning } from '../server/core/products/product-cache.ts';
import { searchVocabulary, vocabularyShops, vocabularyTuning } from '../server/core/search/search-correction.ts';
import { isSingleWriter } from '../server/db/index.ts';
import type { Shop } from '../server/formats/types.ts';

let s: TestServer;
const shops: Array<{ shop: Shop; ids: string[] }> = [];
const PRODUCTS = 5;
beforeAll(async () => {
  s = await startTestServer();
  for (let i = 1; i <= 4; i++) {
    const file = generateCatalog({ products: PRODUCTS, shopId: `shop_bound_${i}`, domain: `bound-${i}.localhost`, name: `Bound ${i}` });
    await loadCatalogFile(s.db, file);
    shops.push({ shop: (await findShopById(s.db, `shop_bound_${i}`))!, ids: file.products.map((p) => p.id) });
  }
}, 120_000);
afterAll(() => s?.close());
const saved = { ...productCacheTuning, vocabulary: vocabularyTuning.maxShops };
afterEach(() => {
  Object.assign(productCacheTuning, { maxPerShop: saved.maxPerShop, maxDocuments: saved.maxDocuments, maxShops: saved.maxShops });
  vocabularyTuning.maxShops = saved.vocabulary;
});

const readAll = async () => {
  for (const { shop, ids } of shops) expect((await loadProducts(s.db, shop, ids)).size).toBe(PRODUCTS);
};
const cached = (i: number) => cachedProducts(s.db, shops[i].shop.id, shops[i].ids).hits.size;

describe('the document cache across shops', () => {
  it('holds at most maxDocuments, dropping the least recently used shops first', async () => {
    productCacheTuning.maxDocuments = 2 * PRODUCTS + 2;
    await readAll();
    if (!isSingleWriter(s.db)) return expect(productCacheStats(s.db)).toEqual({ shops: 0, documents: 0 });
    expect(productCacheStats(s.db).documents).toBeLessThanOrEqual(2 * PRODUCTS + 2);
    // The last two shops read are whole; the first two went.
    expect([cached(3), cached(2)]).toEqual([PRODUCTS, PRODUCTS]);
    expect(cached(0)).toBe(0);
    // Reading the first again brings it back, and sends the least recent of the others away.
    await loadProducts(s.db, shops[0].shop, shops[0].ids);
    expect(cached(0)).toBe(PRODUCTS);
    expect(productCacheStats(s.db).documents).toBeLessThanOrEqual(2 * PRODUCTS + 2);
  });

  it('holds at most maxShops shops, even with few documents each', async () => {
    productCacheTuning.maxShops = 2;
    await readAll();
    if (!isSingleWriter(s.db)) return expect(productCacheStats(s.db)).toEqual({ shops: 0, documents: 0 });
    expect(productCacheStats(s.db)).toEqual({ shops: 2, documents: 2 * PRODUCTS });
  });
});

describe('typo-correction words across shops', () => {
  it('are kept for at most maxShops shops, the least recently used dropped', async () => {
    vocabularyTuning.maxShops = 2;
    for (const { shop } of shops) expect((await searchVocabulary(s.db, shop)).size).toBeGreaterThan(0);
    expect(vocabularyShops(s.db)).toBe(2);
  });
});
