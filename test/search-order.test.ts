/**
 * Search order on a catalog larger than the walk window (server/core/catalog/catalog.ts): title matches
 * first, then matches elsewhere, each in catalog order, whichever strategy the server uses (sorting
 * every match, or walking the catalog in order and falling back to the full-text indexes); both run. The oracle is one plain SQL query that
 * sorts every match, a different path from the one under test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from './support/server.ts';
import { loadCatalogFile } from '../server/core/catalog/catalog-load.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { searchTuning } from '../server/core/catalog/catalog.ts';

const DEFAULT_TUNING = { ...searchTuning };
const PRODUCTS = Math.round(searchTuning.walkWindow * 1.6);
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  await loadCatalogFile(s.db, generateCatalog({ products: PRODUCTS, shopId: 'shop_gen', domain: 'gen.localhost', name: 'Generated' }));
}, 120_000);
afterAll(() => s.close());

/** Every match in the expected order, computed the slow, obvious way. */
async function oracle(query: string, category?: string): Promise<string[]> {
  const tsq = sql`(websearch_to_tsquery('english'::regconfig, ${query}) || websearch_to_tsquery('simple'::regconfig, ${query}))`;
  const r = await sql<{ product_id: string }>`
    select product_id from product_search
    where shop_id = 'shop_gen' and tsv @@ ${tsq} ${category ? sql`and categories ?| ${sql.val([category])}::text[]` : sql``}
    order by (title_tsv @@ ${tsq}) desc, position`.execute(s.db);
  return r.rows.map((row) => row.product_id);
}

/** Follows cursors through every page. */
async function allPages(body: Record<string, unknown>, pageSize: number, maxPages = 200): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const r = await s.req('gen.localhost', 'POST', '/api/ucp/catalog/search', { ...body, pagination: { limit: pageSize, ...(cursor ? { cursor } : {}) } });
    expect(r.status).toBe(200);
    ids.push(...r.body.products.map((p: { id: string }) => p.id));
    if (!r.body.pagination.has_next_page) return ids;
    cursor = r.body.pagination.cursor;
  }
  throw new Error('too many pages');
}

/** A word found in many descriptions but few titles: its second tier (matches elsewhere) is large. */
async function bodyWord(): Promise<string> {
  const r = await sql<{ word: string; ndoc: number; titles: number }>`
    select word, ndoc, (select count(*)::int from product_search p where p.shop_id = 'shop_gen' and p.title_tsv @@ to_tsquery('simple', quote_literal(word))) as titles
    from ts_stat('select tsv from product_search where shop_id = ''shop_gen''')
    where ndoc between 40 and 600 and word ~ '^[a-z]{4,}$'
    order by ndoc desc limit 300`.execute(s.db);
  const hit = r.rows.find((w) => w.titles > 3 && w.titles < w.ndoc / 3);
  if (!hit) throw new Error('the generated catalog has no description-heavy word');
  return hit.word;
}

describe.each([
  ['sorting every match', { sortAllUpTo: Infinity }],
  ['walking in catalog order', { sortAllUpTo: 0 }],
])(`search order, ${PRODUCTS} products, %s`, (_name, tuning) => {
  beforeAll(() => {
    Object.assign(searchTuning, tuning);
  });
  afterAll(() => {
    Object.assign(searchTuning, DEFAULT_TUNING);
  });

  it('pages across the boundary between title matches and matches elsewhere', async () => {
    const word = await bodyWord();
    const expected = await oracle(word);
    expect(expected.length).toBeGreaterThan(40);
    for (const size of [7, 50]) expect(await allPages({ query: word }, size), `${word} by ${size}`).toEqual(expected);
  });

  it('broad, rare and absent queries page through exactly the oracle order', async () => {
    // Terms of the generator's vocabulary: frequent, less frequent, a two-word AND, and none.
    for (const query of ['linen', 'stoneware bowl', 'vintage tent', 'zzzz']) {
      const expected = await oracle(query);
      const got = await allPages({ query }, 50);
      expect(got, query).toEqual(expected);
    }
    expect((await oracle('linen')).length).toBeGreaterThan(20);
  });

  it('first pages agree with the oracle whatever their size', async () => {
    for (const query of ['linen', 'kraft', 'soft bookmark']) {
      const expected = await oracle(query);
      for (const limit of [1, 7, 10, 50]) {
        const r = await s.req('gen.localhost', 'POST', '/api/ucp/catalog/search', { query, limit });
        expect(r.body.products.map((p: { id: string }) => p.id), `${query} ${limit}`).toEqual(expected.slice(0, limit));
        expect(r.body.pagination.has_next_page).toBe(expected.length > limit);
      }
    }
  });

  it('filters apply to matches, not to the walk', async () => {
    const first = await s.req('gen.localhost', 'POST', '/api/ucp/catalog/search', { query: 'linen', limit: 1 });
    const category = first.body.products[0].categories?.[0]?.value ?? first.body.products[0].categories?.[0];
    expect(typeof category).toBe('string');
    const expected = await oracle('linen', category);
    const got = await allPages({ query: 'linen', filters: { categories: [category] } }, 10);
    expect(got).toEqual(expected);
  });
});
