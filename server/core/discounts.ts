/**
 * Discount codes: loading a shop's codes from catalog files, finding the codes a cart names, and
 * deciding which of them apply (DIGEST §6). Rejections are warnings on the cart, never failures.
 */
import { wordsFor, type Say } from './cart-words.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Message } from '../../src/wire/common.ts';
import { StoredDiscount } from '../formats/catalog-format.ts';

type Exec = Kysely<Database>;

export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}

/** Stable warning codes (docs/carts.md). */
export const DISCOUNT_CODES = {
  invalid: 'discount_code_invalid',
  expired: 'discount_code_expired',
  alreadyApplied: 'discount_code_already_applied',
  minSubtotal: 'discount_code_min_subtotal_not_met',
} as const;

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

export interface CodeEvaluation {
  /** Accepted discounts in request order, with the index of their code. */
  accepted: Array<{ index: number; def: StoredDiscount }>;
  /** One warning per rejected code, pathed `$.discounts.codes[i]`. */
  messages: Message[];
}

/**
 * Which codes apply. `subtotal` and `minSubtotal(def)` are in the same currency (the cart's);
 * a code repeated (case-insensitively) is `already_applied` from its second occurrence.
 */
export function evaluateCodes(
  codes: string[],
  defs: StoredDiscount[],
  subtotal: number,
  minSubtotal: (def: StoredDiscount) => number,
  formatAmount: (amount: number) => string,
  now: Date,
  say: Say = wordsFor('en'),
): CodeEvaluation {
  const byCode = new Map(defs.map((d) => [normalizeCode(d.code), d]));
  const seen = new Set<string>();
  const accepted: CodeEvaluation['accepted'] = [];
  const messages: Message[] = [];
  const warn = (index: number, code: string, content: string) =>
    messages.push({ type: 'warning', code, path: `$.discounts.codes[${index}]`, content });
  codes.forEach((raw, index) => {
    const code = normalizeCode(raw);
    const def = byCode.get(code);
    if (seen.has(code)) return warn(index, DISCOUNT_CODES.alreadyApplied, say('code_repeated', raw));
    seen.add(code);
    if (!def) return warn(index, DISCOUNT_CODES.invalid, say('code_invalid', raw));
    if (def.ends_at && Date.parse(def.ends_at) <= now.getTime()) return warn(index, DISCOUNT_CODES.expired, say('code_expired', raw));
    if (def.starts_at && Date.parse(def.starts_at) > now.getTime()) return warn(index, DISCOUNT_CODES.invalid, say('code_not_yet', raw));
    if (def.min_subtotal !== undefined && subtotal < minSubtotal(def)) {
      return warn(index, DISCOUNT_CODES.minSubtotal, say('code_min_subtotal', raw, formatAmount(minSubtotal(def))));
    }
    accepted.push({ index, def });
  });
  return { accepted, messages };
}
