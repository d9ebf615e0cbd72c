/**
 * The edge between a platform's export and our catalog (docs/catalog-import.md): each format is an
 * adapter that reads the file's text as it streams and yields our own catalog records
 * (`StoredProduct`, server/formats/catalog-format.ts); the import run checks them and writes them
 * through the core's one catalog write path. An adapter never touches the database.
 */
import type { CheckoutHandoff, StoredProduct } from '../formats/catalog-format.ts';
import { toMinorUnits, type Amount } from './money.ts';
import type { ImportReport } from './report.ts';
import { DomainError, ERROR_CODES } from '../core/shared/errors.ts';

export const FORMATS = ['shopify', 'woocommerce', 'google', 'jsonld', 'ucp'] as const;
export type ImportFormat = (typeof FORMATS)[number];

/** What an adapter learns about the shop itself (a feed's channel title and link, our own file's shop). */
export interface ShopHints {
  id?: string;
  domain?: string;
  name?: string;
  currency?: string;
  language?: string;
  /** The shop's own site (an RSS channel's `<link>`). */
  storefrontUrl?: string;
  checkout?: CheckoutHandoff;
}

export interface ImportContext {
  /** Shop currency (ISO 4217): every amount becomes its minor units. */
  readonly currency: string;
  /** The language the file's texts are written in (BCP 47). */
  readonly language: string;
  /** The shop's own site, no trailing slash (`https://shop.example.com`), for product page links; absent: none. */
  readonly storefrontUrl?: string;
  readonly report: ImportReport;
  /**
   * Decimal text to the shop currency's minor units (money.ts rules). An amount that names another
   * currency (a feed's `25.00 EUR` in a USD shop) is refused with a reason: we never convert.
   */
  money(text: string): Amount;
  /** Tell the run what the file says about the shop (used for a new shop, and where options leave it open). */
  hint(hints: ShopHints): void;
}

export interface Adapter {
  format: ImportFormat;
  /** Columns or elements the format must have, for refusing a forced `--format` ("no column Handle"). */
  read(chunks: AsyncIterable<string>, ctx: ImportContext): AsyncIterable<StoredProduct>;
}

/**
 * The file cannot be read as its format at all (cut inside a quoted field, not XML, the wrong
 * forced format): nothing of it is written. `line` (and `column` where the parser knows it) is
 * 1-based, in the file as an editor shows it.
 */
export class ImportParseError extends DomainError {
  constructor(
    readonly reason: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    const message = line ? `line ${line}${column ? `, column ${column}` : ''}: ${reason}` : reason;
    super('malformed', ERROR_CODES.invalidFile, message, [{ path: '$', code: ERROR_CODES.invalidFile, content: message }]);
  }
}

/** A context for adapters and tests: the shop currency, its language, optionally its site. */
export function importContext(options: { currency: string; language: string; storefrontUrl?: string; report: ImportReport; onHint?: (h: ShopHints) => void }): ImportContext {
  const { currency } = options;
  return {
    currency,
    language: options.language,
    storefrontUrl: options.storefrontUrl?.replace(/\/+$/, ''),
    report: options.report,
    money(text) {
      const amount = toMinorUnits(text, currency);
      if (amount.ok && amount.currency && amount.currency !== currency) return { ok: false, reason: `an amount in ${amount.currency}, not the shop's currency ${currency} (prices are not converted)` };
      return amount;
    },
    hint: (h) => options.onHint?.(h),
  };
}

/** Every product an adapter yields for `text` (tests, small files): the whole text as one chunk. */
export async function readAll(adapter: Adapter, text: string | string[], ctx: ImportContext): Promise<StoredProduct[]> {
  const out: StoredProduct[] = [];
  async function* chunks() {
    for (const c of typeof text === 'string' ? [text] : text) yield c;
  }
  for await (const p of adapter.read(chunks(), ctx)) out.push(p);
  return out;
}
