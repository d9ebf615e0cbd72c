/**
 * WooCommerce's built-in product CSV exporter (Products > Export) to our catalog records.
 * docs/import-formats/woocommerce.md is the column -> field table. Simple products are yielded as
 * their row is read. A variable product's variations are rows of their own that may come anywhere
 * after (WooCommerce's sample file puts one at the very end), so variable parents and variations
 * are the only rows held, as parsed cells, until the file ends; then each parent is yielded with
 * its variations. Lists in cells are WooCommerce's: comma-separated, a literal comma written `\,`.
 */
import type { StoredProduct, StoredVariant } from '../formats/catalog-format.ts';
import { ImportParseError, type Adapter, type ImportContext } from './adapter.ts';
import { csvRecords } from './csv.ts';
import { barcodeType, describe, isExcelMangled, slugify, toId } from './text.ts';

type Values = Array<{ id: string; label: string }>;
/** An option as this adapter builds it (plain-string labels). */
type Option = { name: string; label: string; values: Values };
type Sellable = Omit<StoredVariant, 'id' | 'options'>;

const GTIN = 'GTIN, UPC, EAN, or ISBN';
/** Columns that make the product itself (a simple product's row, a variable parent's). */
const PRODUCT_COLUMNS = ['ID', 'Type', 'Name', 'Published', 'Visibility in catalog', 'Description', 'Categories', 'Tags', 'Images', 'Brands'];
/** Columns that make what is sold (a simple product's row, a variation's). */
const SELLING_COLUMNS = ['SKU', GTIN, 'Sale price', 'Regular price', 'Date sale price starts', 'Date sale price ends', 'In stock?', 'Stock', 'Backorders allowed?', 'Images'];
const SIMPLE = new Set([...PRODUCT_COLUMNS, ...SELLING_COLUMNS]);
const PARENT = new Set([...PRODUCT_COLUMNS, 'SKU']);
const VARIATION = new Set([...SELLING_COLUMNS, 'ID', 'Type', 'Parent', 'Position', 'Published', 'Description']);
const ATTRIBUTE_COLUMN = /^Attribute (\d+) (name|value\(s\)|visible|global)$/;

interface Row {
  get(column: string): string;
  /** `Attribute N name` -> its attribute, for every N the header has. */
  attributes(): Attribute[];
  /** Columns with a value that `carried` (and the listed attributes' columns) do not take. */
  uncarried(carried: Set<string>, attributes: number[]): string[];
}

interface Attribute {
  n: number;
  label: string;
  /** The cell as written: one value on a variation (empty: any value), a list on a product. */
  text: string;
  visible: boolean;
}

function headerOf(cells: string[]): (cells: string[]) => Row {
  const names = cells.map((c) => c.trim());
  const missing = ['ID', 'Type', 'Name'].filter((c) => !names.includes(c));
  if (missing.length) throw new ImportParseError(`not a WooCommerce product CSV: no column ${missing.join(', ')}`, 1);
  const index = new Map<string, number>();
  names.forEach((n, i) => index.has(n) || index.set(n, i));
  const numbers = names.flatMap((n) => /^Attribute (\d+) name$/.exec(n)?.[1] ?? []).map(Number);
  return (row) => {
    const get = (column: string) => (row[index.get(column) ?? -1] ?? '').trim();
    return {
      get,
      attributes: () =>
        numbers
          .map((n) => ({ n, label: get(`Attribute ${n} name`), text: get(`Attribute ${n} value(s)`), visible: get(`Attribute ${n} visible`) !== '0' }))
          .filter((a) => a.label),
      uncarried: (carried, attributes) =>
        names.filter((name, i) => {
          if (!(row[i] ?? '').trim() || carried.has(name)) return false;
          const attribute = ATTRIBUTE_COLUMN.exec(name);
          return !attribute || !attributes.includes(Number(attribute[1]));
        }),
    };
  };
}

/** WooCommerce's list cells: comma-separated, `\,` a comma inside an entry. */
export function wooList(text: string): string[] {
  return text
    .split(/(?<!\\),/)
    .map((s) => s.replaceAll('\\,', ',').trim())
    .filter(Boolean);
}

/** A variable parent, held until the file ends, and the variations found for it. */
interface Parent {
  row: Row;
  id: string;
  handle: string;
  ref: string;
  variations: Array<{ row: Row; id: string; ref: string }>;
}

/** What the run remembers across rows: ids and handles given, parents and variations waiting for each other. */
interface FileState {
  ids: Set<string>;
  handles: Set<string>;
  parents: Parent[];
  parentBySku: Map<string, Parent>;
  parentById: Map<string, Parent>;
  variations: Array<{ row: Row; id: string; ref: string }>;
}

export const woocommerce: Adapter = {
  format: 'woocommerce',
  async *read(chunks, ctx) {
    let rowOf: ((cells: string[]) => Row) | undefined;
    const state: FileState = { ids: new Set(), handles: new Set(), parents: [], parentBySku: new Map(), parentById: new Map(), variations: [] };
    for await (const cells of csvRecords(chunks)) {
      if (!rowOf) {
        rowOf = headerOf(cells);
        continue;
      }
      const product = readRow(rowOf(cells), state, ctx);
      if (product) yield product;
    }
    if (!rowOf) throw new ImportParseError('not a WooCommerce product CSV: the file is empty');
    attachVariations(state, ctx);
    for (const parent of state.parents) {
      const product = variableProduct(parent, ctx);
      if (product) yield product;
    }
  },
};

/** One row: a simple product now; a variable parent or a variation kept for the end; the rest reported. */
function readRow(row: Row, state: FileState, ctx: ImportContext): StoredProduct | undefined {
  const types = new Set(wooList(row.get('Type').toLowerCase()));
  const sku = row.get('SKU');
  const written = row.get('ID') || (sku ? `sku-${sku}` : '');
  const ref = `ID ${row.get('ID') || '(none)'}${sku ? ` (SKU ${sku})` : ''}${!row.get('ID') && !sku ? ` (${row.get('Name') || 'no Name'})` : ''}`;
  const id = toId(written);
  if (!id) return void ctx.report.skip(ref, 'neither an ID nor a SKU to name it by');
  if (state.ids.has(id)) return void ctx.report.skip(ref, `ID ${id} appears twice in the file`);
  if (types.has('grouped')) return void ctx.report.skip(ref, `grouped product: not sold itself; its products (${row.get('Grouped products') || 'none listed'}) are imported on their own rows`);
  if (types.has('external')) return void ctx.report.skip(ref, `external product: sold at ${row.get('External URL') || 'another site (no External URL)'}`);
  state.ids.add(id);
  if (types.has('variation')) return void state.variations.push({ row, id, ref });
  if (!types.has('variable') && !types.has('simple')) return void ctx.report.skip(ref, `product type ${row.get('Type') || '(none)'} is not one this import reads`);
  const handle = claimHandle(row, id, state);
  if (types.has('simple')) return simpleProduct(row, id, handle, ref, ctx);
  const parent: Parent = { row, id, handle, ref, variations: [] };
  state.parents.push(parent);
  state.parentById.set(row.get('ID'), parent);
  if (sku) state.parentBySku.set(sku, parent);
  return undefined;
}

/** slugify(Name), `-ID` added when an earlier product of the file has it; `product-ID` when the name has no letters. */
function claimHandle(row: Row, id: string, state: FileState): string {
  const base = slugify(row.get('Name')) || `product-${slugify(id)}`;
  let handle = state.handles.has(base) ? `${base}-${slugify(id)}` : base;
  for (let i = 2; state.handles.has(handle); i++) handle = `${base}-${slugify(id)}-${i}`;
  state.handles.add(handle);
  return handle;
}

/** The product's own fields, shared by simple and variable products. */
function productOf(row: Row, id: string, handle: string, ctx: ImportContext): StoredProduct {
  const html = row.get('Description') || row.get('Short description');
  const text = describe(html);
  const product: StoredProduct = { id, handle, title: row.get('Name') || handle, description: text.plain ?? (row.get('Name') || handle), categories: categoriesOf(row), variants: [] };
  if (text.html) product.description_html = text.html;
  const published = row.get('Published');
  if (published === '0' || published === '-1') product.status = 'unavailable';
  else if (row.get('Visibility in catalog').toLowerCase() === 'hidden') product.status = 'hidden';
  if (ctx.storefrontUrl && /^\d+$/.test(row.get('ID'))) product.url = `${ctx.storefrontUrl}/?p=${row.get('ID')}`;
  const brand = wooList(row.get('Brands'))[0]?.split('>').at(-1)?.trim();
  if (brand) product.brand = brand.slice(0, 200);
  const tags = wooList(row.get('Tags'));
  if (tags.length) product.tags = tags;
  const media = wooList(row.get('Images')).map((url) => ({ type: 'image' as const, url }));
  if (media.length) product.media = media;
  return product;
}

/** Each level of each category path (`Clothing > Tshirts` -> Clothing, Tshirts), once each, in order. */
function categoriesOf(row: Row): string[] {
  const levels = wooList(row.get('Categories')).flatMap((path) => path.split('>').map((s) => s.trim()));
  return [...new Set(levels.filter(Boolean))];
}

/** Columns counted as dropped for a carried row: `Short description` counts when `Description` was used instead. */
function countDropped(row: Row, carried: Set<string>, attributes: number[], ctx: ImportContext): void {
  const with_ = row.get('Description') ? carried : new Set([...carried, 'Short description']);
  for (const column of row.uncarried(with_, attributes)) ctx.report.drop(column);
}

/**
 * A simple (also downloadable/virtual) product: one variant, `ID-default`. A visible attribute with
 * one value is shown as an option of that one value; other attributes describe nothing we carry.
 */
function simpleProduct(row: Row, id: string, handle: string, ref: string, ctx: ImportContext): StoredProduct | undefined {
  const sellable = sellableOf(row, ref, ctx);
  if (!sellable) return undefined;
  const product = productOf(row, id, handle, ctx);
  const options: Option[] = [];
  const chosen: Record<string, string> = {};
  const kept: number[] = [];
  for (const attribute of row.attributes()) {
    const values = wooList(attribute.text);
    const name = slugify(attribute.label) || `attribute-${attribute.n}`;
    if (!attribute.visible || values.length !== 1 || options.some((o) => o.name === name)) continue;
    const value = { id: slugify(values[0]) || 'value', label: values[0] };
    options.push({ name, label: attribute.label, values: [value] });
    chosen[name] = value.id;
    kept.push(attribute.n);
  }
  if (options.length) product.options = options;
  product.variants = [{ id: `${id}-default`, options: chosen, ...sellable }];
  countDropped(row, SIMPLE, kept, ctx);
  return product;
}

/** Price, stock, codes and images of what is sold, or undefined (reported) when it has no price we can carry. */
function sellableOf(row: Row, ref: string, ctx: ImportContext): Sellable | undefined {
  const price = priceOf(row, ref, ctx);
  if (!price) return undefined;
  const out: Sellable = { ...price, ...stockOf(row) };
  const sku = row.get('SKU');
  if (sku && isExcelMangled(sku)) ctx.report.warn(`${ref}: SKU ${sku} is a number a spreadsheet rewrote (its digits are lost); not stored`);
  else if (sku) out.sku = sku;
  const gtin = row.get(GTIN);
  if (gtin && isExcelMangled(gtin)) ctx.report.warn(`${ref}: ${GTIN} ${gtin} is a number a spreadsheet rewrote (its digits are lost); not stored`);
  else if (gtin) out.barcodes = [{ type: barcodeType(gtin), value: gtin }];
  return out;
}

/** WooCommerce's price: the sale price while its dates hold, else the regular price; regular above it is the list price. */
function priceOf(row: Row, ref: string, ctx: ImportContext): Pick<StoredVariant, 'price' | 'list_price'> | undefined {
  const regular = row.get('Regular price');
  let sale = row.get('Sale price');
  const ends = dateOf(row.get('Date sale price ends'));
  const starts = dateOf(row.get('Date sale price starts'));
  if (sale && ends !== undefined && ends < Date.now()) {
    ctx.report.warn(`${ref}: the sale price ${sale} ended ${row.get('Date sale price ends')}; the regular price is used`);
    sale = '';
  } else if (sale && starts !== undefined && starts > Date.now()) {
    ctx.report.warn(`${ref}: the sale price ${sale} starts ${row.get('Date sale price starts')}; the regular price is used until a later import`);
    sale = '';
  }
  if (!sale && !regular) return void ctx.report.skip(ref, 'no price: neither Regular price nor Sale price');
  const column = sale ? 'Sale price' : 'Regular price';
  const price = ctx.money(sale || regular);
  if (!price.ok) return void ctx.report.skip(ref, `${column}: ${price.reason}`);
  if (!sale || !regular) return { price: price.minor };
  const list = ctx.money(regular);
  if (!list.ok) ctx.report.warn(`${ref}: Regular price not carried as the list price: ${list.reason}`);
  return list.ok && list.minor > price.minor ? { price: price.minor, list_price: list.minor } : { price: price.minor };
}

/** A date as WooCommerce writes it (`2024-05-01 23:59:59` or ISO 8601), as epoch ms; undefined when absent or unreadable. */
function dateOf(text: string): number | undefined {
  const time = text ? Date.parse(text.replace(' ', 'T')) : NaN;
  return Number.isNaN(time) ? undefined : time;
}

/**
 * WooCommerce's stock: a `Stock` number means WooCommerce counts it (never below 0 here); no number,
 * not counted. `In stock?` 0 is out of stock; `backorder`, or backorders allowed with none left, is backorder.
 */
function stockOf(row: Row): Pick<StoredVariant, 'inventory' | 'status'> {
  const text = row.get('Stock');
  const stock = text !== '' && /^-?\d+(\.\d+)?$/.test(text) ? Math.trunc(Number(text)) : undefined;
  const inStock = row.get('In stock?').toLowerCase();
  const backorders = ['1', 'notify'].includes(row.get('Backorders allowed?').toLowerCase());
  const out: Pick<StoredVariant, 'inventory' | 'status'> = stock === undefined ? {} : { inventory: Math.max(stock, 0) };
  if (inStock === 'backorder' || (backorders && stock !== undefined && stock <= 0)) out.status = 'backorder';
  else if (inStock === '0') out.status = 'out_of_stock';
  return out;
}

/** Each variation to its parent (`Parent` is `id:44` or the parent's SKU); a variation without one is reported. */
function attachVariations(state: FileState, ctx: ImportContext): void {
  for (const variation of state.variations) {
    const written = variation.row.get('Parent');
    const byId = /^id:(\d+)$/i.exec(written);
    const parent = byId ? state.parentById.get(byId[1]) : state.parentBySku.get(written);
    if (parent) parent.variations.push(variation);
    else ctx.report.skip(variation.ref, written ? `its parent ${written} is not a variable product in this file` : 'a variation without a Parent');
  }
}

/** A variable product: the parent's attributes that its variations name become options, in the parent's order. */
function variableProduct(parent: Parent, ctx: ImportContext): StoredProduct | undefined {
  if (!parent.variations.length) return void ctx.report.skip(parent.ref, 'variable product without variations in the file');
  const named = new Set(parent.variations.flatMap((v) => v.row.attributes().map((a) => slugify(a.label))));
  const attributes = parent.row.attributes().filter((a) => named.has(slugify(a.label)) && wooList(a.text).length);
  const options: Option[] = [];
  for (const a of attributes) {
    const base = slugify(a.label) || `attribute-${a.n}`;
    options.push({ name: options.some((o) => o.name === base) ? `${base}-${a.n}` : base, label: a.label, values: valuesOf(wooList(a.text)) });
  }
  const variants = variantsOf(parent, options, ctx);
  if (!variants.length) return void ctx.report.skip(parent.ref, 'none of its variations could be carried');
  const product = productOf(parent.row, parent.id, parent.handle, ctx);
  if (options.length) product.options = options;
  product.variants = variants;
  countDropped(
    parent.row,
    PARENT,
    attributes.map((a) => a.n),
    ctx,
  );
  return product;
}

/** Value ids: slugify(label), suffixed when two labels slug alike, so each is unique within its option. */
function valuesOf(labels: string[]): Values {
  const out: Values = [];
  for (const label of labels) {
    const base = slugify(label) || 'value';
    let id = base;
    for (let i = 2; out.some((v) => v.id === id); i++) id = `${base}-${i}`;
    if (!out.some((v) => v.label === label)) out.push({ id, label });
  }
  return out;
}

/**
 * The variations in WooCommerce's order (`Position`, then file order). One naming a value the
 * parent does not list is skipped; an attribute left empty ("any value") is sold at each of the
 * parent's values, one variant per value (`ID-value`). A combination already sold is not repeated.
 */
function variantsOf(parent: Parent, options: Option[], ctx: ImportContext): StoredVariant[] {
  const ordered = parent.variations.map((v, i) => ({ v, i, at: Number(v.row.get('Position')) || 0 })).sort((a, b) => a.at - b.at || a.i - b.i);
  const variants: StoredVariant[] = [];
  const sold = new Map<string, string>();
  for (const { v: variation } of ordered) {
    const choices = choicesOf(variation.row, options);
    if (typeof choices === 'string') {
      ctx.report.skip(variation.ref, choices);
      continue;
    }
    const sellable = sellableOf(variation.row, variation.ref, ctx);
    if (!sellable) continue;
    if (variation.row.get('Published') === '0') sellable.status = 'discontinued';
    const text = describe(variation.row.get('Description')).plain;
    if (text) sellable.description = text;
    const media = wooList(variation.row.get('Images')).map((url) => ({ type: 'image' as const, url }));
    if (media.length) sellable.media = media;
    const fresh = combinations(choices).filter((c) => !sold.has(c.key));
    const repeated = combinations(choices).filter((c) => sold.has(c.key));
    if (!fresh.length) {
      ctx.report.skip(variation.ref, `the same option values as ${sold.get(repeated[0].key)}`);
      continue;
    }
    if (repeated.length) ctx.report.warn(`${variation.ref}: ${repeated.length} of its option combinations are already sold by an earlier variation; not repeated`);
    for (const combo of fresh) {
      sold.set(combo.key, variation.ref);
      const id = combo.any.length ? toId(`${variation.id}-${combo.any.join('-')}`.slice(0, 128)) : variation.id;
      variants.push({ id, options: combo.options, ...sellable });
    }
    countDropped(variation.row, VARIATION, variation.row.attributes().map((a) => a.n), ctx);
  }
  return variants;
}

/** Per option: the one value id the variation names, or every value (any) — or why it cannot be sold. */
function choicesOf(row: Row, options: Option[]): Array<{ name: string; ids: string[]; any: boolean }> | string {
  const attributes = row.attributes();
  const out: Array<{ name: string; ids: string[]; any: boolean }> = [];
  for (const option of options) {
    const written = attributes.find((a) => slugify(a.label) === option.name || a.label === option.label)?.text ?? '';
    if (!written) {
      out.push({ name: option.name, ids: option.values.map((v) => v.id), any: true });
      continue;
    }
    const value = option.values.find((v) => v.label === written) ?? option.values.find((v) => v.id === slugify(written));
    if (!value) return `${option.label} ${written} is not one of the parent's values (${option.values.map((v) => v.label).join(', ')})`;
    out.push({ name: option.name, ids: [value.id], any: false });
  }
  return out;
}

/** Every combination the choices allow (at most one per "any" value), with the value ids chosen for "any" options. */
function combinations(choices: Array<{ name: string; ids: string[]; any: boolean }>): Array<{ key: string; options: Record<string, string>; any: string[] }> {
  let out = [{ key: '', options: {} as Record<string, string>, any: [] as string[] }];
  for (const choice of choices) {
    out = out.flatMap((c) =>
      choice.ids.map((id) => ({ key: `${c.key}/${id}`, options: { ...c.options, [choice.name]: id }, any: choice.any ? [...c.any, id] : c.any })),
    );
  }
  return out;
}
