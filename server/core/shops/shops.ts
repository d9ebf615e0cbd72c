/**
 * Shops (storefront domains). Requests are routed to a shop by host name; the lookup is cached for a
 * few seconds because every request needs it and settings change rarely.
 */
import type { DB } from '../../db/index.ts';
import { ShopSettings } from '../../formats/catalog-format.ts';
import type { Shop } from '../../formats/types.ts';

const TTL_MS = 5_000;
const cache = new Map<string, { shop: Shop | null; at: number }>();

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
export function cachedShop(domain: string, now = Date.now()): Shop | null | undefined {
  const hit = cache.get(domain.toLowerCase());
  return hit && now - hit.at < TTL_MS ? hit.shop : undefined;
}

export async function findShopByDomain(db: DB, domain: string, now = Date.now()): Promise<Shop | null> {
  const key = domain.toLowerCase();
  const hit = cache.get(key);
  if (hit && now - hit.at < TTL_MS) return hit.shop;
  const row = await db.selectFrom('shops').selectAll().where('domain', '=', key).executeTakeFirst();
  const shop = row ? fromRow(row) : null;
  if (cache.size > 10_000) cache.clear();
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

export function forgetCachedShops(): void {
  cache.clear();
}
