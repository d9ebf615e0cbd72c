/**
 * The in-memory search index (server/core/search/search-index.ts, catalog-index.ts) answers exactly what
 * the SQL search answers: a few hundred generated queries (English and French stemming, stop words,
 * OR, negation, phrases, identifiers, nonsense) with filters, page sizes and cursors, each asked with
 * the index and again with it turned off, through the real REST endpoint, both SQL strategies
 * taking turns as the reference. Then the index follows every kind of catalog write at once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { upsertProducts, deleteProduct } from '../server/core/catalog/catalog-store.ts';
import { loadCatalogFile } from '../server/core/catalog/catalog-load.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { searchTuning } from '../server/core/catalog/catalog.ts';
import { catalogIndex, indexTuning, parseQuery, readyCatalogIndex } from '../server/core/search/catalog-index.ts';
import { resetShop } from '../server/seed/reset.ts';
import type { StoredProduct } from '../server/formats/types.ts';

const HOST = 'gen.localhost';
const SHOP = 'shop_gen';
const PRODUCTS = Math.round(searchTuning.walkWindow * 1.5);
const catalog = generateCatalog({ products: PRODUCTS, shopId: SHOP, domain: HOST, name: 'Generated' });
const DEFAULT_SEARCH = { ...searchTuning };

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await loadCatalogFile(s.db, catalog);
  await readyCatalogIndex(s.db, SHOP); // the first search would build it in the background
}, 120_000);
afterAll(async () => {
  Object.assign(searchTuning, DEFAULT_SEARCH);
  indexTuning.enabled = true;
  await s?.close();
});

/** Deterministic choices, so a failure names a query that fails again. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function words(text: unknown): string[] {
  if (!text) return [];
  const all = typeof text === 'string' ? text : Object.values(text as Record<string, string>).join(' ');
  return all.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1);
}

const en = new Set<string>();
const fr = new Set<string>();
for (const p of catalog.products) {
  const t = p.title as Record<string, string>;
  const d = (p.description ?? {}) as Record<string, string>;
  for (const w of words(`${t.en ?? ''} ${d.en ?? ''}`)) en.add(w);
  for (const w of words(`${t.fr ?? ''} ${d.fr ?? ''}`)) fr.add(w);
}
const EN = [...en].sort();
const FR = [...fr].sort();
const CATEGORIES = [...new Set(catalog.products.flatMap((p) => p.categories))].sort();
const IDS = catalog.products.slice(0, 50).flatMap((p) => [p.id, p.handle, p.variants[0].sku ?? p.variants[0].id]);

interface Case {
  query?: string;
  language: 'en' | 'fr';
  currency: 'USD' | 'EUR';
  categories?: string[];
  price?: { min?: number; max?: number };
  limit: number;
}

function generate(n: number): Case[] {
  const r = rng(17);
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const cases: Case[] = [];
  for (let i = 0; i < n; i++) {
    const language = r() < 0.3 ? 'fr' : 'en';
    const vocab = language === 'fr' ? FR : EN;
    const w = () => pick(vocab);
    const shapes: Array<() => string | undefined> = [
      () => w(),
      () => w().toUpperCase(),
      () => `${w()}s`, // inflections meet the stemmer
      () => `${w()}ing`,
      () => `${w()} ${w()}`,
      () => `${w()} or ${w()}`,
      () => `${w()} -${w()}`,
      () => `-${w()}`,
      () => `"${w()} ${w()}"`, // a phrase: answered by the database either way
      () => (language === 'fr' ? `le ${w()}` : `the ${w()}`), // stop words
      () => pick(IDS),
      () => `${w()} ${pick(IDS)}`,
      () => 'zzqx',
      () => pick(['!!!', '&', '|', '-', '""', 'the', 'le et la']),
      () => `${w().slice(0, -1)}`, // a typo: the correction pass runs on both
      () => undefined, // browsing
    ];
    const c: Case = { query: pick(shapes)(), language, currency: r() < 0.25 ? 'EUR' : 'USD', limit: 1 + Math.floor(r() * 25) };
    if (r() < 0.3) c.categories = r() < 0.8 ? [pick(CATEGORIES)] : [pick(CATEGORIES), pick(CATEGORIES)];
    // Bounds sometimes equal a product's price exactly: both ends are inclusive.
    const exact = () => pick(pick(catalog.products).variants).price;
    if (r() < 0.3) c.price = pick([{ min: Math.floor(r() * 8000) }, { min: Math.floor(r() * 3000), max: 3000 + Math.floor(r() * 9000) }, { min: exact() }, { max: exact() }, { min: exact(), max: exact() }]);
    if (c.query === undefined && !c.categories && !c.price) c.categories = [pick(CATEGORIES)]; // browsing needs a filter
    cases.push(c);
  }
  return cases;
}

/** Up to three pages of a case: ids, cursors and messages of each. */
async function pages(c: Case): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 3; page++) {
    const body = {
      ...(c.query !== undefined ? { query: c.query } : {}),
      context: { language: c.language, currency: c.currency },
      ...(c.categories || c.price ? { filters: { ...(c.categories ? { categories: c.categories } : {}), ...(c.price ? { price: c.price } : {}) } } : {}),
      pagination: { limit: c.limit, ...(cursor ? { cursor } : {}) },
    };
    const r = await s.req(HOST, 'POST', '/api/ucp/catalog/search', body);
    expect(r.status, JSON.stringify(body)).toBe(200);
    out.push({ ids: r.body.products.map((p: { id: string }) => p.id), pagination: r.body.pagination, messages: r.body.messages });
    if (!r.body.pagination.has_next_page) break;
    cursor = r.body.pagination.cursor;
  }
  return out;
}

describe('the in-memory index answers what the SQL search answers', () => {
  afterEach(() => {
    indexTuning.enabled = true;
    Object.assign(searchTuning, DEFAULT_SEARCH);
  });

  it(`${PRODUCTS} products, 300 generated queries with filters and cursors, either SQL strategy`, async () => {
    expect(await catalogIndex(s.db, SHOP)).toBeDefined();
    const cases = generate(300);
    let nonEmpty = 0;
    let positional = 0;
    for (const [i, c] of cases.entries()) {
      indexTuning.enabled = true;
      const fromIndex = await pages(c);
      indexTuning.enabled = false;
      Object.assign(searchTuning, i % 2 ? { sortAllUpTo: Infinity } : { sortAllUpTo: 0 });
      const fromSql = await pages(c);
      expect(fromIndex, `case ${i}: ${JSON.stringify(c)}`).toEqual(fromSql);
      if ((fromIndex[0] as { ids: string[] }).ids.length) nonEmpty++;
      if (c.query && (await parseQuery(s.db, c.language === 'fr' ? 'french' : 'english', c.query)) === 'positional') positional++;
    }
    // The cases exercise the index: most find something, and most are answered from memory (phrases,
    // which identifiers and hyphenated words become, go to the database).
    expect(nonEmpty).toBeGreaterThan(150);
    expect(300 - positional).toBeGreaterThan(200);
  }, 300_000);
});

describe('the index follows catalog writes before they return', () => {
  const find = async (query: string) => (await s.req(HOST, 'POST', '/api/ucp/catalog/search', { query, pagination: { limit: 50 } })).body.products.map((p: { id: string }) => p.id);
  const shop = { id: SHOP, settings: catalog.shop.settings };
  const product = (id: string, title: string, position?: string): StoredProduct => ({
    ...(catalog.products[0] as StoredProduct),
    id,
    handle: id.replace(/_/g, '-'),
    title: { en: title, fr: title },
    description: { en: `${position ?? ''} quokka gear`, fr: 'matériel' },
    variants: catalog.products[0].variants.map((v, i) => ({ ...v, id: `${id}_v${i}`, sku: `${id.toUpperCase()}-${i}` })) as StoredProduct['variants'],
  });

  it('a new product is found by its words and SKU, an updated one by its new words only, a deleted one not at all', async () => {
    await upsertProducts(s.db, shop, [product('prod_k1', 'Zanzibar Kettle')]);
    expect(await find('zanzibar kettles')).toEqual(['prod_k1']);
    expect(await find('PROD_K1-1')).toEqual(['prod_k1']);

    await upsertProducts(s.db, shop, [product('prod_k1', 'Xylophone Kettle')]);
    expect(await find('zanzibar')).toEqual([]);
    expect(await find('xylophone')).toEqual(['prod_k1']);
    // The listing shows the new document, not a rendering kept from before the write.
    const listed = await s.req(HOST, 'POST', '/api/ucp/catalog/search', { query: 'xylophone' });
    expect(listed.body.products[0].title).toBe('Xylophone Kettle');
    // Still in its place in catalog order: the last product, after every other kettle in its tier.
    const kettles = await find('kettle');
    expect(kettles.at(-1) === 'prod_k1' || kettles.length === 50).toBe(true);

    expect(await deleteProduct(s.db, SHOP, 'prod_k1')).toBe(true);
    expect(await find('xylophone')).toEqual([]);
    expect(await find('quokka')).toEqual([]);
  });

  it('a batch of new products and a reset of the shop', async () => {
    await upsertProducts(s.db, shop, [product('prod_k2', 'Quokka One'), product('prod_k3', 'Quokka Two'), product('prod_k4', 'Wombat')]);
    expect(await find('quokka')).toEqual(['prod_k2', 'prod_k3', 'prod_k4']); // titles first, then the description match
    await resetShop(s.db, SHOP, { catalogFile: catalog });
    expect(await find('quokka')).toEqual([]);
    const index = await catalogIndex(s.db, SHOP);
    expect(index?.size).toBe(PRODUCTS);
  });

  it('a write too large to patch is searchable at once; the index is rebuilt in the background, and neither the write nor searches wait for it', async () => {
    // More products than the change log lists (5,000): every index must rebuild.
    const many = generateCatalog({ products: 5001, shopId: 'shop_many', domain: 'many.localhost', name: 'Many' }).products.map((p, i) => ({
      ...(p as StoredProduct),
      title: i === 4000 ? { en: 'Okapi Lantern', fr: 'Lanterne okapi' } : p.title,
    }));
    await upsertProducts(s.db, shop, many);
    // The write returned before the rebuild: this shop has no index for now, and the database answers.
    expect(await catalogIndex(s.db, SHOP)).toBeUndefined();
    expect(await find('okapi')).toEqual([many[4000].id]);
    await expect.poll(async () => (await catalogIndex(s.db, SHOP))?.size, { timeout: 30_000 }).toBe(PRODUCTS + 5001);
    expect(await find('okapi')).toEqual([many[4000].id]);
  }, 120_000);
});
