/**
 * One import (`ucp-storefront import`, docs/catalog-import.md): each source's bytes are decoded as
 * they stream, its format detected from the content (or forced), its adapter turns it into our
 * catalog records, every record is checked against the catalog schema (a record that fails is
 * skipped and reported, the rest goes on), and the core syncs the shop (catalog-sync.ts): created,
 * updated, unchanged, and what the source no longer lists made unavailable. A file that cannot be
 * parsed at all stops the import before anything is written.
 */
import type { DB } from '../db/index.ts';
import { DomainError, ERROR_CODES } from '../core/shared/errors.ts';
import { ShopSettings, StoredProduct } from '../formats/catalog-format.ts';
import { findShopById } from '../core/shops/shops.ts';
import { syncCatalog, type SyncShop } from '../core/catalog/catalog-sync.ts';
import { jsonPath } from '../core/catalog/catalog-check.ts';
import { importContext, ImportParseError, type ImportFormat, type ShopHints } from './adapter.ts';
import { detectFormat, headerColumns } from './detect.ts';
import { fileChunks, peek } from './input.ts';
import { adapterFor } from './formats.ts';
import { ImportReport } from './report.ts';
import { sniffCurrency } from './sniff.ts';
import { detached } from '../core/shared/strings.ts';

export interface ImportOptions {
  /** Files, or a fetched feed's body (URLs: feeds.ts, with `key` the URL). */
  sources: Array<{ name: string; chunks: () => AsyncIterable<string>; key?: string }>;
  format?: ImportFormat;
  shop: { id: string; domain?: string; name?: string; currency?: string; language?: string; storefrontUrl?: string };
  /** The source's name for sync (default: the URL for a feed, else the format): products it brought before and no longer lists become unavailable. */
  source?: string;
  partial?: boolean;
  /** Let this run make unavailable more of the source's products than it lists (catalog-sync.ts SHRINK_GUARD). */
  allowShrink?: boolean;
  dryRun?: boolean;
}

export interface ImportResult {
  shop: string;
  /** The shop's currency: every price was read as (or refused for not being) in it; a new shop's comes from --currency, the file, or USD. */
  currency: string;
  format: ImportFormat;
  products: { created: number; updated: number; unchanged: number; unavailable: number };
  variants: number;
  skipped: Array<{ ref: string; reason: string }>;
  warnings: string[];
  dropped_fields: Record<string, number>;
  /** Nothing was (or, with --dry-run, would be) written. */
  unchanged: boolean;
  /** The shop did not exist and was created (or would be, with --dry-run). */
  shop_created: boolean;
  dry_run: boolean;
  /** URLs imported (feeds.ts): each answered in full or 304 (`not_modified`: its products untouched), and the schedule given. */
  feeds?: Array<{ url: string; not_modified: boolean; every?: string }>;
}

/** A mistake in what was asked (no such shop without --domain, a currency change): exit 1, nothing written. */
export class ImportRefused extends DomainError {
  constructor(message: string) {
    super('invalid', ERROR_CODES.importRefused, message);
  }
}

/** Files as sources. */
export function fileSources(paths: string[]): ImportOptions['sources'] {
  return paths.map((path) => ({ name: path, chunks: () => fileChunks(path) }));
}

export async function runImport(db: DB, opts: ImportOptions): Promise<ImportResult> {
  const existing = await findShopById(db, opts.shop.id);
  const report = new ImportReport();
  const hints: ShopHints = {};
  const keys: string[] = [];
  let format: ImportFormat | undefined;
  let currency = opts.shop.currency ?? existing?.settings.currency;
  // Each source's records as its adapter yields them, checked one by one; the sync writes them as they come.
  async function* records(): AsyncGenerator<StoredProduct> {
    const accepted = new AcceptedIds(report);
    for (const source of opts.sources) {
      const read = await openSource(source.name, source.chunks(), opts.format);
      format ??= read.format;
      currency ??= sniffCurrency(read.head) ?? 'USD';
      const key = opts.source ?? source.key ?? read.format;
      keys.push(key);
      const ctx = importContext({
        currency,
        language: opts.shop.language ?? existing?.settings.default_language ?? 'en',
        storefrontUrl: opts.shop.storefrontUrl ?? existing?.settings.storefront_url,
        report,
        onHint: (h) => Object.assign(hints, Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined))),
      });
      try {
        for await (const raw of adapterFor(read.format).read(read.chunks, ctx)) {
          const p = accepted.check(raw, key);
          if (p) yield p;
        }
      } catch (e) {
        if (e instanceof ImportParseError) throw new ImportParseError(`${source.name}: ${e.message}`);
        throw e;
      }
    }
  }
  // Our own file's amounts are already minor units of its shop's currency: that currency or none.
  const shop = () => {
    if (hints.currency && currency !== hints.currency) {
      if (!existing && !opts.shop.currency) currency = hints.currency;
      else throw new ImportRefused(`the file's prices are in ${hints.currency}, shop ${opts.shop.id}'s in ${currency}: amounts are not converted`);
    }
    return resolveShop(opts, existing, hints, currency ?? 'USD');
  };
  const counts = await syncCatalog(db, { shop, products: records(), sources: () => keys, partial: opts.partial, allowShrink: opts.allowShrink, dryRun: opts.dryRun });
  if (report.moreSkipped) report.warn(`${report.moreSkipped} more skipped rows are not listed`);
  return {
    shop: opts.shop.id,
    currency: currency ?? 'USD',
    format: format!,
    products: { created: counts.created, updated: counts.updated, unchanged: counts.unchanged, unavailable: counts.unavailable },
    variants: counts.variants,
    skipped: report.skipped,
    warnings: report.warnings,
    dropped_fields: report.droppedFields(),
    unchanged: !counts.created && !counts.updated && !counts.unavailable && !counts.shopCreated,
    shop_created: counts.shopCreated,
    dry_run: !!opts.dryRun,
  };
}

/** A source's text with its format: detected from its first 64 KiB, or forced (and then checked enough to refuse a wrong one early). */
async function openSource(name: string, chunks: AsyncIterable<string>, forced?: ImportFormat) {
  let head: string;
  let all: AsyncIterable<string>;
  try {
    ({ head, all } = await peek(chunks[Symbol.asyncIterator]()));
  } catch (e) {
    throw explainOpen(name, e);
  }
  const detected = detectFormat(head);
  if (detected.fix) throw new ImportParseError(`${name}: ${detected.why}: no format reads it as it is. ${detected.fix}`);
  const format = forced ?? detected.format;
  if (!format) throw new ImportParseError(`${name}: cannot tell which format this is: ${detected.why}. Name one with --format shopify|woocommerce|google|jsonld|ucp`);
  if (forced && detected.format && detected.format !== forced) {
    throw new ImportParseError(`${name}: not a ${forced} file: ${missingFor(forced, head)}; it looks like a ${detected.format} file (drop --format, or use --format ${detected.format})`);
  }
  return { format, head, chunks: all };
}

/** What the forced format's files have that this one lacks, in its own words. */
function missingFor(format: ImportFormat, head: string): string {
  const { columns } = headerColumns(head);
  if (format === 'shopify') return 'no column Handle (or URL handle)';
  if (format === 'woocommerce') return `no column ${['ID', 'Type', 'Name'].filter((c) => !columns.includes(c)).join(', ') || 'ID'}`;
  if (format === 'google') return 'no g: namespace items and no id/title/price header';
  if (format === 'jsonld') return 'no schema.org Product in the document';
  return 'not a catalog file (no "shop" and "products")';
}

/** Why `name` could not be opened, in a shop owner's words (ImportParseError), or `e` itself when it is no such reason. */
export function explainOpen(name: string, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new ImportParseError(`${name}: no such file`);
  if (code === 'EACCES' || code === 'EPERM') return new ImportParseError(`${name}: permission denied`);
  if (code === 'EISDIR') return new ImportParseError(`${name}: a directory, not a file`);
  if (e instanceof ImportParseError) return new ImportParseError(`${name}: ${e.message}`);
  return e as Error;
}

/** The run's product and variant ids: each record checked against the catalog schema, its ids unique in the run; else skipped with the reason. */
class AcceptedIds {
  private readonly products = new Set<string>();
  private readonly variantOwner = new Map<string, string>();
  constructor(private readonly report: ImportReport) {}

  check(raw: StoredProduct, key: string): StoredProduct | undefined {
    const ref = typeof raw?.id === 'string' ? `product ${raw.id}` : 'a product';
    const parsed = StoredProduct.safeParse({ ...raw, source: key });
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      return void this.report.skip(ref, `${jsonPath(i.path)}: ${i.message}${parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more)` : ''}`);
    }
    const p = parsed.data;
    if (this.products.has(p.id)) return void this.report.skip(ref, `product id ${p.id} appears twice; the first is kept`);
    const taken = p.variants.find((v) => this.variantOwner.has(v.id));
    if (taken) return void this.report.skip(ref, `variant id ${taken.id} is already product ${this.variantOwner.get(taken.id)}'s`);
    const dup = p.variants.find((v, i) => p.variants.findIndex((w) => w.id === v.id) !== i);
    if (dup) return void this.report.skip(ref, `variant id ${dup.id} appears twice in it`);
    const id = detached(p.id);
    for (const v of p.variants) this.variantOwner.set(detached(v.id), id);
    this.products.add(id);
    return p;
  }
}

/** The shop row to write: the existing one with what the options change, or a new one (protocol and MCP on). */
function resolveShop(opts: ImportOptions, existing: Awaited<ReturnType<typeof findShopById>>, hints: ShopHints, currency: string): SyncShop {
  const o = opts.shop;
  if (existing) {
    if (o.currency && o.currency !== existing.settings.currency) {
      throw new ImportRefused(`shop ${existing.id}'s prices are in ${existing.settings.currency}; --currency ${o.currency} would misread every price it holds. Import into a new shop instead.`);
    }
    if (o.domain && o.domain.toLowerCase() !== existing.domain) throw new ImportRefused(`shop ${existing.id} is served on ${existing.domain}, not ${o.domain}; leave --domain out for an existing shop`);
    const languages = o.language && !existing.settings.languages.includes(o.language) ? [...existing.settings.languages, o.language] : existing.settings.languages;
    const settings = { ...existing.settings, languages, ...(o.storefrontUrl ? { storefront_url: o.storefrontUrl.replace(/\/+$/, '') } : {}) };
    return { id: existing.id, domain: existing.domain, name: o.name ?? existing.name, protocol_enabled: existing.protocolEnabled, settings };
  }
  const domain = o.domain ?? hints.domain;
  if (!domain) throw new ImportRefused(`no shop ${o.id}: give --domain (the host name it is served on) to create it`);
  const language = o.language ?? hints.language ?? 'en';
  const storefront = (o.storefrontUrl ?? hints.storefrontUrl)?.replace(/\/+$/, '');
  const settings = ShopSettings.parse({
    currency,
    default_language: language,
    languages: [language],
    mcp_enabled: true,
    ...(storefront ? { storefront_url: storefront } : {}),
    ...(hints.checkout ? { checkout: hints.checkout } : {}),
  });
  return { id: o.id, domain: domain.toLowerCase(), name: o.name ?? hints.name ?? domain, protocol_enabled: true, settings };
}
