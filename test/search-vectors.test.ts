/**
 * A product's search vectors (server/core/search/search-vectors.ts) are computed from the text passed
 * with the write, on either database; a bulk load that replaces products replaces their vectors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { expectStoredVectors } from './support/vectors.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { scratchVectors, upsertProducts } from '../server/core/catalog/catalog-store.ts';
import { loadCatalogFile } from '../server/core/catalog/catalog-load.ts';
import { ScratchVectors, vectorText } from '../server/core/search/search-vectors.ts';
import { openDatabase } from '../server/db/index.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  // The first scratch database of a process is the slow one to open; a load faster than that
  // opening would compute every batch itself and prove nothing about computing ahead.
  await new ScratchVectors().close();
}, 120_000);
afterAll(() => s?.close());

describe('search vectors', () => {
  it('a bulk load stores the vectors the database computes for each product, replaced ones included', async () => {
    const before = ScratchVectors.batches;
    const file = generateCatalog({ products: 2500, shopId: 'shop_vec', domain: 'vec.localhost', name: 'Vectors' });
    // Computed ahead, beside the writes (a scratch database, or a second connection on PostgreSQL).
    // A load opens its own and computes its first batches itself while it opens; here it is handed
    // one already open, so that what is proved does not depend on how fast the machine opens it.
    const scratch = scratchVectors(s.db)!;
    try {
      await expect.poll(() => scratch.ready, { timeout: 20_000 }).toBe(true);
      await loadCatalogFile(s.db, file, undefined, scratch);
    } finally {
      await scratch.close();
    }
    await expectStoredVectors(s.db, file);
    expect(ScratchVectors.batches - before).toBeGreaterThanOrEqual(4); // 5 batches of 500: each computed while the one before is written
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

  it('vectors computed ahead that cannot be (the database is gone) are undefined, once logged; the writer computes its own', async () => {
    const gone = await openDatabase({ dataDir: 'memory://' });
    await gone.destroy();
    const scratch = new ScratchVectors(gone);
    expect(scratch.ready).toBe(true);
    const file = generateCatalog({ products: 2 });
    expect(await scratch.compute(file.products.map((p) => vectorText(p, file.shop.settings.languages)))).toBeUndefined();
    expect(scratch.ready).toBe(false);
    await scratch.close(); // a borrowed database is not closed again
  });
});
