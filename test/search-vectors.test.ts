/**
 * A product's search vectors (server/core/search-vectors.ts) are computed from the text passed
 * with the write, on either database; a bulk load that replaces products replaces their vectors.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { expectStoredVectors } from './support/vectors.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { loadCatalogFile, upsertProducts } from '../server/core/catalog-store.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
}, 120_000);
afterAll(() => s?.close());

describe('search vectors', () => {
  it('a bulk load stores the vectors the database computes for each product, replaced ones included', async () => {
    const file = generateCatalog({ products: 1600, shopId: 'shop_vec', domain: 'vec.localhost', name: 'Vectors' });
    await loadCatalogFile(s.db, file);
    await expectStoredVectors(s.db, file);
    // Loaded again with every title changed: the search rows are replaced, not duplicated.
    const renamed = { ...file, products: file.products.map((p) => ({ ...p, title: { en: `Renamed ${p.id}`, fr: `Renommé ${p.id}` } })) };
    await loadCatalogFile(s.db, renamed);
    await expectStoredVectors(s.db, renamed);
  }, 120_000);

  it('a single product written through the store gets the same vectors', async () => {
    const file = generateCatalog({ products: 3, shopId: 'shop_one', domain: 'one.localhost', name: 'One' });
    await loadCatalogFile(s.db, { ...file, products: file.products.slice(0, 1) });
    for (const p of file.products.slice(1)) await upsertProducts(s.db, { id: 'shop_one', settings: file.shop.settings }, [p]);
    await expectStoredVectors(s.db, file);
  });
});
