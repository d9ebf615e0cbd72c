/**
 * Shops (storefront domains). Requests are routed to a shop by host name; the lookup is cached for a
 * few seconds because every request needs it and settings change rarely.
 *
 * The cache belongs to the database handle a server opened (its identity, as the product cache and
 * the coalesced inserts key theirs), not to the process: two servers in one process over two
 * databases never answer from each other's shops, and every write through a handle (a catalog load,
 * a reset, webhook settings) forgets what that handle's server has cached. The handle going away
 * takes its cache with it.
 */
import { databaseIdentity, type DB } from '../../db/index.ts';
import { ShopSettings } from '../../formats/catalog-format.ts';
import type { Shop } from '../../formats/types.ts';

const TTL_MS = 5_000;
/** Domains cached per database at most; past it the cache starts again (a flood of unknown hosts). */
const MAX_CACHED = 10_000;
type ShopCache = Map<string, { shop: Shop | null; at: number }>;
const caches = new WeakMap<object, ShopCache>();

function cacheOf(db: DB): ShopCache {
  const id = databaseIdentity(db);
  let cache = caches.get(id);
  if (!cache) caches.set(id, (cache = new Map()));
  return cache;
}

function fromRow(row: { id: string; domain: string; name: string; protocol_enabled: boolean; settings: unknown }): Shop {
  return {
    id: row.id,
    domain: row.domain,
    name: row.name,
    protocolEnabled: row.protocol_enabled,
    settings: ShopSettings.parse(row.settings),
  };
}

/** The cached answer for a domain, without waiting: undefined when it must be looked up. */
export function cachedShop(db: DB, domain: string, now = Date.now()): Shop | null | undefined {
  const hit = caches.get(databaseIdentity(db))?.get(domain.toLowerCase());
  return hit && now - hit.at < TTL_MS ? hit.shop : undefined;
}

export async function findShopByDomain(db: DB, domain: string, now = Date.now()): Promise<Shop | null> {
  const key = domain.toLowerCase();
  const cache = cacheOf(db);
  const hit = cache.get(key);
  if (hit && now - hit.at < TTL_MS) return hit.shop;
  const row = await db.selectFrom('shops').selectAll().where('domain', '=', key).executeTakeFirst();
  const shop = row ? fromRow(row) : null;
  if (cache.size > MAX_CACHED) cache.clear();
  cache.set(key, { shop, at: now });
  return shop;
}

export async function findShopById(db: DB, id: string): Promise<Shop | null> {
  const row = await db.selectFrom('shops').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? fromRow(row) : null;
}

/** A shop named the way people name it: its id (`shop_demo`) or its domain (`demo.localhost`, a `:port` ignored). */
export async function findShopByIdOrDomain(db: DB, ref: string): Promise<Shop | null> {
  return (await findShopById(db, ref)) ?? (await findShopByDomain(db, ref.replace(/:\d+$/, '')));
}

/** Forgets every shop cached for this database (after a write that changes shops or their settings). */
export function forgetCachedShops(db: DB): void {
  caches.get(databaseIdentity(db))?.clear();
}
