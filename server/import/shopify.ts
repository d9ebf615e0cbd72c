/**
 * Shopify's product CSV (the admin's export and help.shopify.com's `product_template.csv`) to our
 * catalog records. docs/import-formats/shopify.md is the column -> field table. A product is the run
 * of consecutive rows sharing a `Handle`: the first row carries the product's own columns, every
 * row may carry a variant and/or an image. Only the current handle's rows are held; a product is
 * yielded as soon as the next handle starts, so memory follows the largest product, not the file.
 * The 2024+ template's renamed headers (`URL handle`, `Price`, `Product image URL`, ...) are read as
 * their classic names, so both generations of the file load the same way.
 */
import type { StoredProduct, StoredVariant } from '../formats/catalog-format.ts';
import { ImportParseError, type Adapter, type ImportContext } from './adapter.ts';
import { barcodeType, describe, isExcelMangled, slugify, splitList, toId } from './text.ts';
import { csvRecords } from './csv.ts';

type Media = NonNullable<StoredProduct['media']>[number];
type Option = NonNullable<StoredProduct['options']>[number];

/** Columns we carry, by their classic names; every other column with a value is counted as dropped. */
const CARRIED = new Set([
  'Handle', 'Title', 'Body (HTML)', 'Vendor', 'Product Category', 'Type', 'Tags', 'Published', 'Status',
  'Option1 Name', 'Option1 Value', 'Option2 Name', 'Option2 Value', 'Option3 Name', 'Option3 Value',
  'Variant SKU', 'Variant Inventory Tracker', 'Variant Inventory Qty', 'Variant Inventory Policy', 'Variant Price',
  'Variant Compare At Price', 'Variant Barcode', 'Image Src', 'Image Position', 'Image Alt Text', 'Variant Image',
]);

/** The 2024+ template's header names (lowercased) -> the classic export's; case is ignored for all headers. */
const ALIASES: Record<string, string> = {
  'url handle': 'Handle', description: 'Body (HTML)', 'published on online store': 'Published', sku: 'Variant SKU',
  barcode: 'Variant Barcode', price: 'Variant Price', 'compare-at price': 'Variant Compare At Price',
  'inventory tracker': 'Variant Inventory Tracker', 'inventory quantity': 'Variant Inventory Qty',
  'continue selling when out of stock': 'Variant Inventory Policy', 'product image url': 'Image Src', 'variant image url': 'Variant Image',
};
const CANONICAL = new Map([...CARRIED].map((c) => [c.toLowerCase(), c]));

/** One data row: its cells by (canonical) column name, and the header to count dropped columns by. */
interface Row {
  get(column: string): string;
  /** Columns with a value in this row that no catalog field carries. */
  uncarried(): string[];
}

function headerOf(cells: string[]): (cells: string[]) => Row {
  const names = cells.map((c) => c.trim());
  const canonical = names.map((n) => ALIASES[n.toLowerCase()] ?? CANONICAL.get(n.toLowerCase()) ?? n);
  if (!canonical.includes('Handle')) throw new ImportParseError('not a Shopify product CSV: no column Handle', 1);
  const index = new Map<string, number>();
  canonical.forEach((c, i) => index.has(c) || index.set(c, i));
  return (row) => ({
    get: (column) => (row[index.get(column) ?? -1] ?? '').trim(),
    uncarried: () => names.filter((n, i) => !CARRIED.has(canonical[i]) && (row[i] ?? '').trim() !== ''),
  });
}

/** What the run remembers across products: ids given (products and variants share one space) and SKUs seen. */
interface FileState {
  ids: Set<string>;
  skus: Set<string>;
  handles: Set<string>;
}

export const shopify: Adapter = {
  format: 'shopify',
  async *read(chunks, ctx) {
    let rowOf: ((cells: string[]) => Row) | undefined;
    const state: FileState = { ids: new Set(), skus: new Set(), handles: new Set() };
    let group: Row[] = [];
    for await (const cells of csvRecords(chunks)) {
      if (!rowOf) {
        rowOf = headerOf(cells);
        continue;
      }
      const row = rowOf(cells);
      if (!row.get('Handle')) {
        ctx.report.skip(`Title ${row.get('Title') || '(none)'}, SKU ${row.get('Variant SKU') || '(none)'}`, 'no Handle: the row belongs to no product');
        continue;
      }
      if (group.length && row.get('Handle') !== group[0].get('Handle')) {
        const product = productOf(group, state, ctx);
        if (product) yield product;
        group = [];
      }
      group.push(row);
    }
    if (!rowOf) throw new ImportParseError('not a Shopify product CSV: the file is empty');
    const last = group.length ? productOf(group, state, ctx) : undefined;
    if (last) yield last;
  },
};

/** A handle's rows as one product, or undefined (reported as skipped) when none of it can be sold. */
function productOf(rows: Row[], state: FileState, ctx: ImportContext): StoredProduct | undefined {
  const first = rows[0];
  const ref = `Handle ${first.get('Handle')}`;
  if (state.handles.has(first.get('Handle'))) {
    ctx.report.skip(ref, 'its rows appear again after another product; Shopify keeps a product\'s rows together, so these are not merged');
    return undefined;
  }
  state.handles.add(first.get('Handle'));
  const handle = slugify(first.get('Handle'));
  let id = toId(first.get('Handle'));
  if (!handle || !id) return void ctx.report.skip(ref, 'the Handle has no letters or digits to make a URL handle from');
  if (!first.get('Title')) return void ctx.report.skip(ref, 'no Title on the product\'s first row');
  if (state.ids.has(id)) {
    ctx.report.warn(`${ref}: id ${id} is already a variant's (its SKU); the product is ${id}-product`);
    id = `${id}-product`;
  }
  state.ids.add(id);
  const options = optionsOf(first);
  const images = imagesOf(rows);
  const variants = variantsOf(rows, id, options, images, state, ctx);
  if (!variants.length) return void ctx.report.skip(ref, 'no variant could be carried (see its rows above)');
  for (const row of rows) for (const column of row.uncarried()) ctx.report.drop(column);
  const text = describe(first.get('Body (HTML)'));
  const product: StoredProduct = {
    id,
    handle,
    title: first.get('Title'),
    description: text.plain ?? first.get('Title'),
    categories: categoriesOf(first),
    variants,
  };
  if (text.html) product.description_html = text.html;
  const status = statusOf(first);
  if (status) product.status = status;
  const said = first.get('Status').trim();
  if (said && !KNOWN_STATUSES.has(said.toLowerCase())) ctx.report.warn(`${ref}: Status ${said.slice(0, 40)} is not one of Shopify's (active, draft, archived, unlisted); imported as active`);
  if (ctx.storefrontUrl) product.url = `${ctx.storefrontUrl}/products/${handle}`;
  if (first.get('Vendor')) product.brand = first.get('Vendor').slice(0, 200);
  const tags = splitList(first.get('Tags'));
  if (tags.length) product.tags = tags;
  if (images.length) product.media = images;
  const used = options.filter((o) => o.values.length);
  if (used.length) product.options = used.map(({ name, label, values }) => ({ name, label, values }));
  return product;
}

/** Shopify's product statuses (ProductStatus): anything else in the column is said in the report. */
const KNOWN_STATUSES = new Set(['active', 'draft', 'archived', 'unlisted']);

/**
 * Draft or archived, or not published to the online store: not sold here. Unlisted (Shopify's status
 * since 2025-10: active, but reached only by its link, never in search or collections): hidden.
 */
function statusOf(first: Row): StoredProduct['status'] {
  const status = first.get('Status').toLowerCase();
  if (status === 'draft' || status === 'archived') return 'unavailable';
  if (first.get('Published').toLowerCase() === 'false') return 'unavailable';
  if (status === 'unlisted') return 'hidden';
  return undefined;
}

/** `Type`, then each level of `Product Category` (`Apparel & Accessories > Clothing`), once each, in order. */
function categoriesOf(first: Row): string[] {
  const out = [first.get('Type'), ...first.get('Product Category').split(' > ')].map((s) => s.trim()).filter(Boolean);
  return [...new Set(out)];
}

/** Every row's image, ordered by `Image Position` (rows without one keep file order, after), each URL once. */
function imagesOf(rows: Row[]): Media[] {
  const found = rows
    .map((row, order) => ({ url: row.get('Image Src'), alt: row.get('Image Alt Text'), position: Number(row.get('Image Position')) || Infinity, order }))
    .filter((image) => image.url)
    .sort((a, b) => a.position - b.position || a.order - b.order);
  const seen = new Set<string>();
  return found.flatMap(({ url, alt }) => {
    if (seen.has(url)) return [];
    seen.add(url);
    return [alt ? { type: 'image' as const, url, alt_text: alt } : { type: 'image' as const, url }];
  });
}

/** An option as it is being collected: values in order of first appearance, ids unique within it. */
interface OptionAcc extends Option {
  values: Array<{ id: string; label: string }>;
  byLabel: Map<string, string>;
}

/** Option1..3 of the first row, in that order; Shopify's `Title` / `Default Title` stand-in is no option. */
function optionsOf(first: Row): OptionAcc[] {
  const out: OptionAcc[] = [];
  for (const n of [1, 2, 3]) {
    const label = first.get(`Option${n} Name`);
    if (!label) continue;
    if (n === 1 && label === 'Title' && first.get('Option1 Value') === 'Default Title') return [];
    let name = slugify(label) || `option${n}`;
    if (out.some((o) => o.name === name)) name = `${name}-${n}`;
    out.push({ name, label, values: [], byLabel: new Map() });
  }
  return out;
}

/** The value's id in `option`, added when first seen: slugify(label), suffixed when two labels slug alike. */
function valueId(option: OptionAcc, label: string): string {
  const known = option.byLabel.get(label);
  if (known) return known;
  const base = slugify(label) || 'value';
  let id = base;
  for (let i = 2; option.values.some((v) => v.id === id); i++) id = `${base}-${i}`;
  option.values.push({ id, label });
  option.byLabel.set(label, id);
  return id;
}

/** A later row that says anything about a variant (image-only rows say nothing); the first row always is one. */
function isVariantRow(row: Row): boolean {
  return ['Option1 Value', 'Option2 Value', 'Option3 Value', 'Variant SKU', 'Variant Price', 'Variant Barcode', 'Variant Inventory Qty'].some((c) => row.get(c));
}

function variantsOf(rows: Row[], productId: string, options: OptionAcc[], images: Media[], state: FileState, ctx: ImportContext): StoredVariant[] {
  const variants: StoredVariant[] = [];
  const combos = new Set<string>();
  for (const row of rows.filter((r, i) => i === 0 || isVariantRow(r))) {
    const sku = row.get('Variant SKU');
    const ref = `Handle ${row.get('Handle')}, ${sku ? `SKU ${sku}` : `options ${[1, 2, 3].map((n) => row.get(`Option${n} Value`)).filter(Boolean).join(' / ') || '(none)'}`}`;
    if (!options.length && variants.length) {
      ctx.report.skip(ref, 'a second variant on a product without options');
      continue;
    }
    const missing = options.find((_, i) => !row.get(`Option${i + 1} Value`));
    if (missing) {
      ctx.report.skip(ref, `no value for option ${missing.label}`);
      continue;
    }
    const price = ctx.money(row.get('Variant Price'));
    if (!price.ok) {
      ctx.report.skip(ref, `Variant Price: ${price.reason}`);
      continue;
    }
    const chosen = options.map((o, i) => [o.name, valueId(o, row.get(`Option${i + 1} Value`))] as const);
    const combo = chosen.map(([, v]) => v).join('/');
    if (combos.has(combo)) {
      ctx.report.skip(ref, 'the same option values as an earlier variant of this product');
      continue;
    }
    combos.add(combo);
    const variant: StoredVariant = { id: variantId(row, productId, chosen.map(([, v]) => v), state, ctx, ref), options: Object.fromEntries(chosen), price: price.minor };
    if (sku && !isExcelMangled(sku)) variant.sku = sku;
    Object.assign(variant, listPrice(row, price.minor, ctx, ref), stockOf(row), barcodesOf(row, ctx, ref), variantMedia(row, images));
    variants.push(variant);
  }
  return variants;
}

/**
 * The SKU as id when it is one and no earlier record took it (re-imports then name the same
 * variant); else the product id and the option value ids, `-default` for an option-less product.
 */
function variantId(row: Row, productId: string, valueIds: string[], state: FileState, ctx: ImportContext, ref: string): string {
  const sku = row.get('Variant SKU');
  if (sku && isExcelMangled(sku)) ctx.report.warn(`${ref}: Variant SKU ${sku} is a number a spreadsheet rewrote (its digits are lost); not stored`);
  const fromSku = sku && !isExcelMangled(sku) ? toId(sku) : '';
  if (fromSku && !state.ids.has(fromSku) && !state.skus.has(sku)) {
    state.skus.add(sku);
    state.ids.add(fromSku);
    return fromSku;
  }
  if (fromSku) ctx.report.warn(`${ref}: SKU ${sku} names an earlier product or variant too; this variant's id comes from its options`);
  if (sku) state.skus.add(sku);
  const base = toId(`${productId}-${valueIds.length ? valueIds.join('-') : 'default'}`.slice(0, 120)) || `${productId.slice(0, 110)}-variant`;
  let id = base;
  for (let i = 2; state.ids.has(id); i++) id = `${base}-${i}`;
  state.ids.add(id);
  return id;
}

/** The compare-at price, when it is strictly above the price (a lower one is no reduction to show). */
function listPrice(row: Row, price: number, ctx: ImportContext, ref: string): Partial<StoredVariant> {
  const text = row.get('Variant Compare At Price');
  if (!text) return {};
  const compare = ctx.money(text);
  if (!compare.ok) {
    ctx.report.warn(`${ref}: Variant Compare At Price not carried: ${compare.reason}`);
    return {};
  }
  return compare.minor > price ? { list_price: compare.minor } : {};
}

/**
 * Shopify's stock: no tracker, not tracked; tracked and `deny`, the count (never below 0);
 * tracked and `continue` (sell when out of stock), untracked while stock lasts, backorder after.
 */
function stockOf(row: Row): Partial<StoredVariant> {
  if (!row.get('Variant Inventory Tracker')) return {};
  const qty = Number.parseInt(row.get('Variant Inventory Qty') || '0', 10) || 0;
  if (row.get('Variant Inventory Policy').toLowerCase() === 'continue') return qty > 0 ? {} : { status: 'backorder' };
  return { inventory: Math.max(qty, 0) };
}

function barcodesOf(row: Row, ctx: ImportContext, ref: string): Partial<StoredVariant> {
  const value = row.get('Variant Barcode');
  if (!value) return {};
  if (isExcelMangled(value)) {
    ctx.report.warn(`${ref}: Variant Barcode ${value} is a number a spreadsheet rewrote (its digits are lost); not stored`);
    return {};
  }
  return { barcodes: [{ type: barcodeType(value), value }] };
}

/** `Variant Image`, with the alt text the same image has among the product's images. */
function variantMedia(row: Row, images: Media[]): Partial<StoredVariant> {
  const url = row.get('Variant Image');
  if (!url) return {};
  const alt = images.find((m) => m.url === url)?.alt_text;
  return { media: [alt ? { type: 'image', url, alt_text: alt } : { type: 'image', url }] };
}
