/**
 * Cart arithmetic, pure: line and cart totals, discount allocation and the tax estimate. Every
 * amount is an integer in the cart currency's minor units; rounding is half away from zero.
 */
import type { ShopSettings } from '../../formats/types.ts';

export function roundHalfAwayFromZero(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}

/**
 * Splits `amount` across `weights` proportionally (largest remainder; ties go to the earlier
 * entry). The parts are integers that sum exactly to `amount`, and none exceeds its weight when
 * `amount` <= the sum of weights.
 */
export function allocate(amount: number, weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  if (amount <= 0 || total <= 0) return weights.map(() => 0);
  const exact = weights.map((w) => (amount * w) / total);
  const parts = exact.map(Math.floor);
  let left = amount - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => ({ i, frac: x - Math.floor(x) })).sort((a, b) => b.frac - a.frac || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    if (parts[i] < weights[i]) {
      parts[i]++;
      left--;
    }
  }
  return parts;
}

/** Tax rate in basis points: "US-CA" in by_region first, then the country, then the default. */
export function taxRateBps(tax: ShopSettings['tax'], country?: string, region?: string): number {
  if (country && region) {
    const r = tax.by_region[`${country.toUpperCase()}-${region.toUpperCase()}`];
    if (r !== undefined) return r;
  }
  if (country) {
    const c = tax.by_country[country.toUpperCase()];
    if (c !== undefined) return c;
  }
  return tax.default_bps;
}

export interface PricingLine {
  /** Unit price including customization modifiers, in the cart currency. */
  unitPrice: number;
  quantity: number;
}

export interface PricingDiscount {
  kind: 'percentage' | 'fixed_amount';
  /** Basis points, or minor units of the cart currency. */
  value: number;
}

export interface PricedLine {
  unitPrice: number;
  quantity: number;
  subtotal: number;
  /** Positive: the discount allocated to this line. */
  discount: number;
  total: number;
}

export interface PricedDiscount {
  amount: number;
  /** Per line, summing to `amount`. */
  allocations: number[];
}

export interface PricedCart {
  lines: PricedLine[];
  discounts: PricedDiscount[];
  subtotal: number;
  /** Positive: the sum of all discounts. */
  discount: number;
  taxBps: number;
  tax: number;
  total: number;
}

/**
 * Prices a cart. Discounts apply in order, each on what the previous ones left (a percentage of the
 * remaining amount, a fixed amount capped at it), and are allocated to the lines proportionally.
 * Tax is estimated on the discounted amount.
 */
export function priceCart(lines: PricingLine[], discounts: PricingDiscount[], taxBps: number): PricedCart {
  const subtotals = lines.map((l) => l.unitPrice * l.quantity);
  const remaining = [...subtotals];
  const priced: PricedDiscount[] = [];
  for (const d of discounts) {
    const left = remaining.reduce((a, b) => a + b, 0);
    const wanted = d.kind === 'percentage' ? roundHalfAwayFromZero((left * d.value) / 10_000) : d.value;
    const amount = Math.max(0, Math.min(wanted, left));
    const allocations = allocate(amount, remaining);
    allocations.forEach((a, i) => (remaining[i] -= a));
    priced.push({ amount, allocations });
  }
  const pricedLines = lines.map((l, i) => ({
    unitPrice: l.unitPrice,
    quantity: l.quantity,
    subtotal: subtotals[i],
    discount: subtotals[i] - remaining[i],
    total: remaining[i],
  }));
  const subtotal = subtotals.reduce((a, b) => a + b, 0);
  const afterDiscounts = remaining.reduce((a, b) => a + b, 0);
  const tax = taxBps > 0 ? roundHalfAwayFromZero((afterDiscounts * taxBps) / 10_000) : 0;
  return {
    lines: pricedLines,
    discounts: priced,
    subtotal,
    discount: subtotal - afterDiscounts,
    taxBps,
    tax,
    total: afterDiscounts + tax,
  };
}
