/**
 * Which format a file is, from its content, never its name (docs/catalog-import.md "Formats"):
 * the first 64 KiB decide. CSV headers name the platform (Shopify's `Handle`, WooCommerce's `ID`,
 * `Type`, `Name`), Google's namespace marks its XML feeds and its attribute names its text feeds,
 * schema.org's `@context`/`@type` or an `ld+json` script marks JSON-LD, and our own catalog file
 * has `shop` and `products`.
 */
import { parse } from 'csv-parse/sync';
import type { ImportFormat } from './adapter.ts';

export const GOOGLE_NS = 'http://base.google.com/ns/1.0';

export interface Detected {
  format?: ImportFormat;
  /** Words for a file no adapter takes: what it looks like and what each format needs. */
  why?: string;
  /** What to do about a file no adapter reads as it is, whatever --format says (a semicolon-separated CSV). */
  fix?: string;
}

export function detectFormat(head: string): Detected {
  const text = head.replace(/^\ufeff/, '').trimStart();
  if (!text) return { why: 'the file is empty' };
  if (text.startsWith('<')) return markup(text);
  if (text.startsWith('{') || text.startsWith('[')) return json(text);
  return delimited(text);
}

function markup(text: string): Detected {
  if (text.includes(GOOGLE_NS)) return { format: 'google' };
  if (/application\/ld\+json/i.test(text) || /<html[\s>]|<!doctype html/i.test(text)) return { format: 'jsonld' };
  return { why: 'XML that is neither a Google Merchant Center feed (no xmlns:g="http://base.google.com/ns/1.0") nor an HTML page with schema.org JSON-LD' };
}

function json(text: string): Detected {
  if (/"@(context|type|graph)"\s*:/.test(text)) return { format: 'jsonld' };
  if (/"products"\s*:/.test(text) && /"shop"\s*:/.test(text)) return { format: 'ucp' };
  if (/"products"\s*:/.test(text)) return { format: 'ucp' };
  return { why: 'JSON that is neither schema.org JSON-LD (no @context or @type) nor a catalog file (no "shop" and "products")' };
}

/** The header row's columns, comma- or tab-separated. */
export function headerColumns(text: string): { columns: string[]; tab: boolean } {
  const line = text.slice(0, (text.indexOf('\n') + 1 || text.length + 1) - 1).replace(/\r$/, '');
  const tab = line.includes('\t') && line.split('\t').length > line.split(',').length;
  try {
    const [columns] = parse(line, { delimiter: tab ? '\t' : ',', relax_quotes: true, relax_column_count: true }) as string[][];
    return { columns: (columns ?? []).map((c) => c.trim()), tab };
  } catch {
    return { columns: [], tab };
  }
}

function delimited(text: string): Detected {
  const { columns, tab } = headerColumns(text);
  const has = (c: string) => columns.includes(c);
  const lower = new Set(columns.map((c) => c.toLowerCase().replace(/^g:/, '')));
  // Shopify's template before 2024 (`Handle`) and since (`URL handle`, `Title`).
  if (has('Handle') || has('URL handle')) return { format: 'shopify' };
  if (has('ID') && has('Type') && has('Name')) return { format: 'woocommerce' };
  if (lower.has('id') && (lower.has('title') || lower.has('price'))) return { format: 'google' };
  // A spreadsheet set to a language that writes decimal commas (German, French, …) saves "CSV" with
  // semicolons: one column of `ID;Type;SKU;…` to csv-parse, whatever the platform.
  const semicolons = text.slice(0, (text.indexOf('\n') + 1 || text.length + 1) - 1).split(';');
  if (!tab && columns.length <= 1 && semicolons.length > 2) {
    return {
      why: `a semicolon-separated file (header ${semicolons.slice(0, 4).join(';')};…), as a spreadsheet set to a language with decimal commas saves CSV`,
      fix: 'Import the file as the platform exported it, or save it from the spreadsheet as "CSV UTF-8 (comma delimited)"',
    };
  }
  const shown = columns.slice(0, 6).join(tab ? '\\t' : ',');
  return {
    why: `a ${tab ? 'tab-separated' : 'comma-separated'} file whose header (${shown || 'empty'}${columns.length > 6 ? ', …' : ''}) is none of: a Shopify product CSV (column Handle or URL handle), a WooCommerce product CSV (columns ID, Type, Name), a Google Merchant Center text feed (columns id, title, price)`,
  };
}

/** For `seed` given a file that is not JSON: the import format it looks like, if any. */
export function importFormatOf(head: string): ImportFormat | undefined {
  const d = detectFormat(head);
  return d.format && d.format !== 'ucp' ? d.format : undefined;
}
