/**
 * The search indexes' memory budget (SEARCH_INDEX_BUDGET_MB; server/core/search/catalog-index.ts), on
 * either database: no index is built at start or by a load; a shop's is built when it is searched;
 * past the budget the least recently searched shops' indexes are evicted and rebuilt on their next
 * search; and every answer — from an index, from SQL while a shop is evicted, after its rebuild —
 * is the SQL search's, writes to evicted shops included.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { upsertProducts } from '../server/core/catalog/catalog-store.ts';
import { loadCatalogFile } from '../server/core/catalog/catalog-load.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { catalogIndex, indexedShops, indexTuning, readyCatalogIndex, searchIndexStats, setSearchIndexBudget } from '../server/core/search/catalog-index.ts';
import type { StoredProduct } from '../server/formats/types.ts';

const shop = (name: string, products: number) => {
  const file = generateCatalog({ products, shopId: `shop_${name}`, domain: `${name}.localhost`, name });
  return { id: file.shop.id, host: file.shop.domain, file };
};
// A, B and C are the same size (same generator seed, ids of the same length); D is four times it.
const [A, B, C, D] = [shop('qa', 60), shop('qb', 60), shop('qc', 60), shop('qd', 240)];
const QUERIES = ['linen', 'stoneware bowl', 'lamp -modern', 'vintage or kraft', 'cozy', 'zzqx'];

let s: TestServer;
const THRASH_WINDOW = indexTuning.thrashWindowMs;
beforeAll(async () => {
  s = await startTestServer();
  // These tests evict on purpose, faster than the thrashing guard allows (its own test turns it on).
  indexTuning.thrashWindowMs = 0;
}, 60_000);
afterAll(async () => {
  indexTuning.enabled = true;
  indexTuning.thrashWindowMs = THRASH_WINDOW;
  await s?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Up to three pages of each query, and a category browse: ids and pagination. */
async function answers(host: string, queries = QUERIES): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of [...queries, undefined]) {
    let cursor: string | undefined;
    for (let page = 0; page < 3; page++) {
      const body = { ...(query ? { query } : { filters: { categories: ['home'] } }), pagination: { limit: 7, ...(cursor ? { cursor } : {}) } };
      const r = await s.req(host, 'POST', '/api/ucp/catalog/search', body);
      expect(r.status).toBe(200);
      out.push({ query, ids: r.body.products.map((p: { id: string }) => p.id), pagination: r.body.pagination });
      if (!r.body.pagination.has_next_page) break;
      cursor = r.body.pagination.cursor;
    }
  }
  return out;
}

/** The same with the index turned off: the SQL search, the reference. */
async function sqlAnswers(host: string, queries = QUERIES): Promise<unknown[]> {
  indexTuning.enabled = false;
  try {
    return await answers(host, queries);
  } finally {
    indexTuning.enabled = true;
  }
}

const product = (of: typeof A, id: string, title: string): StoredProduct => ({
  ...(of.file.products[0] as StoredProduct),
  id,
  handle: id.replace(/_/g, '-'),
  title: { en: title, fr: title },
  variants: of.file.products[0].variants.map((v, i) => ({ ...v, id: `${id}_v${i}`, sku: `${id.toUpperCase()}-${i}` })) as StoredProduct['variants'],
});
const write = (of: typeof A, products: StoredProduct[]) => upsertProducts(s.db, { id: of.id, settings: of.file.shop.settings }, products);

describe('search indexes within a memory budget', () => {
  let oneShop = 0;
  const reference = new Map<string, unknown[]>();

  it('none is built at start (demo shops seeded) nor by loading shops', async () => {
    await sleep(300); // the start used to build every shop's index in the background by now
    expect(searchIndexStats()).toEqual({ bytes: 0, shops: 0, evictions: 0 });
    for (const x of [A, B, C, D]) await loadCatalogFile(s.db, x.file);
    expect(searchIndexStats()).toEqual({ bytes: 0, shops: 0, evictions: 0 });
    for (const x of [A, B, C]) reference.set(x.id, await sqlAnswers(x.host));
    expect(searchIndexStats().shops).toBe(0);
  }, 60_000);

  it('a shop is indexed when searched: the first answers come from SQL, the same after the build', async () => {
    expect(await answers(A.host)).toEqual(reference.get(A.id));
    const index = await readyCatalogIndex(s.db, A.id);
    expect(index?.size).toBe(60);
    expect(indexedShops(s.db)).toEqual([A.id]);
    oneShop = searchIndexStats().bytes;
    expect(oneShop).toBe(index!.stats().bytes);
    expect(await answers(A.host)).toEqual(reference.get(A.id));
  });

  it('past the budget the least recently searched shop is evicted, answers the same in SQL and is rebuilt on demand', async () => {
    setSearchIndexBudget(Math.floor(2.5 * oneShop)); // room for two of A, B, C
    for (const x of [B, C]) {
      expect(await answers(x.host)).toEqual(reference.get(x.id));
      await readyCatalogIndex(s.db, x.id);
    }
    expect(indexedShops(s.db)).toEqual([B.id, C.id]);
    expect(searchIndexStats()).toEqual({ bytes: 2 * oneShop, shops: 2, evictions: 1 });

    // A was evicted: its answers come from SQL, the same; its search starts a rebuild, which evicts B.
    expect(await answers(A.host)).toEqual(reference.get(A.id));
    await readyCatalogIndex(s.db, A.id);
    expect(indexedShops(s.db)).toEqual([C.id, A.id]);
    expect(await answers(A.host)).toEqual(reference.get(A.id));

    // Recency is by search, not by build: C searched again, then B's rebuild evicts A.
    await answers(C.host, ['linen']);
    expect(indexedShops(s.db)).toEqual([A.id, C.id]);
    expect(await answers(B.host)).toEqual(reference.get(B.id));
    await readyCatalogIndex(s.db, B.id);
    expect(indexedShops(s.db)).toEqual([C.id, B.id]);
    expect(searchIndexStats()).toEqual({ bytes: 2 * oneShop, shops: 2, evictions: 3 });
    for (const x of [A, B, C]) expect(await answers(x.host)).toEqual(reference.get(x.id));
  });

  it('a write to an evicted shop is searchable at once, and after its rebuild', async () => {
    expect(indexedShops(s.db)).not.toContain(A.id);
    await write(A, [product(A, 'shop_qa_new1', 'Quokka Lantern')]);
    const found = async (query: string) => (await s.req(A.host, 'POST', '/api/ucp/catalog/search', { query })).body.products.map((p: { id: string }) => p.id);
    expect(await found('quokka lanterns')).toEqual(['shop_qa_new1']);
    await readyCatalogIndex(s.db, A.id);
    expect(indexedShops(s.db)).toContain(A.id);
    expect(await found('quokka lanterns')).toEqual(['shop_qa_new1']);
    // A write to the shop while it is indexed, then its eviction and rebuild: still the SQL answers.
    await write(A, [product(A, 'shop_qa_new1', 'Wombat Lantern')]);
    expect(await found('wombat lanterns')).toEqual(['shop_qa_new1']);
    expect(await found('quokka')).toEqual([]);
    expect(await answers(A.host, ['wombat', 'quokka'])).toEqual(await sqlAnswers(A.host, ['wombat', 'quokka']));
    reference.set(A.id, await sqlAnswers(A.host));
    for (const x of [B, C]) await readyCatalogIndex(s.db, x.id);
    expect(indexedShops(s.db)).not.toContain(A.id);
    expect(await answers(A.host)).toEqual(reference.get(A.id));
  });

  it('a shop larger than the whole budget is searched in SQL, not built again at every search, and evicts nobody', async () => {
    const warn = spyOnIndexWarnings();
    try {
      const before = { shops: indexedShops(s.db), stats: searchIndexStats() };
      const referenceD = await sqlAnswers(D.host);
      expect(await answers(D.host)).toEqual(referenceD);
      expect(await readyCatalogIndex(s.db, D.id)).toBeUndefined();
      for (let i = 0; i < 3; i++) expect(await answers(D.host)).toEqual(referenceD);
      expect(await readyCatalogIndex(s.db, D.id)).toBeUndefined();
      expect(warn.lines).toHaveLength(1); // one build, which found it too large
      expect(warn.lines[0]).toMatch(/shop_qd: its index \(.* MB\) is larger than the whole SEARCH_INDEX_BUDGET_MB/);
      expect({ shops: indexedShops(s.db), stats: searchIndexStats() }).toEqual(before);
    } finally {
      warn.restore();
    }
  });

  it('writes, searches and evictions at once: every index keeps the SQL answers and the byte count is exact', async () => {
    const shops = [A, B, C];
    const work: Promise<unknown>[] = [];
    for (let round = 0; round < 12; round++) {
      const x = shops[round % 3];
      const y = shops[(round * 7 + 1) % 3];
      work.push(
        write(x, [product(x, `${x.id}_r${round}`, `Okapi${round} Kettle`)]),
        s.req(y.host, 'POST', '/api/ucp/catalog/search', { query: 'kettle' }),
        readyCatalogIndex(s.db, y.id),
        catalogIndex(s.db, x.id),
      );
      if (round % 4 === 3) await Promise.all(work.splice(0));
    }
    await Promise.all(work);
    expect(searchIndexStats().evictions).toBeGreaterThan(3);
    const words = [...Array(12).keys()].map((r) => `okapi${r}`);
    for (const x of shops) {
      const fromSql = await sqlAnswers(x.host, [...words, 'kettle', 'linen']);
      expect(await answers(x.host, [...words, 'kettle', 'linen'])).toEqual(fromSql); // SQL or index, whichever holds
      await readyCatalogIndex(s.db, x.id);
      expect(await answers(x.host, [...words, 'kettle', 'linen'])).toEqual(fromSql); // from its (re)built index
    }
    const live = indexedShops(s.db);
    let sum = 0;
    for (const id of live) sum += (await catalogIndex(s.db, id))!.stats().bytes;
    expect(searchIndexStats()).toMatchObject({ bytes: sum, shops: live.length });
    expect(searchIndexStats().bytes).toBeLessThanOrEqual(indexTuning.budgetBytes);
  }, 60_000);

  it('thrashing (more evictions within a minute than live indexes): new builds wait, the indexes in memory stay, answers the same', async () => {
    const warn = spyOnIndexWarnings();
    indexTuning.thrashWindowMs = 60_000;
    try {
      // Room for two of A, B, C, searched in turn: every build evicts, until the guard holds builds.
      let held: typeof A | undefined;
      for (let i = 0; i < 12 && !held; i++) {
        const x = [A, B, C][i % 3];
        if (indexedShops(s.db).includes(x.id)) continue;
        if (!(await readyCatalogIndex(s.db, x.id))) held = x;
      }
      expect(held).toBeDefined();
      expect(warn.lines).toHaveLength(1);
      expect(warn.lines[0]).toMatch(/indexes evicted within 60 s: the shops searched do not fit SEARCH_INDEX_BUDGET_MB/);
      const kept = indexedShops(s.db);
      expect(kept).toHaveLength(2);
      const evictions = searchIndexStats().evictions;
      expect(await answers(held!.host)).toEqual(await sqlAnswers(held!.host));
      for (const x of [A, B, C]) await answers(x.host, ['linen']);
      expect(indexedShops(s.db).sort()).toEqual([...kept].sort());
      expect(searchIndexStats().evictions).toBe(evictions);
      expect(warn.lines).toHaveLength(1); // once per episode
      // Once the window has passed, builds resume.
      indexTuning.thrashWindowMs = 0;
      expect(await readyCatalogIndex(s.db, held!.id)).toBeDefined();
    } finally {
      indexTuning.thrashWindowMs = 0;
      warn.restore();
    }
  });

  it('budget 0: no index at all, every search in SQL', async () => {
    const referenceB = await sqlAnswers(B.host);
    setSearchIndexBudget(0);
    expect(searchIndexStats()).toMatchObject({ bytes: 0, shops: 0 });
    expect(await answers(B.host)).toEqual(referenceB);
    expect(await readyCatalogIndex(s.db, B.id)).toBeUndefined();
    expect(searchIndexStats()).toMatchObject({ bytes: 0, shops: 0 });
  });
});

describe('SEARCH_INDEX_BUDGET_MB reaches the indexes', () => {
  it('the server sets the budget from its configuration (MiB)', async () => {
    const t = await startTestServer({ searchIndexBudgetMb: 0.5 });
    try {
      expect(indexTuning.budgetBytes).toBe(2 ** 19);
    } finally {
      await t.close();
    }
  });
});

/** The search index's warnings, as the logger writes them (warnings go to stderr through console.error). */
function spyOnIndexWarnings(): { lines: string[]; restore: () => void } {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'error').mockImplementation((line: unknown) => {
    if (/ warn \[search-index\] /.test(String(line))) lines.push(String(line));
  });
  return { lines, restore: () => spy.mockRestore() };
}
