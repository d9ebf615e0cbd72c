/**
 * Google Merchant Center product data (docs/import-formats/google.md) in its three forms, told
 * apart by the content: RSS 2.0 (`<rss><channel><item>`), Atom 1.0 (`<feed><entry>`) with the
 * `g:` attributes in the namespace http://base.google.com/ns/1.0 (matched by URI, whatever its
 * prefix), or tab-separated text with a header row of attribute names. XML goes through saxes and
 * text through csv-parse, both streaming: only parsed items are held, and only those of an
 * `item_group_id`, because a group's variants may be apart in the file. Ungrouped items are
 * yielded as they come; a group once the feed has gone `googleTuning.heldItems` items without
 * adding to it (feeds list a group's items together, so in practice as soon as the next group
 * begins; memory stays flat however long the feed); the rest at the end. An item that comes
 * later than that for a group already imported is skipped, saying so.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import type { StoredProduct, StoredVariant } from '../formats/catalog-format.ts';
import { ImportParseError, type Adapter, type ImportContext } from './adapter.ts';
import { delimitedRows } from './csv.ts';
import { barcodeType, describe, isExcelMangled, slugify, splitList, toId } from './text.ts';
import { detached } from '../core/shared/strings.ts';

const G_NS = 'http://base.google.com/ns/1.0';
const NOT_A_FEED = 'not a Google Merchant Center feed: no g: namespace items and no id/title/price header';

/** One item as the file says it: attribute name -> its values, in file order (repeatable attributes). */
type Item = Map<string, string[]>;

/** Attributes some catalog field carries; every other attribute with a value is counted as dropped. */
const CARRIED = new Set([
  'id', 'title', 'description', 'link', 'image_link', 'additional_image_link', 'availability', 'price', 'sale_price',
  'sale_price_effective_date', 'brand', 'gtin', 'mpn', 'item_group_id', 'color', 'size', 'material', 'pattern',
  'product_type', 'google_product_category', 'pause', 'excluded_destination', 'included_destination',
]);
/** Options of a group, in this order, when they appear; the last two only when they differ within it. */
const OPTIONS = ['color', 'size', 'material', 'pattern'] as const;
const AUDIENCE = ['age_group', 'gender'] as const;
const LABELS: Record<string, string> = { color: 'Color', size: 'Size', material: 'Material', pattern: 'Pattern', age_group: 'Age group', gender: 'Gender' };

/** `availability` to variant status; `in_stock` is no status at all (untracked inventory, always sold). */
const AVAILABILITY: Record<string, StoredVariant['status'] | null> = {
  in_stock: null,
  out_of_stock: 'out_of_stock',
  preorder: 'preorder',
  backorder: 'backorder',
  // Retired in 2014: Google reads it as in stock, and so do we.
  available_for_order: null,
};

export const googleTuning = {
  /** Grouped items held at most; past it, the groups touched longest ago are imported (docs/import-formats/google.md). */
  heldItems: 10_000,
};

export const google: Adapter = {
  format: 'google',
  async *read(chunks, ctx) {
    const state = new FeedState(ctx);
    const { first, rest } = await firstText(chunks);
    if (first === undefined) throw new ImportParseError(NOT_A_FEED);
    const items = first.startsWith('<') ? readXml(first, rest, ctx) : readTsv(first, rest);
    for await (const batch of items) {
      for (const item of batch) yield* state.add(item);
    }
    yield* state.groups();
  },
};

/** What the adapter keeps between items: ids already seen, the groups not yet imported (least recently added to first) and those imported. */
class FeedState {
  private readonly seen = new Set<string>();
  private readonly held = new Map<string, Item[]>();
  private heldItems = 0;
  private readonly done = new Set<string>();
  constructor(private readonly ctx: ImportContext) {}

  *add(item: Item): Generator<StoredProduct> {
    countDropped(item, this.ctx);
    const id = one(item, 'id');
    if (!id) return this.ctx.report.skip(ref(item), 'no id');
    if (this.seen.has(id)) return this.ctx.report.skip(`id ${id}`, 'a second item with the same id');
    this.seen.add(detached(id));
    const group = one(item, 'item_group_id');
    if (!group) {
      const product = toProduct(toId(id), [item], this.ctx);
      if (product) yield product;
      return;
    }
    if (this.done.has(group)) {
      return this.ctx.report.skip(`id ${id}`, `the other items of item_group_id ${group} came more than ${googleTuning.heldItems.toLocaleString('en')} items earlier and were imported without this one; list a group's items together in the feed`);
    }
    const items = this.held.get(group) ?? [];
    items.push(item);
    this.held.delete(group);
    this.held.set(group, items);
    this.heldItems++;
    while (this.heldItems > googleTuning.heldItems) {
      const [oldest, its] = this.held.entries().next().value!;
      yield* this.flush(oldest, its);
    }
  }

  *groups(): Generator<StoredProduct> {
    for (const [group, items] of this.held) yield* this.flush(group, items);
  }

  private *flush(group: string, items: Item[]): Generator<StoredProduct> {
    this.held.delete(group);
    this.heldItems -= items.length;
    this.done.add(detached(group));
    const id = toId(group);
    if (!id) return this.ctx.report.skip(`item_group_id ${group}`, 'the item_group_id has no letters or digits to make an id from');
    const product = toProduct(id, items, this.ctx);
    if (product) yield product;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading the file

/** The first chunk with text in it (BOM and leading whitespace removed), and the chunks after it. */
async function firstText(chunks: AsyncIterable<string>): Promise<{ first?: string; rest: AsyncIterator<string> }> {
  const rest = chunks[Symbol.asyncIterator]();
  for (let next = await rest.next(); !next.done; next = await rest.next()) {
    const text = next.value.replace(/^\ufeff/, '').trimStart();
    if (text) return { first: text, rest };
  }
  return { rest };
}

async function* allChunks(first: string, rest: AsyncIterator<string>): AsyncGenerator<string> {
  yield first;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

/**
 * RSS or Atom items, a batch per chunk. An item's attributes are its child elements in the `g`
 * namespace; RSS's own `title`/`link`/`description` and Atom's `title`/`link href`/`summary`/`id`
 * stand in for a `g:` attribute the item lacks. A `g:` element with children (`g:shipping`) counts
 * as one attribute with text.
 */
async function* readXml(first: string, rest: AsyncIterator<string>, ctx: ImportContext): AsyncGenerator<Item[]> {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const xml = new XmlItems(parser);
  parser.on('error', (e) => {
    // saxes prefixes its message with the position (and a file name when given one): the error names it already.
    const message = e.message.replace(/^(?:[^:]*:)?\d+:\d+: /, '');
    const unclosed = /^unclosed tag: (.+)$/.exec(message);
    throw new ImportParseError(
      unclosed ? `the file ends inside <${unclosed[1]}>, never closed: it was cut short (or a closing tag is missing); export or download it again` : message,
      parser.line,
      parser.column + 1,
    );
  });
  for await (const chunk of allChunks(first, rest)) {
    parser.write(chunk);
    yield xml.take();
  }
  parser.close();
  yield xml.take();
  if (!xml.sawGoogleItem) throw new ImportParseError(NOT_A_FEED);
  const { title, link } = xml.channel;
  if (title || link) ctx.hint({ name: title, storefrontUrl: link && /^https?:\/\/\S+$/.test(link) ? link.replace(/\/+$/, '') : undefined });
}

/** The saxes event handlers: the element path, the item being read and the feed's own title and link. */
class XmlItems {
  readonly channel: { title?: string; link?: string } = {};
  sawGoogleItem = false;
  private ready: Item[] = [];
  private depth = 0;
  private item?: Item;
  private itemDepth = 0;
  private field?: { name: string; text: string };

  constructor(parser: SaxesParser<{ xmlns: true; position: true }>) {
    parser.on('opentag', (tag) => this.open(tag));
    parser.on('closetag', () => this.close());
    parser.on('text', (t) => this.text(t));
    parser.on('cdata', (t) => this.text(t));
  }

  take(): Item[] {
    const out = this.ready;
    this.ready = [];
    return out;
  }

  private open(tag: SaxesTagNS): void {
    this.depth++;
    if (this.depth === 1 && !['rss', 'feed', 'RDF'].includes(tag.local)) throw new ImportParseError(`${NOT_A_FEED} (the root element is <${tag.name}>)`);
    if (!this.item && (tag.local === 'item' || tag.local === 'entry')) {
      this.item = new Map();
      this.itemDepth = this.depth;
    } else if (this.depth === this.itemDepth + 1 && this.item) {
      // Other namespaces' elements are kept under a `~` name: fallbacks for title, link, description, id.
      this.field = { name: tag.uri === G_NS ? tag.local : `~${tag.local}`, text: '' };
      const href = tag.attributes.href?.value;
      const rel = tag.attributes.rel?.value ?? 'alternate';
      if (tag.local === 'link' && href && rel === 'alternate') this.field.text = href;
    } else if (!this.item && tag.uri !== G_NS && (tag.local === 'title' || tag.local === 'link') && this.depth <= 3) {
      this.field = { name: `channel:${tag.local}`, text: '' };
      const href = tag.attributes.href?.value;
      if (href && (tag.attributes.rel?.value ?? 'alternate') === 'alternate') this.field.text = href;
    }
  }

  private text(t: string): void {
    if (this.field) this.field.text += t;
  }

  private close(): void {
    if (this.field && (this.depth === this.itemDepth + 1 || this.field.name.startsWith('channel:'))) {
      const value = this.field.text.trim();
      if (this.field.name === 'channel:title') this.channel.title ??= value || undefined;
      else if (this.field.name === 'channel:link') this.channel.link ??= value || undefined;
      else if (value && this.item) push(this.item, this.field.name, value);
      this.field = undefined;
    } else if (this.item && this.depth === this.itemDepth) {
      this.finishItem(this.item);
      this.item = undefined;
      this.itemDepth = 0;
    }
    this.depth--;
  }

  /** RSS/Atom stand-ins fill what `g:` left empty; the item counts as Google's when it has any `g:` attribute. */
  private finishItem(item: Item): void {
    const fallbacks: Array<[string, string[]]> = [['title', ['~title']], ['link', ['~link']], ['description', ['~description', '~summary', '~content']], ['id', ['~id']]];
    if ([...item.keys()].some((k) => !k.startsWith('~'))) this.sawGoogleItem = true;
    for (const [name, from] of fallbacks) {
      const value = from.map((f) => item.get(f)?.[0]).find(Boolean);
      if (!item.has(name) && value) item.set(name, [value]);
    }
    for (const key of [...item.keys()]) if (key.startsWith('~')) item.delete(key);
    this.ready.push(item);
  }
}

/**
 * Tab-separated items, a batch per chunk. The header row names the attributes (`image link` and
 * `image_link` alike); `additional_image_link` holds several addresses separated by commas.
 */
async function* readTsv(first: string, rest: AsyncIterator<string>): AsyncGenerator<Item[]> {
  // The line each whole row ends on, noted as csv-parse reads it (rows may still wait in its buffer when it fails).
  const at = { line: 0 };
  let header: string[] | undefined;
  try {
    for await (const record of delimitedRows(allChunks(first, rest), { delimiter: '\t', relax_quotes: true }, { at })) {
      if (header) {
        yield [tsvItem(header, record)];
        continue;
      }
      header = record.map((h) => h.trim().toLowerCase().replace(/^g:/, '').replace(/\s+/g, '_'));
      if (!header.includes('id') || !(header.includes('title') || header.includes('price'))) throw new ImportParseError(NOT_A_FEED, 1);
    }
  } catch (e) {
    throw tsvError(e, at.line, header);
  }
}

function tsvItem(header: string[], record: string[]): Item {
  const item: Item = new Map();
  header.forEach((name, i) => {
    const value = record[i]?.trim();
    if (!value || !name) return;
    for (const v of name === 'additional_image_link' ? splitList(value) : [value]) push(item, name, v);
  });
  return item;
}

/** csv-parse's error placed where the broken row starts (the line after the last whole row). */
function tsvError(e: unknown, lastLine: number, header?: string[]): unknown {
  if (e instanceof ImportParseError || !(e instanceof Error)) return e;
  const err = e as Error & { code?: string; column?: number };
  const line = lastLine + 1;
  if (err.code === 'CSV_QUOTE_NOT_CLOSED') {
    const column = header && err.column !== undefined ? ` (column ${header[err.column] ?? err.column + 1})` : '';
    return new ImportParseError(`a quoted value${column} is never closed: the file is cut inside a quoted field`, line);
  }
  return new ImportParseError(err.message, line);
}

// ---------------------------------------------------------------------------------------------
// Items to products

/** Items of one group (or one ungrouped item) as a product; undefined when no item can be sold. */
function toProduct(id: string, items: Item[], ctx: ImportContext): StoredProduct | undefined {
  const grouped = items.some((i) => one(i, 'item_group_id'));
  const sold = items.map((item) => ({ item, variant: toVariant(item, id, ctx) })).filter((s): s is { item: Item; variant: StoredVariant } => !!s.variant);
  if (!sold.length) return undefined;
  const first = sold[0].item;
  const options = groupOptions(sold.map((s) => s.item), ctx);
  for (const { item, variant } of sold) {
    for (const o of options) {
      const value = one(item, o.name);
      if (value) variant.options[o.name] = o.values.find((v) => v.label === value)!.id;
    }
  }
  const title = grouped ? groupTitle(sold.map((s) => one(s.item, 'title') ?? '')) || one(first, 'title') || id : one(first, 'title') || id;
  const text = describe(one(first, 'description'));
  const product: StoredProduct = {
    id,
    handle: slugify(id) || slugify(title) || 'product',
    title,
    description: text.plain ?? title,
    categories: categories(sold.map((s) => s.item), ctx),
    variants: sold.map((s) => s.variant),
  };
  if (text.html) product.description_html = text.html;
  const brand = one(first, 'brand');
  if (brand) product.brand = brand.slice(0, 200);
  const url = pageUrl(one(first, 'link'), ctx);
  if (url) product.url = url;
  const media = images(first);
  if (media.length) product.media = media;
  if (options.length) product.options = options.map((o) => ({ name: o.name, label: LABELS[o.name], values: o.values }));
  const status = productStatus(sold.map((s) => s.item));
  if (status) product.status = status;
  for (const { item, variant } of grouped ? sold : []) {
    const own = images(item);
    if (own.length) variant.media = own;
    const link = pageUrl(one(item, 'link'), ctx);
    if (link) variant.url = link;
    const variantText = describe(one(item, 'description')).plain;
    if (variantText && variantText !== product.description) variant.description = variantText;
  }
  return product;
}

/** One item as a variant, or undefined (skipped with the reason) when its price cannot be carried. */
function toVariant(item: Item, productId: string, ctx: ImportContext): StoredVariant | undefined {
  const sku = one(item, 'id')!;
  const itemId = toId(sku);
  if (!itemId) return void ctx.report.skip(`id ${sku}`, 'the id has no letters or digits to make an id from');
  const price = itemPrice(item, ctx);
  if ('reason' in price) return void ctx.report.skip(`id ${sku}`, price.reason);
  // A variant never shares its product's id: an ungrouped item's product takes the item id.
  const id = itemId === productId ? `${itemId.slice(0, 120)}-default` : itemId;
  const variant: StoredVariant = { id, sku, options: {}, price: price.price };
  if (price.list !== undefined) variant.list_price = price.list;
  const title = one(item, 'title');
  if (title && one(item, 'item_group_id')) variant.title = title;
  const status = availability(item, sku, ctx);
  if (status) variant.status = status;
  if (pause(item) === 'all') variant.status = 'discontinued';
  const barcodes = [...(item.get('gtin') ?? []).map((v) => ({ type: barcodeType(v), value: v })), ...(item.get('mpn') ?? []).map((v) => ({ type: 'mpn', value: v }))].filter((b) => {
    if (!isExcelMangled(b.value)) return true;
    ctx.report.warn(`id ${sku}: ${b.type} ${b.value} was rewritten by a spreadsheet (digits lost); not carried`);
    return false;
  });
  if (barcodes.length) variant.barcodes = barcodes;
  return variant;
}

/** `sale_price` while its effective dates include now, else `price`; `price` stays as the list price only above it. */
function itemPrice(item: Item, ctx: ImportContext): { price: number; list?: number } | { reason: string } {
  const priceText = one(item, 'price');
  if (!priceText) return { reason: 'no price' };
  const regular = ctx.money(priceText);
  if (!regular.ok) return { reason: `price ${priceText}: ${regular.reason}` };
  const saleText = one(item, 'sale_price');
  if (!saleText || !saleEffective(one(item, 'sale_price_effective_date'), one(item, 'id')!, ctx)) return { price: regular.minor };
  const sale = ctx.money(saleText);
  if (!sale.ok) return { reason: `sale_price ${saleText}: ${sale.reason}` };
  return regular.minor > sale.minor ? { price: sale.minor, list: regular.minor } : { price: sale.minor };
}

/** `start/end` (ISO 8601, either side may be open): does it include now? No range: always. */
function saleEffective(range: string | undefined, id: string, ctx: ImportContext, now = Date.now()): boolean {
  if (!range) return true;
  const [from, to] = range.split('/').map((s) => s.trim());
  const start = from ? Date.parse(from) : -Infinity;
  const end = to ? Date.parse(to) : Infinity;
  if (Number.isNaN(start) || Number.isNaN(end)) {
    ctx.report.warn(`id ${id}: sale_price_effective_date ${range} is not a date range; the regular price is used`);
    return false;
  }
  return start <= now && now < end;
}

function availability(item: Item, id: string, ctx: ImportContext): StoredVariant['status'] | undefined {
  const value = one(item, 'availability');
  if (!value) return undefined;
  const status = AVAILABILITY[value.toLowerCase().replace(/[\s-]+/g, '_')];
  if (status === undefined) ctx.report.warn(`id ${id}: availability ${value} is not one of in_stock, out_of_stock, preorder, backorder; left unset`);
  return status ?? undefined;
}

function pause(item: Item): string | undefined {
  return one(item, 'pause')?.toLowerCase();
}

/**
 * `unavailable` when every item is paused for all destinations; `hidden` when every item is kept
 * out of free listings (shown in ads only: reachable by its link, not offered in search).
 */
function productStatus(items: Item[]): StoredProduct['status'] | undefined {
  if (items.every((i) => pause(i) === 'all')) return 'unavailable';
  const adsOnly = (i: Item) => {
    const norm = (k: string) => (i.get(k) ?? []).flatMap((v) => splitList(v)).map((v) => v.toLowerCase().replace(/\s+/g, '_'));
    const included = norm('included_destination');
    return norm('excluded_destination').includes('free_listings') || (included.length > 0 && !included.includes('free_listings'));
  };
  return items.every(adsOnly) ? 'hidden' : undefined;
}

/** color, size, material, pattern as they appear; age_group and gender only where they differ within the group. */
function groupOptions(items: Item[], ctx: ImportContext): Array<{ name: string; values: Array<{ id: string; label: string }> }> {
  const out: Array<{ name: string; values: Array<{ id: string; label: string }> }> = [];
  for (const name of [...OPTIONS, ...AUDIENCE]) {
    const labels = [...new Set(items.map((i) => one(i, name)).filter((v): v is string => !!v))];
    if (!labels.length) continue;
    if ((AUDIENCE as readonly string[]).includes(name) && labels.length < 2 && items.every((i) => one(i, name))) {
      ctx.report.drop(name, items.length);
      continue;
    }
    const ids = new Set<string>();
    const values = labels.map((label, n) => {
      let id = slugify(label) || `value-${n + 1}`;
      if (ids.has(id)) id = `${id}-${n + 1}`;
      ids.add(id);
      return { id, label };
    });
    out.push({ name, values });
  }
  return out;
}

/**
 * A group's title: the text all its items' titles start with, cut back to the last separator
 * (` - `, `|`, `,`, `(`, `/`) or word it ends in when the titles go on differently after it, then
 * trimmed of separators. "Roma Jeans - Size 8 Standard" and "Roma Jeans - Size 8 Tall" give
 * "Roma Jeans". '' when they share nothing (the caller takes the first item's title).
 */
export function groupTitle(titles: string[]): string {
  const [first, ...others] = titles.filter(Boolean);
  if (!first) return '';
  let n = first.length;
  for (const t of others) {
    let i = 0;
    while (i < n && i < t.length && t[i] === first[i]) i++;
    n = i;
  }
  let prefix = first.slice(0, n);
  if (titles.some((t) => t.length > n)) {
    const separator = Math.max(...[' - ', ' – ', ' — ', '|', ',', '(', '/', ':'].map((s) => prefix.lastIndexOf(s)));
    prefix = separator > 0 ? prefix.slice(0, separator) : prefix.slice(0, Math.max(0, prefix.lastIndexOf(' ')));
  }
  return prefix.replace(/[\s\-–—|,(/:]+$/, '').trim();
}

/** product_type paths and a text google_product_category, split on `>`, deduplicated in order; a numeric category id is dropped. */
function categories(items: Item[], ctx: ImportContext): string[] {
  const out: string[] = [];
  for (const item of items) {
    const paths = [...(item.get('product_type') ?? [])];
    for (const c of item.get('google_product_category') ?? []) {
      if (/^\d+$/.test(c)) ctx.report.drop('google_product_category');
      else paths.push(c);
    }
    for (const segment of paths.flatMap((p) => p.split('>').map((s) => s.trim()))) if (segment && !out.includes(segment)) out.push(segment);
  }
  return out;
}

/** `image_link` then every `additional_image_link`, in file order, each address once. */
function images(item: Item): NonNullable<StoredProduct['media']> {
  const urls = [...(item.get('image_link') ?? []), ...(item.get('additional_image_link') ?? [])];
  return [...new Set(urls)].map((url) => ({ type: 'image' as const, url }));
}

function pageUrl(link: string | undefined, ctx: ImportContext): string | undefined {
  if (!link) return undefined;
  if (/^https?:\/\/\S+$/.test(link)) return link;
  ctx.report.warn(`link ${link} is not an absolute http(s) address; not carried`);
  return undefined;
}

/** Attributes with a value that no field carries, counted per item by name (`shipping`, `condition`, `custom_label_0`). */
function countDropped(item: Item, ctx: ImportContext): void {
  for (const name of item.keys()) if (!CARRIED.has(name) && !(AUDIENCE as readonly string[]).includes(name)) ctx.report.drop(name);
}

function one(item: Item, name: string): string | undefined {
  return item.get(name)?.[0];
}

function push(item: Item, name: string, value: string): void {
  const values = item.get(name);
  if (values) values.push(value);
  else item.set(name, [value]);
}

function ref(item: Item): string {
  const title = one(item, 'title');
  return title ? `title ${title}` : 'an item';
}
