/**
 * Discount codes in a cart: deciding which of the codes a cart names apply (DIGEST §6). Rejections
 * are warnings on the cart, never failures. The shop's codes are stored with its catalog
 * (discount-store.ts).
 */
import { wordsFor, type Say } from './cart-words.ts';
import type { Message } from '../../../src/wire/common.ts';
import type { StoredDiscount } from '../../formats/catalog-format.ts';
import { normalizeCode } from '../catalog/discount-store.ts';

/** Stable warning codes (docs/carts.md). */
export const DISCOUNT_CODES = {
  invalid: 'discount_code_invalid',
  expired: 'discount_code_expired',
  alreadyApplied: 'discount_code_already_applied',
  minSubtotal: 'discount_code_min_subtotal_not_met',
} as const;

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
