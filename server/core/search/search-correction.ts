/**
 * The typo-tolerant second pass of catalog search (docs/ucp.md "Search"): when a query finds
 * nothing, each of its words that is not a word of the shop's catalog is replaced by the closest
 * catalog word, if one is close enough, and the search runs once more.
 *
 * "Close enough" is the optimal-string-alignment edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours each count 1): at most 1 for words of 4 to 7
 * characters, at most 2 from 8; shorter words are never corrected. Ties go to the word more
 * products use, then alphabetical order, so a correction is deterministic.
 *
 * The catalog's words are those of product titles (every language), categories and tags, as
 * shoppers and agents type them. They are kept per shop until the catalog version the shop's search
 * index follows changes (catalog-index.ts: at once for this process's writes, within
 * SEARCH_INDEX_CHECK_MS for other processes'); while the index is being built, until this process's
 * next catalog write, and on PostgreSQL for 30 s at most.
 */
import { sql } from 'kysely';
import { databaseIdentity, type DB } from '../../db/index.ts';
import type { Shop } from '../../formats/types.ts';
import { catalogGeneration } from '../products/product-cache.ts';
import { catalogIndex } from './catalog-index.ts';
import { allLanguages } from '../shared/localize.ts';
import type { Localized } from '../../formats/catalog-format.ts';

/** Lower-cased words: runs of letters and digits (accents kept). */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Edit distance up to `max` (optimal string alignment); `max + 1` as soon as it is certain to be above. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const prev2 = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      cur.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
    prev2.splice(0, prev2.length, ...prev);
    prev = cur;
  }
  return prev[b.length];
}

/** The shop's words, with how many products use each. */
export type Vocabulary = Map<string, number>;

/** How far a word of this length may be corrected (0: never). */
const allowance = (length: number) => (length < 4 ? 0 : length < 8 ? 1 : 2);

/** The query with its unknown words corrected, or null when nothing was (or could be) corrected. */
export function correctQuery(query: string, vocabulary: Vocabulary): string | null {
  let changed = false;
  const corrected = query.replace(/[\p{L}\p{N}]+/gu, (raw) => {
    const word = raw.toLowerCase();
    const max = allowance(word.length);
    if (!max || vocabulary.has(word)) return raw;
    let best: { word: string; distance: number; uses: number } | null = null;
    for (const [candidate, uses] of vocabulary) {
      const distance = editDistance(word, candidate, max);
      if (distance > max) continue;
      if (!best || distance < best.distance || (distance === best.distance && (uses > best.uses || (uses === best.uses && candidate < best.word)))) {
        best = { word: candidate, distance, uses };
      }
    }
    if (!best) return raw;
    changed = true;
    return best.word;
  });
  return changed ? corrected : null;
}

/** Per database (tests run several in one process), then per shop. */
const caches = new WeakMap<object, Map<string, { at: number; version: string; words: Vocabulary }>>();
const TTL_MS = 30_000;
/** Shops whose words are kept per database, least recently used dropped first (docs/deploy.md "Memory"); changed by tests only. */
export const vocabularyTuning = { maxShops: 1_000 };

/** The shop's catalog words (see the top of this file for which, and how long they are kept). */
export async function searchVocabulary(db: DB, shop: Shop): Promise<Vocabulary> {
  // The catalog version the search index follows (every process, within its check period), else
  // this process's own write count (kept for TTL_MS on PostgreSQL, where others write too).
  const index = await catalogIndex(db, shop.id);
  const { generation, onlyWriter } = catalogGeneration(db, shop.id);
  const version = index ? `v${index.version}` : `g${generation}`;
  const key = databaseIdentity(db);
  let cache = caches.get(key);
  if (!cache) caches.set(key, (cache = new Map()));
  const hit = cache.get(shop.id);
  if (hit && hit.version === version && (index || onlyWriter || Date.now() - hit.at < TTL_MS)) {
    cache.delete(shop.id); // to the most recent end
    cache.set(shop.id, hit);
    return hit.words;
  }
  const rows = await db
    .selectFrom('products')
    .select([sql<unknown>`doc->'title'`.as('title'), sql<unknown>`doc->'tags'`.as('tags'), 'categories'])
    .where('shop_id', '=', shop.id)
    // Corrections lead to what search can find: a hidden or unavailable product's words are not offered.
    .where(sql<boolean>`coalesce(doc->>'status', 'active') = 'active'`)
    .execute();
  const words: Vocabulary = new Map();
  for (const r of rows) {
    const title = r.title ? allLanguages(r.title as Localized) : [];
    const text = [...title, ...((r.tags as string[] | null) ?? []), ...((r.categories as string[] | null) ?? [])].join(' ');
    for (const w of new Set(wordsOf(text))) words.set(w, (words.get(w) ?? 0) + 1);
  }
  cache.delete(shop.id);
  cache.set(shop.id, { at: Date.now(), version, words });
  for (const id of cache.keys()) {
    if (cache.size <= vocabularyTuning.maxShops) break;
    cache.delete(id);
  }
  return words;
}

/** Shops whose words this database's cache holds now (for tests and operators). */
export function vocabularyShops(db: DB): number {
  return caches.get(databaseIdentity(db))?.size ?? 0;
}
