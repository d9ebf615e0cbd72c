/**
 * Inventory levels of a shop's variants, read and set by the merchant API (inventories_read /
 * inventories_write). The count lives in the product document (`variants[].inventory`, the catalog
 * file's field), so carts, orders and the catalog's `availability` read it where they already read
 * the variant; a change is visible to the next cart read at once: this process's product cache is
 * dropped after the write, and on PostgreSQL, where several processes write, nothing is cached.
 */
import { z } from 'zod';
import { sql } from 'kysely';
import type { DB } from '../../db/index.ts';
import type { StoredProduct, StoredVariant } from '../../formats/types.ts';
import { DomainError, InvalidRequest } from '../shared/errors.ts';
import { validate } from '../shared/validate.ts';
import { catalogChanged } from './product-cache.ts';
import { availabilityStatus, unitsAvailable } from './stock.ts';

const Available = z.number().int().min(0).max(1_000_000_000).nullable();
const Adjust = z.number().int().min(-1_000_000_000).max(1_000_000_000);

/** PUT body: an absolute count (`null` stops tracking), or a change relative to the current count. */
export const InventoryChange = z.union([z.strictObject({ available: Available }), z.strictObject({ adjust: Adjust })]);

/** The same change naming the variant by its SKU (PUT /3.0/inventory): resolved within the shop. */
const Sku = z.string().min(1).max(255);
export const InventoryChangeBySku = z.union([z.strictObject({ sku: Sku, available: Available }), z.strictObject({ sku: Sku, adjust: Adjust })]);

export interface InventoryLevel {
  variant_id: string;
  product_id: string;
  sku: string | null;
  /** False when the variant's inventory is not tracked (always available). */
  tracked: boolean;
  /** Units on hand (null when not tracked). */
  on_hand: number | null;
  /** Units a cart may take now (core/products/stock.ts): 0 for out_of_stock/discontinued, null = no limit. */
  available: number | null;
  /** UCP availability status the catalog shows. */
  status: string;
}

function level(productId: string, v: StoredVariant): InventoryLevel {
  return {
    variant_id: v.id,
    product_id: productId,
    sku: v.sku ?? null,
    tracked: v.inventory !== undefined,
    on_hand: v.inventory ?? null,
    available: unitsAvailable(v),
    status: availabilityStatus(v),
  };
}

async function productOfVariant(db: DB, shopId: string, variantId: string, forUpdate: boolean): Promise<{ id: string; doc: StoredProduct } | null> {
  if (variantId.includes('\u0000')) return null;
  let q = db
    .selectFrom('products as p')
    .innerJoin('variants as v', (j) => j.onRef('v.shop_id', '=', 'p.shop_id').onRef('v.product_id', '=', 'p.id'))
    .select(['p.id as id', 'p.doc as doc'])
    .where('v.shop_id', '=', shopId)
    .where('v.id', '=', variantId);
  if (forUpdate) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  return row ? { id: row.id, doc: row.doc as StoredProduct } : null;
}

export async function getInventory(db: DB, shopId: string, variantId: string): Promise<InventoryLevel | null> {
  const p = await productOfVariant(db, shopId, variantId, false);
  const v = p?.doc.variants.find((x) => x.id === variantId);
  return p && v ? level(p.id, v) : null;
}

/**
 * Sets or adjusts one variant's count (in one transaction that locks its product row, so concurrent
 * adjustments add up). Setting a count drops a stock-derived `status` (`in_stock`/`out_of_stock`)
 * so the count decides; `backorder`, `preorder` and `discontinued` stay. Null: no such variant.
 */
export async function setInventory(db: DB, shopId: string, variantId: string, input: unknown): Promise<InventoryLevel | null> {
  const change = validate(InventoryChange, input);
  const out = await db.transaction().execute(async (tx) => {
    const p = await productOfVariant(tx, shopId, variantId, true);
    const v = p?.doc.variants.find((x) => x.id === variantId);
    if (!p || !v) return null;
    let next: number | null;
    if ('adjust' in change) {
      if (v.inventory === undefined) throw new InvalidRequest('validation_failed', 'This variant’s inventory is not tracked; set a count with {"available": n} first.', [{ path: '$.adjust', code: 'not_tracked', content: 'Inventory is not tracked for this variant.' }]);
      next = v.inventory + change.adjust;
      if (next < 0) throw new InvalidRequest('validation_failed', `Only ${v.inventory} on hand; cannot remove ${-change.adjust}.`, [{ path: '$.adjust', code: 'insufficient_inventory', content: `At least ${-v.inventory}.` }]);
    } else next = change.available;
    const updated: StoredVariant = { ...v };
    if (next === null) delete updated.inventory;
    else updated.inventory = next;
    if (updated.status === 'in_stock' || updated.status === 'out_of_stock') delete updated.status;
    const doc: StoredProduct = { ...p.doc, variants: p.doc.variants.map((x) => (x.id === variantId ? updated : x)) };
    await tx
      .updateTable('products')
      .set({ doc: JSON.stringify(doc), updated_at: sql`now()` })
      .where('shop_id', '=', shopId)
      .where('id', '=', p.id)
      .execute();
    return level(p.id, updated);
  });
  if (out) catalogChanged(db, shopId);
  return out;
}

/** Variants listed by name when a SKU is shared (the 409 names them all, up to this many). */
const SHARED_SKU_NAMED = 10;

/**
 * `setInventory` with the variant named by its SKU. A SKU no variant of the shop has is a 404
 * naming it; one several variants share is a 409 naming them (set each by variant id instead).
 */
export async function setInventoryBySku(db: DB, shopId: string, input: unknown): Promise<InventoryLevel> {
  const { sku, ...change } = validate(InventoryChangeBySku, input);
  const rows = await db
    .selectFrom('variants')
    .select(['id', 'product_id'])
    .where('shop_id', '=', shopId)
    .where('sku', '=', sku)
    .orderBy('product_id')
    .orderBy('id')
    .limit(SHARED_SKU_NAMED + 1)
    .execute();
  const notFound = () => new DomainError('not_found', 'not_found', `No variant with SKU ${sku}.`, [{ path: '$.sku', code: 'unknown_sku', content: `No variant of this shop has SKU ${sku}.` }]);
  if (!rows.length) throw notFound();
  if (rows.length > 1) {
    const named = rows.slice(0, SHARED_SKU_NAMED).map((r) => `${r.id} (product ${r.product_id})`);
    const more = rows.length > SHARED_SKU_NAMED ? ' and more' : '';
    throw new DomainError('conflict', 'sku_not_unique', `SKU ${sku} is shared by variants ${named.join(', ')}${more}; set each by its variant id (PUT /3.0/inventory/{variant_id}).`, [
      { path: '$.sku', code: 'sku_not_unique', content: `Shared by ${named.join(', ')}${more}.` },
    ]);
  }
  const level = await setInventory(db, shopId, rows[0].id, change);
  if (!level) throw notFound(); // deleted in between
  return level;
}
