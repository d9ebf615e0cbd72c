/**
 * A shop's discount codes as its catalog file defines them: written with the file's load, read by
 * the carts that name them. Codes are stored normalized (trimmed, upper case), so lookups ignore case.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { StoredDiscount } from '../../formats/catalog-format.ts';

type Exec = Kysely<Database>;

export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}

/** Replaces a shop's discount codes with the catalog file's `discounts`; `tx`: the file's transaction. */
export async function writeShopDiscounts(tx: Exec, shopId: string, discounts: StoredDiscount[]): Promise<void> {
  const rows = new Map<string, StoredDiscount>();
  for (const d of discounts) rows.set(normalizeCode(d.code), StoredDiscount.parse(d));
  await tx.deleteFrom('discounts').where('shop_id', '=', shopId).execute();
  if (rows.size) {
    await tx
      .insertInto('discounts')
      .values([...rows].map(([code, doc]) => ({ shop_id: shopId, code, doc: JSON.stringify(doc) })))
      .execute();
  }
}

/** The shop's definitions of `codes` (any case), keyed by normalized code. One query; none when empty. */
export async function findDiscounts(db: Exec, shopId: string, codes: string[]): Promise<StoredDiscount[]> {
  const wanted = [...new Set(codes.map(normalizeCode).filter(Boolean))];
  if (!wanted.length) return [];
  const rows = await db.selectFrom('discounts').select('doc').where('shop_id', '=', shopId).where('code', 'in', wanted).execute();
  return rows.map((r) => r.doc as StoredDiscount);
}
