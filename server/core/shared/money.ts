/**
 * Money is always an integer in a currency's minor units. Conversion goes through the shop's rate
 * table (units of the target per one unit of the shop currency) and rounds half away from zero once,
 * on the converted minor-unit amount, so a price converts the same way wherever it appears.
 */

/** ISO 4217 exponents that are not 2. Everything else uses 2 decimal places. */
const EXPONENTS: Record<string, number> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0,
  VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
};

export function exponent(currency: string): number {
  // Own keys only: a currency code is the client's string, and `constructor` is on every object.
  return Object.hasOwn(EXPONENTS, currency) ? EXPONENTS[currency] : 2;
}

function roundHalfAwayFromZero(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}

export interface Rates {
  base: string;
  rates: Record<string, number>;
}

export function supportsCurrency(r: Rates, currency: string): boolean {
  return currency === r.base || Object.hasOwn(r.rates, currency);
}

/** Converts an amount in the base currency's minor units to `to`'s minor units. */
export function convert(amount: number, r: Rates, to: string): number {
  if (to === r.base) return amount;
  const rate = Object.hasOwn(r.rates, to) ? r.rates[to] : undefined;
  if (typeof rate !== 'number') throw new Error(`no rate for ${to}`);
  const scale = 10 ** (exponent(to) - exponent(r.base));
  return roundHalfAwayFromZero(amount * rate * scale);
}

/**
 * An amount as shoppers read it in a language: `$150.00` in English, `150,00 $US` in French —
 * the same Intl formatting host.js uses for prices (src/state/store.ts `money`), so a message
 * reads like the prices around it.
 */
export function formatMoney(amount: number, currency: string, language: string): string {
  const value = amount / 10 ** exponent(currency);
  try {
    return new Intl.NumberFormat(language, { style: 'currency', currency, minimumFractionDigits: exponent(currency), maximumFractionDigits: exponent(currency) }).format(value);
  } catch {
    return `${value.toFixed(exponent(currency))} ${currency}`;
  }
}
