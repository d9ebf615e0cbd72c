/**
 * During a bulk load on the embedded database, a scratch database computes the search vectors
 * (server/core/search/search-vectors.ts) and the shop's database stores them as text. They must be
 * exactly the vectors the shop's database computes itself, or a product would be found
 * differently depending on how it was loaded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startTestServer, type TestServer } from './support/server.ts';
import { computedBy, expectStoredVectors } from './support/vectors.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { CatalogFile, type StoredProduct } from '../server/formats/catalog-format.ts';
import { loadCatalogFile } from '../server/core/catalog/catalog-load.ts';
import { ScratchVectors, vectorText, type VectorText } from '../server/core/search/search-vectors.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
}, 120_000);
afterAll(() => s?.close());

/** Texts that exercise the parser: quotes, backslashes, accents, hyphens, SKUs, numbers, stop words. */
function awkward(): VectorText[] {
  const lines = [
    "l'été d'Écosse — « toile » \\\\ back\\slash 'quoted' \"double\"",
    'SKU-12-B x_y_z v2.3.1 3.5oz 100% e-mail@example.com http://example.com/a?b=c',
    'the and of a an to',
    '',
    'Ünïcödé naïve façade œuvre Straße',
  ];
  return lines.map((t, i) => ({ id: `odd_${i}`, en: t, fr: t, ids: t, title_en: t, title_fr: t }));
}

describe('search vectors from a scratch database', () => {
  it('are exactly the vectors the shop database computes', async () => {
    const demo = CatalogFile.parse(JSON.parse(readFileSync('server/seed/data/demo.json', 'utf8')));
    const generated = generateCatalog({ products: 400 });
    const texts = [
      ...demo.products.map((p) => vectorText(p, demo.shop.settings.languages)),
      ...generated.products.map((p) => vectorText(p as StoredProduct, generated.shop.settings.languages)),
      ...awkward(),
    ];
    const scratch = new ScratchVectors();
    try {
      await expect.poll(() => scratch.ready, { timeout: 20_000 }).toBe(true);
      const theirs = (await scratch.compute(texts))!;
      const ours = await computedBy(s.db, texts);
      expect(theirs.size).toBe(texts.length);
      for (const t of texts) expect(theirs.get(t.id), t.id).toEqual(ours.get(t.id));
      expect(ours.get('odd_0')!.tsv).toContain("'écoss'"); // French stemming reached the text intact
    } finally {
      await scratch.close();
    }
  }, 60_000);

  it('feed a bulk load', async () => {
    const before = ScratchVectors.batches;
    const file = generateCatalog({ products: 3000, shopId: 'shop_scratch', domain: 'scratch.localhost', name: 'Scratch' });
    // Handed a scratch database already open (a load's own computes its first batches itself while it opens).
    const scratch = new ScratchVectors();
    try {
      await expect.poll(() => scratch.ready, { timeout: 20_000 }).toBe(true);
      await loadCatalogFile(s.db, file, undefined, scratch);
    } finally {
      await scratch.close();
    }
    expect(ScratchVectors.batches - before).toBeGreaterThanOrEqual(5); // 6 batches of 500: each computed while the one before is written
    await expectStoredVectors(s.db, file);
  }, 120_000);
});
