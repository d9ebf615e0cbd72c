/**
 * Parsed product documents, kept in this process for the hot read paths (search results, cart
 * lines) — only when this process is the catalog's only writer, which is the case for the embedded
 * database (one process owns it; the CLIs refuse to open it meanwhile). On PostgreSQL several
 * processes write, and nothing is cached.
 *
 * Every catalog write goes through server/core/catalog/catalog-store.ts, which calls `catalogChanged` after
 * its transaction. A generation counter closes the race where a read that started before the write
 * would store the old document after the write's invalidation. Cached objects are shared: read only.
 */
import type { DB } from '../../db/index.ts';
import { databaseIdentity, isSingleWriter } from '../../db/index.ts';
import type { StoredProduct, StoredVariant } from '../../formats/types.ts';

export interface VariantHit {
  product: StoredProduct;
  variant: StoredVariant;
}

interface ShopEntries {
  generation: number;
  products: Map<string, StoredProduct>;
  /** variant id → its product's id */
  variants: Map<string, string>;
}

/**
 * Bounds (docs/deploy.md "Memory"): documents kept per shop (a few kB each; past it the shop's cache
 * starts over), across every shop of a database, and shops with an entry, where the least recently
 * used shops go first, so a server of thousands of shops holds the busy ones. Changed by tests only.
 */
export const productCacheTuning = { maxPerShop: 20_000, maxDocuments: 50_000, maxShops: 5_000 };

/** One database's cache: shops in order of use (least recent first) and their documents counted. */
interface DatabaseCache {
  shops: Map<string, ShopEntries>;
  documents: number;
}

/** Per database (tests run several in one process), then per shop. */
const caches = new WeakMap<object, DatabaseCache>();

function entries(db: DB, shopId: string): { c: DatabaseCache; e: ShopEntries } | undefined {
  if (!isSingleWriter(db)) return undefined;
  const key = databaseIdentity(db);
  let c = caches.get(key);
  if (!c) caches.set(key, (c = { shops: new Map(), documents: 0 }));
  let e = c.shops.get(shopId);
  if (e) c.shops.delete(shopId); // to the most recent end
  else e = { generation: 0, products: new Map(), variants: new Map() };
  c.shops.set(shopId, e);
  if (c.shops.size > productCacheTuning.maxShops) {
    const [oldest, old] = c.shops.entries().next().value!;
    forget(c, old);
    c.shops.delete(oldest);
  }
  return { c, e };
}

function forget(c: DatabaseCache, e: ShopEntries): void {
  c.documents -= e.products.size;
  e.products.clear();
  e.variants.clear();
}

/** Drops the least recently used shops (never `keep`) until the database's documents fit. */
function evict(c: DatabaseCache, keep: ShopEntries): void {
  for (const [id, e] of c.shops) {
    if (c.documents <= productCacheTuning.maxDocuments) return;
    if (e === keep) continue;
    forget(c, e);
    c.shops.delete(id);
  }
}

function storer(found: { c: DatabaseCache; e: ShopEntries } | undefined, shopId: string) {
  const generation = found?.e.generation;
  return (loaded: Iterable<StoredProduct>) => {
    if (!found) return;
    const { c, e } = found;
    // The catalog changed meanwhile, or the shop was evicted: what was read may be old, or unaccounted.
    if (e.generation !== generation || c.shops.get(shopId) !== e) return;
    for (const p of loaded) {
      if (e.products.size >= productCacheTuning.maxPerShop) forget(c, e);
      if (!e.products.has(p.id)) c.documents++;
      e.products.set(p.id, p);
      for (const v of p.variants) e.variants.set(v.id, p.id);
    }
    evict(c, e);
  };
}

/** What the cache holds for a database now: shops with an entry, and their documents (for tests and operators). */
export function productCacheStats(db: DB): { shops: number; documents: number } {
  const c = caches.get(databaseIdentity(db));
  return { shops: c?.shops.size ?? 0, documents: c?.documents ?? 0 };
}

/**
 * The cached products among `ids`, the ids still to load, and a `store` for the documents the
 * caller then loads (ignored if the catalog changed in between).
 */
export function cachedProducts(db: DB, shopId: string, ids: string[]) {
  const found = entries(db, shopId);
  const e = found?.e;
  const hits = new Map<string, StoredProduct>();
  const missing: string[] = [];
  for (const id of ids) {
    const p = e?.products.get(id);
    if (p) hits.set(id, p);
    else missing.push(id);
  }
  return { hits, missing, store: storer(found, shopId) };
}

/** The same for variant ids: each hit is the variant with its product. */
export function cachedVariants(db: DB, shopId: string, ids: string[]) {
  const found = entries(db, shopId);
  const e = found?.e;
  const hits = new Map<string, VariantHit>();
  const missing: string[] = [];
  for (const id of ids) {
    const product = e?.products.get(e.variants.get(id) ?? '');
    const variant = product?.variants.find((v) => v.id === id);
    if (product && variant) hits.set(id, { product, variant });
    else missing.push(id);
  }
  return { hits, missing, store: storer(found, shopId) };
}

/** Catalog writes this process has made, per database and shop (on either database). */
const writes = new WeakMap<object, Map<string, number>>();

/**
 * How many catalog writes this process has made to the shop, and whether they are the only ones
 * (the embedded database) or other processes write too (PostgreSQL): what derived caches key on
 * (search-correction.ts).
 */
export function catalogGeneration(db: DB, shopId: string): { generation: number; onlyWriter: boolean } {
  return { generation: writes.get(databaseIdentity(db))?.get(shopId) ?? 0, onlyWriter: isSingleWriter(db) };
}

/** After any committed write to a shop's products: drop what this process cached for it. */
export function catalogChanged(db: DB, shopId: string): void {
  const key = databaseIdentity(db);
  let counts = writes.get(key);
  if (!counts) writes.set(key, (counts = new Map()));
  counts.set(shopId, (counts.get(shopId) ?? 0) + 1);
  const found = entries(db, shopId);
  if (!found) return;
  found.e.generation++;
  forget(found.c, found.e);
}
