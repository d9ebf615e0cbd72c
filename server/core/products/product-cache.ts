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

/** Per database (tests run several in one process), then per shop. */
const caches = new WeakMap<object, Map<string, ShopEntries>>();
/** Documents kept per shop (a few kB each); past it the shop's cache starts over. */
const MAX_PER_SHOP = 20_000;

function entries(db: DB, shopId: string): ShopEntries | undefined {
  if (!isSingleWriter(db)) return undefined;
  const key = databaseIdentity(db);
  let shops = caches.get(key);
  if (!shops) caches.set(key, (shops = new Map()));
  let e = shops.get(shopId);
  if (!e) shops.set(shopId, (e = { generation: 0, products: new Map(), variants: new Map() }));
  return e;
}

function storer(e: ShopEntries | undefined) {
  const generation = e?.generation;
  return (loaded: Iterable<StoredProduct>) => {
    if (!e || e.generation !== generation) return;
    for (const p of loaded) {
      if (e.products.size >= MAX_PER_SHOP) {
        e.products.clear();
        e.variants.clear();
      }
      e.products.set(p.id, p);
      for (const v of p.variants) e.variants.set(v.id, p.id);
    }
  };
}

/**
 * The cached products among `ids`, the ids still to load, and a `store` for the documents the
 * caller then loads (ignored if the catalog changed in between).
 */
export function cachedProducts(db: DB, shopId: string, ids: string[]) {
  const e = entries(db, shopId);
  const hits = new Map<string, StoredProduct>();
  const missing: string[] = [];
  for (const id of ids) {
    const p = e?.products.get(id);
    if (p) hits.set(id, p);
    else missing.push(id);
  }
  return { hits, missing, store: storer(e) };
}

/** The same for variant ids: each hit is the variant with its product. */
export function cachedVariants(db: DB, shopId: string, ids: string[]) {
  const e = entries(db, shopId);
  const hits = new Map<string, VariantHit>();
  const missing: string[] = [];
  for (const id of ids) {
    const product = e?.products.get(e.variants.get(id) ?? '');
    const variant = product?.variants.find((v) => v.id === id);
    if (product && variant) hits.set(id, { product, variant });
    else missing.push(id);
  }
  return { hits, missing, store: storer(e) };
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
  const e = entries(db, shopId);
  if (!e) return;
  e.generation++;
  e.products.clear();
  e.variants.clear();
}
