/**
 * schema.org Product data in JSON-LD (docs/import-formats/jsonld.md): a JSON document (an object,
 * an array or an `@graph`), or an HTML page with `<script type="application/ld+json">` blocks.
 * Pages stream through htmlparser2 and only the script blocks' text is held; a JSON document is
 * one value and is parsed whole. `Product`s and `ProductGroup`s (with `hasVariant`, or variants
 * pointing back with `isVariantOf`/`inProductGroupWithID`) become products once the whole input
 * is read, since a variant may name its group in a later block. Other types are ignored, except
 * that a `WebSite` or `Organization` names the shop.
 */
import { Parser } from 'htmlparser2';
import type { StoredProduct, StoredVariant } from '../formats/catalog-format.ts';
import { ImportParseError, type Adapter, type ImportContext } from './adapter.ts';
import { barcodeType, describe, isExcelMangled, slugify, toId } from './text.ts';

type Node = Record<string, unknown>;
type Media = NonNullable<StoredProduct['media']>;

const NO_PRODUCT = 'no schema.org Product in the document';
const PRODUCT_TYPES = new Set(['Product', 'IndividualProduct', 'ProductModel', 'SomeProducts', 'Vehicle', 'Car', 'Motorcycle']);
const GTINS = ['gtin', 'gtin8', 'gtin12', 'gtin13', 'gtin14'] as const;
/** Properties some field carries; any other property of a product or offer is counted as dropped. */
const PRODUCT_CARRIED = new Set(['@context', '@type', '@id', 'name', 'description', 'sku', ...GTINS, 'mpn', 'brand', 'image', 'url', 'offers', 'aggregateRating', 'category', 'color', 'size', 'material', 'pattern', 'productGroupID', 'variesBy', 'hasVariant', 'isVariantOf', 'inProductGroupWithID']);
const OFFER_CARRIED = new Set(['@context', '@type', '@id', 'price', 'priceCurrency', 'priceSpecification', 'availability', 'url', 'sku', ...GTINS, 'mpn', 'lowPrice', 'offers', 'offerCount', 'name']);
/** Properties that become options when `variesBy` does not name them, in this order. */
const DEFAULT_OPTIONS = ['color', 'size', 'material', 'pattern'];
/** `offers.availability` to variant status; in stock (and the like) is no status at all: untracked inventory. */
const AVAILABILITY: Record<string, StoredVariant['status'] | null> = {
  InStock: null,
  InStoreOnly: null,
  OnlineOnly: null,
  LimitedAvailability: null,
  OutOfStock: 'out_of_stock',
  SoldOut: 'out_of_stock',
  PreOrder: 'preorder',
  PreSale: 'preorder',
  BackOrder: 'backorder',
  Discontinued: 'discontinued',
};

export const jsonld: Adapter = {
  format: 'jsonld',
  async *read(chunks, ctx) {
    const graph = new Graph();
    let head = '';
    const rest = chunks[Symbol.asyncIterator]();
    for (let next = await rest.next(); !next.done && !head.trim(); next = await rest.next()) head += next.value;
    const text = head.replace(/^\ufeff/, '');
    if (/^\s*[[{]/.test(text)) {
      // One JSON value: it can only be parsed whole.
      let all = text;
      for (let next = await rest.next(); !next.done; next = await rest.next()) all += next.value;
      graph.add(parseBlock(all, 1), ctx);
    } else {
      await readHtml(text, rest, (block, line) => graph.add(parseBlock(block, line), ctx));
    }
    if (!graph.products.length && !graph.groups.length) throw new ImportParseError(NO_PRODUCT);
    graph.hint(ctx);
    yield* graph.build(ctx);
  },
};

/** The page's ld+json blocks, each with the line its text starts on. */
async function readHtml(first: string, rest: AsyncIterator<string>, onBlock: (text: string, line: number) => void): Promise<void> {
  let offset = 0;
  let line = 1;
  let chunk = first;
  let block: { text: string; line: number } | undefined;
  const parser = new Parser({
    onopentag(name, attribs) {
      if (name !== 'script' || !/^application\/ld\+json\b/i.test((attribs.type ?? '').trim())) return;
      // The open tag ends in the chunk being written (its '>' fired this event): count lines up to it.
      const end = Math.max(0, parser.endIndex + 1 - offset);
      block = { text: '', line: line + (chunk.slice(0, end).match(/\n/g)?.length ?? 0) };
    },
    ontext(text) {
      if (block) block.text += text;
    },
    onclosetag(name) {
      if (name === 'script' && block) {
        const b = block;
        block = undefined;
        onBlock(b.text, b.line);
      }
    },
  });
  for (;;) {
    parser.write(chunk);
    offset += chunk.length;
    line += chunk.match(/\n/g)?.length ?? 0;
    const next = await rest.next();
    if (next.done) break;
    chunk = next.value;
  }
  parser.end();
}

/** A block's JSON, or ImportParseError at the line (and column) of the page where it breaks. */
function parseBlock(text: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    const at = /position (\d+)/.exec(message);
    const reason = `an ld+json block is not valid JSON: ${message}`;
    if (!at) return fail(reason, line);
    const before = text.slice(0, Number(at[1]));
    const lines = before.split('\n');
    return fail(reason, line + lines.length - 1, lines.length > 1 ? lines[lines.length - 1].length + 1 : undefined);
  }
}

function fail(reason: string, line: number, column?: number): never {
  throw new ImportParseError(reason, line, column);
}

/** Every Product and ProductGroup found, the groups by @id and productGroupID, and the shop's name and site. */
class Graph {
  readonly products: Node[] = [];
  readonly groups: Node[] = [];
  private readonly byId = new Map<string, Node>();
  private site: { name?: string; url?: string } = {};

  add(value: unknown, ctx: ImportContext): void {
    for (const node of nodes(value)) this.visit(node, ctx);
  }

  /** A node of interest, or any other node whose properties may hold one (WebPage.mainEntity, ItemList). */
  private visit(node: Node, ctx: ImportContext): void {
    const types = typesOf(node);
    const id = str(node['@id']);
    if (id) this.byId.set(id, node);
    if (types.includes('ProductGroup')) return void this.groups.push(node);
    if (types.some((t) => PRODUCT_TYPES.has(t))) return void this.products.push(node);
    if (types.includes('WebSite') || (types.includes('Organization') && !this.site.name)) {
      this.site = { name: str(prop(node, 'name')) ?? this.site.name, url: str(prop(node, 'url')) ?? this.site.url };
    }
    for (const [key, value] of Object.entries(node)) if (!key.startsWith('@')) for (const child of nodes(value)) this.visit(child, ctx);
  }

  hint(ctx: ImportContext): void {
    const url = this.site.url && /^https?:\/\/\S+$/.test(this.site.url) ? this.site.url.replace(/\/+$/, '') : undefined;
    if (this.site.name || url) ctx.hint({ name: this.site.name, storefrontUrl: url });
  }

  /** Groups with their variants (nested, or pointing back), then the products that are no group's variant. */
  *build(ctx: ImportContext): Generator<StoredProduct> {
    const claimed = new Set<Node>();
    for (const group of this.groups) {
      const variants = this.variantsOf(group, claimed, ctx);
      const product = groupProduct(group, variants, ctx);
      if (product) yield product;
    }
    for (const node of this.products) {
      if (claimed.has(node)) continue;
      const product = singleProduct(node, ctx);
      if (product) yield product;
    }
  }

  private variantsOf(group: Node, claimed: Set<Node>, ctx: ImportContext): Node[] {
    const out: Node[] = [];
    for (const v of nodes(prop(group, 'hasVariant'))) {
      const full = str(v['@id']) && !prop(v, 'offers') ? this.byId.get(str(v['@id'])!) ?? v : v;
      // A variant given only by its link (`{"url": ...}`, another page's variant) has nothing to sell here.
      if (!prop(full, 'offers') && !prop(full, 'name')) ctx.report.warn(`a variant of ${label(group)} is only a link (${str(prop(full, 'url')) ?? str(full['@id']) ?? '?'}); not imported from this page`);
      else out.push(full);
      claimed.add(full);
    }
    const groupId = str(prop(group, 'productGroupID'));
    for (const p of this.products) {
      if (claimed.has(p)) continue;
      const of = prop(p, 'isVariantOf') as Node | undefined;
      const ofId = of && typeof of === 'object' ? str(of['@id']) : undefined;
      const matches = (ofId && ofId === str(group['@id'])) || (groupId && str(prop(p, 'inProductGroupWithID')) === groupId) || of === group;
      if (matches) {
        out.push(p);
        claimed.add(p);
      }
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// Products

/** A ProductGroup and its variants as one product; undefined (skipped) when no variant has a usable price. */
function groupProduct(group: Node, variantNodes: Node[], ctx: ImportContext): StoredProduct | undefined {
  const id = productId(group);
  if (!id) return void ctx.report.skip(label(group), 'no productGroupID, sku, @id, url or name to make an id from');
  countDropped(group, PRODUCT_CARRIED, '', ctx);
  const options = toOptions(optionNames(group, variantNodes), variantNodes);
  // color/size/material/pattern that are not options (the group's common `material`) are carried nowhere.
  const unused = DEFAULT_OPTIONS.filter((n) => !options.some((o) => o.name === n));
  for (const n of unused) if (optionLabel(prop(group, n))) ctx.report.drop(n);
  const variants: StoredVariant[] = [];
  for (const node of variantNodes) {
    countDropped(node, PRODUCT_CARRIED, '', ctx);
    for (const n of unused) if (optionLabel(prop(node, n))) ctx.report.drop(n);
    for (const v of offerVariants(node, id, ctx)) {
      v.title = str(prop(node, 'name')) ?? v.title;
      const media = images(node, ctx);
      if (media.length) v.media = media;
      const text = describe(str(prop(node, 'description'))).plain;
      if (text) v.description = text;
      variants.push(withOptions(v, node, options));
    }
  }
  if (!variants.length) return void ctx.report.skip(label(group), 'no variant with a usable price');
  uniqueIds(variants, id);
  const first = variantNodes[0];
  const product = baseProduct(group, id, str(prop(group, 'name')) ?? str(prop(first, 'name')) ?? id, variants, ctx);
  if (!product.media) {
    const media = images(first, ctx);
    if (media.length) product.media = media;
  }
  for (const v of variants) if (v.description === product.description) delete v.description;
  if (options.length) product.options = options;
  return product;
}

/** A Product that is no group's variant: one variant per priced offer (a page's offers per variant), or one. */
function singleProduct(node: Node, ctx: ImportContext): StoredProduct | undefined {
  const id = productId(node);
  if (!id) return void ctx.report.skip(label(node), 'no sku, @id, url or name to make an id from');
  countDropped(node, PRODUCT_CARRIED, '', ctx);
  const variants = offerVariants(node, id, ctx);
  if (!variants.length) return undefined;
  uniqueIds(variants, id);
  const options = toOptions(DEFAULT_OPTIONS, [node]);
  for (const v of variants) withOptions(v, node, options);
  const product = baseProduct(node, id, str(prop(node, 'name')) ?? id, variants, ctx);
  if (options.length) product.options = options;
  return product;
}

/** The fields a product and a group share: texts, brand, page, images, categories, rating. */
function baseProduct(node: Node, id: string, title: string, variants: StoredVariant[], ctx: ImportContext): StoredProduct {
  const text = describe(str(prop(node, 'description')));
  const product: StoredProduct = { id, handle: slugify(id) || slugify(title) || 'product', title, description: text.plain ?? title, categories: categories(node, ctx), variants };
  if (text.html) product.description_html = text.html;
  const brand = nameOf(prop(node, 'brand'));
  if (brand) product.brand = brand.slice(0, 200);
  const url = pageUrl(str(prop(node, 'url')), ctx) ?? (variants.length === 1 ? variants[0].url : undefined);
  if (url) product.url = url;
  if (product.url && variants.length === 1 && variants[0].url === product.url) delete variants[0].url;
  const media = images(node, ctx);
  if (media.length) product.media = media;
  const rating = ratingOf(prop(node, 'aggregateRating'), ctx);
  if (rating) product.rating = rating;
  return product;
}

/**
 * A product's offers as variants: each Offer (or each offer inside an AggregateOffer) with its
 * own usable price; an AggregateOffer whose offers carry no price sells at its `lowPrice`. Every
 * offer without a usable price is skipped with the reason; an offer's own sku/gtin/url win.
 */
function offerVariants(node: Node, productId: string, ctx: ImportContext): StoredVariant[] {
  const ref = label(node);
  const offers = nodes(prop(node, 'offers'));
  if (!offers.length) {
    ctx.report.skip(ref, 'no offers: no price to sell at');
    return [];
  }
  const out: StoredVariant[] = [];
  const reasons: string[] = [];
  for (const offer of offers) {
    const inner = nodes(prop(offer, 'offers')).filter((o) => prop(o, 'price') !== undefined || prop(o, 'priceSpecification') !== undefined);
    const sellable = typesOf(offer).includes('AggregateOffer') && inner.length ? inner.map((o) => ({ ...o, priceCurrency: prop(o, 'priceCurrency') ?? prop(offer, 'priceCurrency') })) : [offer];
    for (const o of sellable) {
      countDropped(o, OFFER_CARRIED, 'offers.', ctx);
      const price = offerPrice(o, ctx);
      if ('reason' in price) {
        reasons.push(price.reason);
        continue;
      }
      out.push(offerVariant(node, o, productId, price, ctx));
    }
  }
  if (!out.length) ctx.report.skip(ref, reasons[0] ?? 'no usable price');
  else for (const reason of reasons) ctx.report.skip(`${ref} (an offer)`, reason);
  return out;
}

function offerVariant(node: Node, offer: Node, productId: string, price: { price: number; list?: number }, ctx: ImportContext): StoredVariant {
  const sku = str(prop(offer, 'sku')) ?? str(prop(node, 'sku'));
  const key = toId(sku ?? '') || iriKey(str(offer['@id']) ?? str(node['@id'])) || productId;
  const variant: StoredVariant = { id: key === productId ? `${key.slice(0, 120)}-default` : key, options: {}, price: price.price };
  if (sku) variant.sku = sku;
  if (price.list !== undefined) variant.list_price = price.list;
  const status = availability(str(prop(offer, 'availability')), label(node), ctx);
  if (status) variant.status = status;
  const barcodes = barcodesOf(offer, ctx).length ? barcodesOf(offer, ctx) : barcodesOf(node, ctx);
  if (barcodes.length) variant.barcodes = barcodes;
  const url = pageUrl(str(prop(offer, 'url')), ctx);
  if (url) variant.url = url;
  const name = str(prop(offer, 'name'));
  if (name) variant.title = name;
  return variant;
}

/**
 * An offer's price in the shop currency: `price`, else its `priceSpecification` (one or several;
 * those valid now; a ListPrice/StrikethroughPrice one is the list price), else an AggregateOffer's
 * `lowPrice`. The currency travels with the amount, so another currency is refused, not converted.
 */
function offerPrice(offer: Node, ctx: ImportContext): { price: number; list?: number } | { reason: string } {
  const currency = str(prop(offer, 'priceCurrency'));
  const specs = nodes(prop(offer, 'priceSpecification')).flatMap((s) => [s, ...nodes(prop(s, 'priceComponent'))]).filter(validNow);
  const isList = (s: Node) => /(ListPrice|StrikethroughPrice|MSRP|SRP)$/.test(str(prop(s, 'priceType')) ?? '');
  const sale = prop(offer, 'price') !== undefined ? offer : specs.find((s) => !isList(s) && prop(s, 'price') !== undefined);
  const amount = sale ? prop(sale, 'price') : prop(offer, 'lowPrice');
  if (amount === undefined || amount === null || amount === '') return { reason: 'no price in its offer' };
  const money = (value: unknown, cur?: string) => ctx.money(`${String(value)}${cur ? ` ${cur}` : ''}`);
  const main = money(amount, (sale && str(prop(sale, 'priceCurrency'))) ?? currency);
  if (!main.ok) return { reason: `price ${String(amount)} ${currency ?? ''}`.trim() + `: ${main.reason}` };
  const listSpec = specs.find((s) => isList(s) && prop(s, 'price') !== undefined);
  const list = listSpec ? money(prop(listSpec, 'price'), str(prop(listSpec, 'priceCurrency')) ?? currency) : undefined;
  return list?.ok && list.minor > main.minor ? { price: main.minor, list: list.minor } : { price: main.minor };
}

function validNow(spec: Node): boolean {
  const now = Date.now();
  const from = Date.parse(str(prop(spec, 'validFrom')) ?? '');
  const to = Date.parse(str(prop(spec, 'validThrough')) ?? '');
  return !(from > now) && !(to < now);
}

function availability(value: string | undefined, ref: string, ctx: ImportContext): StoredVariant['status'] | undefined {
  if (!value) return undefined;
  const name = value.replace(/^(https?:\/\/schema\.org\/|schema:)/, '');
  const status = AVAILABILITY[name];
  if (status === undefined) ctx.report.warn(`${ref}: availability ${value} is not a schema.org ItemAvailability we know; left unset`);
  return status ?? undefined;
}

function barcodesOf(node: Node, ctx: ImportContext): NonNullable<StoredVariant['barcodes']> {
  const out: NonNullable<StoredVariant['barcodes']> = [];
  for (const name of [...GTINS, 'mpn'] as const) {
    const value = str(prop(node, name));
    if (!value) continue;
    if (isExcelMangled(value)) ctx.report.warn(`${label(node)}: ${name} ${value} was rewritten by a spreadsheet (digits lost); not carried`);
    else out.push({ type: name === 'mpn' ? 'mpn' : name === 'gtin' ? barcodeType(value) : name, value });
  }
  return out;
}

/** Option names: `variesBy` (`https://schema.org/size` or `size`), else color/size/material/pattern where the variants differ. */
function optionNames(group: Node, variants: Node[]): string[] {
  const named = list(prop(group, 'variesBy'))
    .map((v) => (typeof v === 'object' && v ? str((v as Node)['@id']) ?? str(prop(v as Node, 'name')) : str(v)))
    .filter((v): v is string => !!v)
    .map((v) => v.replace(/^.*[/#:]/, ''));
  if (named.length) return [...new Set(named)];
  return DEFAULT_OPTIONS.filter((n) => new Set(variants.map((v) => optionLabel(prop(v, n))).filter(Boolean)).size > 1);
}

function optionValues(variants: Node[], name: string): Array<{ id: string; label: string }> {
  const labels = [...new Set(variants.map((v) => optionLabel(prop(v, name))).filter((l): l is string => !!l))];
  const ids = new Set<string>();
  return labels.map((label, n) => {
    let id = slugify(label) || `value-${n + 1}`;
    if (ids.has(id)) id = `${id}-${n + 1}`;
    ids.add(id);
    return { id, label };
  });
}

/** The variant's value of each option, as that option's value id. */
function withOptions(variant: StoredVariant, node: Node, options: Option[]): StoredVariant {
  for (const option of options) {
    const value = optionLabel(prop(node, option.name));
    const id = option.values.find((v) => v.label === value)?.id;
    if (id) variant.options[option.name] = id;
  }
  return variant;
}

type Option = NonNullable<StoredProduct['options']>[number] & { values: Array<{ id: string; label: string }> };

function toOptions(names: string[], nodesWithValues: Node[]): Option[] {
  return names.map((name) => ({ name, label: name[0].toUpperCase() + name.slice(1), values: optionValues(nodesWithValues, name) })).filter((o) => o.values.length);
}

/** An option's text: a string, a number, or a `{name}`/`{value}` object (a SizeSpecification). */
function optionLabel(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (typeof v === 'string' || typeof v === 'number') return String(v).trim() || undefined;
  if (v && typeof v === 'object') return str(prop(v as Node, 'name')) ?? str(prop(v as Node, 'value'));
  return undefined;
}

/** Variant ids are unique within the product and never its id: a repeat gets its position. */
function uniqueIds(variants: StoredVariant[], productId: string): void {
  const seen = new Set([productId]);
  variants.forEach((v, n) => {
    if (seen.has(v.id)) v.id = `${v.id.slice(0, 120)}-${n + 1}`;
    seen.add(v.id);
  });
}

function productId(node: Node): string {
  const url = str(prop(node, 'url'));
  const segment = url ? decodeURIComponent(new URL(url, 'https://x.invalid').pathname.split('/').filter(Boolean).pop() ?? '') : '';
  return toId(str(prop(node, 'productGroupID')) ?? '') || toId(str(prop(node, 'sku')) ?? '') || iriKey(str(node['@id'])) || slugify(segment) || slugify(str(prop(node, 'name')) ?? '');
}

/** A readable key from an @id: its fragment (`#coat_parent`), else its last path segment. */
function iriKey(iri: string | undefined): string {
  if (!iri) return '';
  const [path, fragment] = iri.split('#');
  const segment = path.split('/').filter(Boolean).pop() ?? '';
  return toId(fragment || (/^[a-z][a-z0-9+.-]*:$/i.test(segment) ? '' : segment));
}

/** `category`: text paths split on `>` (a numeric category id is dropped), or `{name}` objects. */
function categories(node: Node, ctx: ImportContext): string[] {
  const out: string[] = [];
  for (const c of list(prop(node, 'category'))) {
    const text = typeof c === 'object' && c ? str(prop(c as Node, 'name')) : str(c);
    if (!text) continue;
    if (/^\d+$/.test(text)) ctx.report.drop('category');
    else for (const s of text.split('>').map((x) => x.trim())) if (s && !out.includes(s)) out.push(s);
  }
  return out;
}

/** `image`: addresses, or ImageObjects (`url`/`contentUrl`, `caption` as alt text), each once. */
function images(node: Node, ctx: ImportContext): Media {
  const out: Media = [];
  for (const image of list(prop(node, 'image'))) {
    const obj = typeof image === 'object' && image ? (image as Node) : undefined;
    const raw = obj ? str(prop(obj, 'url')) ?? str(prop(obj, 'contentUrl')) : str(image);
    const url = raw && resolve(raw, ctx);
    if (!url || out.some((m) => m.url === url)) continue;
    const caption = obj && str(prop(obj, 'caption'));
    out.push(caption ? { type: 'image', url, alt_text: caption } : { type: 'image', url });
  }
  return out;
}

function ratingOf(value: unknown, ctx: ImportContext): StoredProduct['rating'] | undefined {
  const r = nodes(value)[0];
  if (!r) return undefined;
  const v = Number(prop(r, 'ratingValue'));
  const max = Number(prop(r, 'bestRating') ?? 5);
  const count = Number(prop(r, 'reviewCount') ?? prop(r, 'ratingCount'));
  if (!Number.isFinite(v) || !Number.isFinite(max)) return void ctx.report.warn(`aggregateRating ${String(prop(r, 'ratingValue'))} is not a number; not carried`);
  return Number.isInteger(count) && count >= 0 ? { value: v, scale_max: max, count } : { value: v, scale_max: max };
}

/** An absolute address as is; a relative one on the shop's site when it is known, else as a storefront path. */
function resolve(url: string, ctx: ImportContext): string {
  if (/^https?:\/\//i.test(url)) return url;
  if (url.startsWith('//')) return `https:${url}`;
  const path = url.startsWith('/') ? url : `/${url}`;
  return ctx.storefrontUrl ? `${ctx.storefrontUrl}${path}` : path;
}

function pageUrl(url: string | undefined, ctx: ImportContext): string | undefined {
  if (!url) return undefined;
  const absolute = resolve(url, ctx);
  if (/^https?:\/\/\S+$/.test(absolute)) return absolute;
  ctx.report.warn(`url ${url} is not an absolute http(s) address and the shop's site is not known; not carried`);
  return undefined;
}

/** Properties with a value that no field carries, by name (`review`, `audience`, `offers.itemCondition`). */
function countDropped(node: Node, carried: Set<string>, prefix: string, ctx: ImportContext): void {
  for (const [key, value] of Object.entries(node)) {
    const name = key.replace(/^(https?:\/\/schema\.org\/|schema:)/, '');
    if (!carried.has(name) && value !== null && value !== '') ctx.report.drop(prefix + name);
  }
}

// ---------------------------------------------------------------------------------------------
// JSON-LD reading helpers

/** The nodes in a value: an object, an array of them, or an `@graph`. */
function nodes(value: unknown): Node[] {
  if (Array.isArray(value)) return value.flatMap(nodes);
  if (!value || typeof value !== 'object') return [];
  const node = value as Node;
  return Array.isArray(node['@graph']) ? nodes(node['@graph']) : [node];
}

function list(value: unknown): unknown[] {
  return value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
}

function typesOf(node: Node): string[] {
  return list(node['@type']).map((t) => String(t).replace(/^(https?:\/\/schema\.org\/|schema:)/, ''));
}

/** A schema.org property by its short name, its `schema:` form or its full IRI; `{"@value": x}` unwrapped. */
function prop(node: Node, name: string): unknown {
  const v = node[name] ?? node[`schema:${name}`] ?? node[`https://schema.org/${name}`] ?? node[`http://schema.org/${name}`];
  return v && typeof v === 'object' && !Array.isArray(v) && '@value' in v ? (v as Node)['@value'] : v;
}

function str(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

/** A brand: text, or a Brand/Organization `{name}`. */
function nameOf(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'object' && v ? str(prop(v as Node, 'name')) : str(v);
}

function label(node: Node): string {
  const sku = str(prop(node, 'sku'));
  if (sku) return `sku ${sku}`;
  const name = str(prop(node, 'name'));
  return name ? `name ${name}` : `@id ${str(node['@id']) ?? '(none)'}`;
}
