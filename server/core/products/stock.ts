/**
 * Stock: how many units of a variant a cart may hold, and how a cart's lines share them. One rule
 * for every path — cart writes and reads (REST, MCP, the widget, the embedded cart), merchant
 * orders and the catalog's `availability` — so no path promises what another would refuse.
 * Pure functions: no database, no HTTP. docs/carts.md "Stock" is the reference.
 */
import type { StoredVariant } from '../../formats/types.ts';

/**
 * Units a buyer may take now: null = no limit (inventory not tracked, or the variant sells on
 * backorder / preorder); 0 = none (out of stock, discontinued, or nothing on hand).
 */
export function unitsAvailable(v: Pick<StoredVariant, 'inventory' | 'status'>): number | null {
  if (v.status === 'discontinued' || v.status === 'out_of_stock') return 0;
  if (v.status === 'backorder' || v.status === 'preorder') return null;
  return v.inventory ?? null;
}

export function isAvailable(v: Pick<StoredVariant, 'inventory' | 'status'>): boolean {
  const n = unitsAvailable(v);
  return n === null || n > 0;
}

/** UCP `availability.status` of a variant (types/variant.json). */
export function availabilityStatus(v: Pick<StoredVariant, 'inventory' | 'status'>): string {
  if (v.status) return v.status === 'in_stock' && !isAvailable(v) ? 'out_of_stock' : v.status;
  return isAvailable(v) ? 'in_stock' : 'out_of_stock';
}

export interface Allotment {
  /** Units this line gets: the request, or what is left of the variant's stock when that is less. */
  quantity: number;
  /** Units that were left for this line when it was capped (so `quantity` < requested); undefined otherwise. */
  capped?: number;
}

/**
 * Shares stock among lines in their order: each line gets what it asks for while stock lasts, so
 * two lines of one variant (different customizations) together never exceed it. `available` maps
 * variant id → unitsAvailable (missing = no limit). A line whose allotment is 0 had nothing left.
 */
export function allotStock(lines: ReadonlyArray<{ variantId: string; quantity: number }>, available: ReadonlyMap<string, number | null>): Allotment[] {
  const left = new Map(available);
  return lines.map(({ variantId, quantity }) => {
    const n = left.get(variantId);
    if (n === null || n === undefined) return { quantity };
    const quantityNow = Math.min(quantity, n);
    left.set(variantId, n - quantityNow);
    return quantityNow < quantity ? { quantity: quantityNow, capped: n } : { quantity };
  });
}
