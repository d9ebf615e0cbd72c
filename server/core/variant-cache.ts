/**
 * Parsed product documents by variant id, kept in this process for the cart path (every create and
 * update looks its variants up) — only when this process is the catalog's only writer, which is the
 * case for the embedded database (one process owns it; the CLIs refuse to open it meanwhile). On
 * PostgreSQL several processes write, and nothing is cached.
 *
 * Every catalog write goes through server/core/catalog-store.ts, which calls `catalogChanged` after
 * its transaction. A generation counter closes the race where a read that started before the write
 * would store the old document after the write's invalidation. Cached objects are shared: read only.
 */
import type { DB } from '../db/index.ts';
import { isSingleWriter } from '../db/index.ts';
import type { StoredProduct, StoredVariant } from './types.ts';

export interface VariantHit {
  product: StoredProduct;
  variant: StoredVariant;
}

interface ShopEntries {
  generation: number;
  byVariant: Map<string, VariantHit>;
}

/** Per database (tests run several in one process), then per shop. */
const caches = new WeakMap<object, Map<string, ShopEntries>>();
const MAX_PER_SHOP = 20_000;

function entries(db: DB, shopId: string): ShopEntries | undefined {
  if (!isSingleWriter(db)) return undefined;
  const key = databaseIdentity(db);
  let shops = caches.get(key);
  if (!shops) caches.set(key, (shops = new Map()));
  let e = shops.get(shopId);
  if (!e) shops.set(shopId, (e = { generation: 0, byVariant: new Map() }));
  return e;
}

/**
 * One object per database, shared by the Kysely instance and every transaction opened from it (they
 * share the dialect's adapter), so a lookup inside a transaction finds the same cache.
 */
function databaseIdentity(db: DB): object {
  return db.getExecutor().adapter;
}

/**
 * The cached variants among `ids`, the ids still to load, and a `store` for what the caller then
 * loads (ignored if the catalog changed in between).
 */
export function cachedVariants(db: DB, shopId: string, ids: string[]) {
  const e = entries(db, shopId);
  const hits = new Map<string, VariantHit>();
  const missing: string[] = [];
  for (const id of ids) {
    const hit = e?.byVariant.get(id);
    if (hit) hits.set(id, hit);
    else missing.push(id);
  }
  const generation = e?.generation;
  const store = (loaded: Map<string, VariantHit>) => {
    if (!e || e.generation !== generation) return;
    if (e.byVariant.size + loaded.size > MAX_PER_SHOP) e.byVariant.clear();
    for (const [id, hit] of loaded) e.byVariant.set(id, hit);
  };
  return { hits, missing, store };
}

/** After any committed write to a shop's products: drop what this process cached for it. */
export function catalogChanged(db: DB, shopId: string): void {
  const e = entries(db, shopId);
  if (!e) return;
  e.generation++;
  e.byVariant.clear();
}
