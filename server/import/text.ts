/**
 * Texts as platforms export them, made into what the catalog stores: HTML descriptions as plain
 * text (the HTML kept beside it, UCP's `description.html`), handles and ids from names, and values a
 * spreadsheet mangled on the way (`3.6527E+11` for a barcode) recognised so they are not served.
 */
import { convert } from 'html-to-text';

/** Any tag or character entity: the text is HTML, not plain text. */
export function looksLikeHtml(text: string): boolean {
  return /<\/?[a-zA-Z][^>]*>|&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);/.test(text);
}

/**
 * HTML as the plain text a buyer would read: block elements become line breaks, lists keep their
 * bullets, links keep their words (not their addresses), images and scripts vanish, entities are
 * decoded. Whitespace runs collapse; at most one blank line between paragraphs.
 */
export function htmlToPlain(html: string): string {
  return convert(html, {
    wordwrap: false,
    selectors: [
      { selector: 'a', options: { ignoreHref: true } },
      { selector: 'img', format: 'skip' },
      { selector: 'h1', options: { uppercase: false } },
      { selector: 'h2', options: { uppercase: false } },
      { selector: 'h3', options: { uppercase: false } },
      { selector: 'h4', options: { uppercase: false } },
      { selector: 'h5', options: { uppercase: false } },
      { selector: 'h6', options: { uppercase: false } },
      { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    ],
  })
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * A description as the catalog stores it: `plain` always (HTML turned into text), `html` only when
 * the source was HTML. Empty when there is no text at all.
 */
export function describe(text: string | undefined): { plain?: string; html?: string } {
  const s = text?.trim();
  if (!s) return {};
  if (!looksLikeHtml(s)) return { plain: s };
  const plain = htmlToPlain(s);
  return plain ? { plain, html: s } : {};
}

/** A URL slug: lowercase ASCII letters, digits and `-` (`Classic Tee – Navy` -> `classic-tee-navy`); '' when nothing is left. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120)
    .replace(/-+$/, '');
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,127}$/;

/**
 * A catalog id from a platform's key (an id, a SKU, a handle): kept as is when it is already one,
 * else its characters outside `A-Z a-z 0-9 _ . : -` become `-`. Deterministic, so importing the same
 * file again names the same products. '' when nothing usable is left.
 */
export function toId(key: string): string {
  const s = key.trim();
  if (ID.test(s)) return s;
  const cleaned = s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9_.:-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 128);
  return ID.test(cleaned) ? cleaned : '';
}

/**
 * A value a spreadsheet rewrote as a number in exponent notation (`3.6527E+11`, `6.0E+12`): the
 * digits it had are gone, so it must not be served as a barcode or SKU.
 */
export function isExcelMangled(value: string): boolean {
  return /^\d+(?:[.,]\d+)?E\+\d+$/i.test(value.trim());
}

/** Barcode type by its digit count (GS1): 8 gtin8, 12 upc (gtin12), 13 gtin13 (EAN), 14 gtin14; else `barcode`. */
export function barcodeType(value: string): string {
  const digits = value.trim();
  if (!/^\d+$/.test(digits)) return 'barcode';
  return { 8: 'gtin8', 12: 'gtin12', 13: 'gtin13', 14: 'gtin14' }[digits.length] ?? 'barcode';
}

/** Comma-separated lists as exporters write them (`a, b, "c, d"` is not quoted in these columns: plain split). */
export function splitList(text: string | undefined, separator = ','): string[] {
  if (!text) return [];
  return text
    .split(separator)
    .map((s) => s.trim())
    .filter(Boolean);
}
