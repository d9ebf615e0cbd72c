/**
 * Decimal amounts as platforms write them ("25.00", "1,234.5", "25.00 USD") to integers in the
 * currency's minor units by its ISO 4217 exponent (JPY 0, USD 2, KWD 3). Done on the digits as
 * text, never through floating point: 0.1 + 0.2 is not a price. More decimals than the currency has
 * are refused, not rounded (a price of 19.999 USD is a mistake to see, not a cent to guess).
 */
import { exponent } from '../core/shared/money.ts';

export type Amount = { ok: true; minor: number; currency?: string } | { ok: false; reason: string };

/** ISO 4217 code: three capital letters. */
const CODE = /^[A-Z]{3}$/;

/**
 * `text` as minor units of `currency`. Accepts an optional trailing or leading ISO code (Google's
 * `25.00 USD`), which is returned as `currency` for the caller to compare with the shop's, thousands
 * separators as commas before a dot, and a leading `+`. Refuses negatives, exponents (`1E+3`), and
 * anything else with a reason in words.
 */
export function toMinorUnits(text: string, currency: string): Amount {
  let s = text.trim();
  let code: string | undefined;
  const withCode = /^([A-Za-z]{3})\s+(.+)$/.exec(s) ?? /^(.+?)\s+([A-Za-z]{3})$/.exec(s);
  if (withCode) {
    const [a, b] = CODE.test(withCode[1].toUpperCase()) && /\d/.test(withCode[2]) ? [withCode[2], withCode[1]] : [withCode[1], withCode[2]];
    s = a.trim();
    code = b.toUpperCase();
  }
  if (s === '') return { ok: false, reason: 'no amount' };
  if (/^-/.test(s)) return { ok: false, reason: `a negative amount (${text.trim()})` };
  if (/e/i.test(s)) return { ok: false, reason: `an amount in exponent notation (${text.trim()}), as a spreadsheet writes large numbers` };
  const m = /^\+?(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d*))?$/.exec(s);
  if (!m || (m[1] === undefined && !m[2])) return { ok: false, reason: `not a decimal amount (${text.trim()})` };
  const digits = exponent(code ?? currency);
  const whole = (m[1] ?? '0').replaceAll(',', '');
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  if (fraction.length > digits) return { ok: false, reason: `${text.trim()} has more decimals than ${code ?? currency} has (${digits})` };
  const minor = Number(whole + fraction.padEnd(digits, '0'));
  if (!Number.isSafeInteger(minor)) return { ok: false, reason: `an amount too large (${text.trim()})` };
  return code ? { ok: true, minor, currency: code } : { ok: true, minor };
}

/** A decimal that is an amount of a whole unit: "0", "12", "12.50" (Excel-mangled `3.6527E+11` is not). */
export function isPlainDecimal(text: string): boolean {
  return /^\d+(\.\d+)?$/.test(text.trim());
}
