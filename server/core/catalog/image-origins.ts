/**
 * The origins a shop's product images are served from (a platform's CDN after an import:
 * `https://cdn.shopify.com`, a WordPress uploads host), for the MCP Apps view's
 * `_meta.ui.csp.resourceDomains` (server/mcp/apps.ts): the host lets the view load images from
 * these and nothing else. Read from the stored catalog, so it follows every import and merchant API
 * write: cached per shop and catalog change (catalog-index.ts bumps it), at most a minute old on a
 * worker that did not make the change.
 */
import { sql } from 'kysely';
import type { DB } from '../../db/index.ts';

/** More than this many image hosts is a catalog to look at, not a policy to grow without end. */
export const MAX_IMAGE_ORIGINS = 20;
const TTL_MS = 60_000;
const cache = new WeakMap<DB, Map<string, { at: number; origins: string[] }>>();

/** Absolute http(s) image origins of the shop's product and variant media, most used first. */
export async function catalogImageOrigins(db: DB, shopId: string, now = Date.now()): Promise<string[]> {
  let byShop = cache.get(db);
  if (!byShop) cache.set(db, (byShop = new Map()));
  const hit = byShop.get(shopId);
  if (hit && now - hit.at < TTL_MS) return hit.origins;
  const rows = await sql<{ origin: string }>`
    select substring(m->>'url' from '^(https?://[^/?#]+)') as origin, count(*) as n
    from products p,
      lateral jsonb_array_elements(coalesce(p.doc->'media', '[]'::jsonb) || coalesce((select jsonb_agg(vm) from jsonb_array_elements(p.doc->'variants') v, jsonb_array_elements(coalesce(v->'media', '[]'::jsonb)) vm), '[]'::jsonb)) m
    where p.shop_id = ${shopId} and m->>'url' ~ '^https?://'
    group by 1 order by 2 desc, 1 limit ${MAX_IMAGE_ORIGINS}`.execute(db);
  const origins = rows.rows.map((r) => r.origin.toLowerCase());
  if (byShop.size > 10_000) byShop.clear();
  byShop.set(shopId, { at: now, origins });
  return origins;
}

/** A write to the shop's catalog in this process: the next read asks the database again. */
export function forgetImageOrigins(db: DB, shopId: string): void {
  cache.get(db)?.delete(shopId);
}
