/**
 * Keeping a shop's catalog in step with an outside source (docs/catalog-import.md "Re-import is
 * sync"): the products a source lists now are created or updated in place, products it brought
 * before and no longer lists become unavailable (not deleted: carts that hold them keep reading),
 * and what did not change is not written at all. The write is the catalog's one write path
 * (catalog-load.ts): the shop row and every changed product in one transaction, all or nothing.
 * Knows nothing of file formats: server/import/ turns a platform's export into these records.
 */
import { isDeepStrictEqual } from 'node:util';
import { sql } from 'kysely';
import type { DB } from '../../db/index.ts';
import type { ShopSettings, StoredProduct } from '../../formats/catalog-format.ts';
import { loadCatalogs } from './catalog-load.ts';
import { compareWithStored, storedForm } from './catalog-store.ts';
import { CatalogFileError } from './catalog-check.ts';

export interface SyncShop {
  id: string;
  domain: string;
  name: string;
  protocol_enabled: boolean;
  settings: ShopSettings;
}

export interface SyncRequest {
  shop: SyncShop;
  /** Catalog records the caller checked against `StoredProduct` (and for repeated ids), each with its `source`. */
  products: StoredProduct[];
  /** The sources this run reads whole: their products not in `products` become unavailable (unless `partial`). */
  sources: string[];
  /** Only what is listed: nothing becomes unavailable. */
  partial?: boolean;
  /** Count, write nothing. */
  dryRun?: boolean;
}

export interface SyncCounts {
  created: number;
  updated: number;
  unchanged: number;
  unavailable: number;
  /** Variants of the products the source lists. */
  variants: number;
  /** The shop row did not exist before. */
  shopCreated: boolean;
}

/** Syncs, then answers the counts; a write refused for what the shop already holds (a variant id of another product, a domain another shop serves) throws CatalogFileError. */
export async function syncCatalog(db: DB, req: SyncRequest): Promise<SyncCounts> {
  const { stored, shopExists } = await storedProducts(db, req);
  const counts: SyncCounts = { created: 0, updated: 0, unchanged: 0, unavailable: 0, variants: 0, shopCreated: !shopExists };
  const writes: StoredProduct[] = [];
  const listed = new Set<string>();
  for (const p of req.products) {
    listed.add(p.id);
    counts.variants += p.variants.length;
    const { status, stored: next } = compareWithStored(stored.get(p.id), p);
    counts[status]++;
    if (status !== 'unchanged') writes.push(next);
  }
  if (!req.partial) {
    for (const [id, before] of stored) {
      if (listed.has(id) || !before.source || !req.sources.includes(before.source) || before.status === 'unavailable') continue;
      counts.unavailable++;
      writes.push(storedForm({ ...before, status: 'unavailable' }));
    }
  }
  const shopChanged = !shopExists || (await shopDiffers(db, req.shop));
  if (req.dryRun || (!writes.length && !shopChanged)) return counts;
  // The caller checked the records one by one against the schema (server/import/run.ts): not parsed again.
  const file = { shop: req.shop, products: writes, discounts: [] };
  const [result] = await loadCatalogs(db, [{ name: `shop ${req.shop.id}`, keepDiscounts: true, checked: true, read: () => file }]);
  if (result.error) throw new CatalogFileError(result.error, result.issues ?? []);
  return counts;
}

/** The stored documents the run compares with: the listed ids, and every product of the run's sources. */
async function storedProducts(db: DB, req: SyncRequest): Promise<{ stored: Map<string, StoredProduct>; shopExists: boolean }> {
  const shop = await db.selectFrom('shops').select('id').where('id', '=', req.shop.id).executeTakeFirst();
  const stored = new Map<string, StoredProduct>();
  if (!shop) return { stored, shopExists: false };
  const ids = req.products.map((p) => p.id);
  const rows = await sql<{ doc: string }>`select doc::text as doc from products where shop_id = ${req.shop.id}
    and (id = any(${ids}::text[]) or doc->>'source' = any(${req.sources}::text[]))`.execute(db);
  for (const r of rows.rows) {
    const doc = JSON.parse(r.doc) as StoredProduct;
    stored.set(doc.id, doc);
  }
  return { stored, shopExists: true };
}

async function shopDiffers(db: DB, shop: SyncShop): Promise<boolean> {
  const row = await sql<{ domain: string; name: string; protocol_enabled: boolean; settings: string }>`select domain, name, protocol_enabled, settings::text as settings from shops where id = ${shop.id}`.execute(db);
  const r = row.rows[0];
  if (!r) return true;
  return r.domain !== shop.domain.toLowerCase() || r.name !== shop.name || r.protocol_enabled !== shop.protocol_enabled || !isDeepStrictEqual(JSON.parse(r.settings), JSON.parse(JSON.stringify(shop.settings)));
}
