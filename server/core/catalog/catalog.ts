/**
 * Catalog operations: search, lookup and single product, for one shop. Every query is scoped by
 * shop_id, which is what keeps shops from seeing each other's products.
 */
import { sql, type RawBuilder } from 'kysely';
import type { DB } from '../../db/index.ts';
import { isSingleWriter } from '../../db/index.ts';
import { serializedOnce } from '../../lib/json-fragments.ts';
import type { Product } from '../../../src/wire/catalog.ts';
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, LOOKUP_MAX_IDS, type GetProductRequest, type LookupRequest, type SearchRequest } from '../../../src/wire/catalog.ts';
import type { Message } from '../../../src/wire/common.ts';
import type { Shop, StoredProduct, StoredVariant } from '../../formats/types.ts';
import { allLanguages, type Locale } from '../shared/localize.ts';
import { BusinessError, InvalidRequest, RequestTooLarge } from '../shared/errors.ts';
import { convert } from '../shared/money.ts';
import { featuredVariant, isAvailable, renderProduct, type RenderOptions } from '../products/products.ts';
import { cachedProducts, cachedVariants, type VariantHit } from '../products/product-cache.ts';
import { correctQuery, searchVocabulary } from '../search/search-correction.ts';
import { catalogIndex, parseQuery } from '../search/catalog-index.ts';
import type { IndexFilters } from '../search/search-index.ts';

/** PostgreSQL text-search configuration per language; others fall back to 'simple'. */
const TS_CONFIG: Record<string, string> = { en: 'english', fr: 'french' };

function tsConfig(language: string): string {
  return TS_CONFIG[language.split('-')[0].toLowerCase()] ?? 'simple';
}

/**
 * Product documents are read as text and parsed here: on the embedded database this is about
 * twice as fast as letting the driver decode jsonb, and it is the same on both drivers.
 */
const docText = sql<string>`doc::text`.as('doc');
const docTextOf = (alias: string) => sql<string>`${sql.ref(`${alias}.doc`)}::text`.as('doc');
const parseDoc = (text: string): StoredProduct => JSON.parse(text) as StoredProduct;
/** Browsing shows what search would: no hidden or unavailable product (catalog-store.ts isListed). */
const LISTED = sql<boolean>`coalesce(doc->>'status', 'active') = 'active'`;

function renderOptions(shop: Shop, locale: Locale, origin: string): RenderOptions {
  return { locale, origin, defaultLanguage: shop.settings.default_language };
}

/** Cursors are opaque to clients: base64url JSON of the next offset. */
/** The cursor of the page that starts at `offset` (storefront pages link pages by number). */
export function cursorAt(offset: number): string {
  return encodeCursor(offset);
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeCursor(cursor: string, path: string): number {
  try {
    const { o } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o: unknown };
    if (typeof o === 'number' && Number.isInteger(o) && o >= 0 && o <= 1_000_000) return o;
  } catch {
    /* fall through */
  }
  throw new InvalidRequest('invalid_cursor', 'The pagination cursor is not one this server issued.', [
    { path, code: 'invalid_cursor', content: 'Unknown or malformed cursor; start again without one.' },
  ]);
}

/** Converts a price bound from the request currency back to the shop currency (inverse rate). */
function toBase(amount: number, locale: Locale, round: 'floor' | 'ceil'): number {
  if (locale.currency === locale.rates.base) return amount;
  const one = convert(1_000_000, locale.rates, locale.currency) / 1_000_000;
  return Math[round](amount / one);
}

type Filters = SearchRequest['filters'];

function applyFilters<QB extends { where: (...args: any[]) => QB }>(qb: QB, filters: Filters, locale: Locale): QB {
  let q = qb;
  const cats = filters?.categories?.filter(Boolean);
  if (cats?.length) q = q.where(sql<boolean>`categories ?| ${sql.val(cats)}::text[]`);
  const p = filters?.price;
  if (p?.min !== undefined) q = q.where('price_max', '>=', toBase(p.min, locale, 'floor'));
  if (p?.max !== undefined) q = q.where('price_min', '<=', toBase(p.max, locale, 'ceil'));
  return q;
}

export interface SearchResult {
  products: Product[];
  pagination: { has_next_page: boolean; cursor?: string };
  /** `query_corrected` (info) when the typo-tolerant second pass answered. */
  messages?: Message[];
}

/**
 * Search strategy in SQL (`databaseSearch`: before a shop's in-memory index is built, and for
 * phrases). Results never depend on it; tests turn these to force one path or the other:
 * - up to `sortAllUpTo` products, one query takes every match through the full-text index and sorts
 *   them (a few hundred rows at most: cheaper than any walk, and one round trip with the documents);
 * - above it, each tier walks the first `walkWindow` products in catalog order and stops at one page
 *   of hits. A walk costs about a microsecond a row, so a broad query (say 1 product in 20) is
 *   answered after a few hundred rows, where sorting every match of 100k products took 22 ms; a rare
 *   one would walk the whole catalog, so past the window the GIN indexes find its few hits directly.
 */
export const searchTuning = { walkWindow: 1000, sortAllUpTo: 20_000 };

/** Products per shop, for choosing the strategy: an estimate, refreshed every minute. */
const SIZE_TTL_MS = 60_000;
const sizes = new Map<string, { n: number; at: number }>();
async function catalogSize(db: DB, shop: Shop): Promise<number> {
  const hit = sizes.get(shop.id);
  if (hit && Date.now() - hit.at < SIZE_TTL_MS) return hit.n;
  const row = await db.selectFrom('product_search').select(sql<number>`count(*)::int`.as('n')).where('shop_id', '=', shop.id).executeTakeFirstOrThrow();
  if (sizes.size > 10_000) sizes.clear();
  sizes.set(shop.id, { n: Number(row.n), at: Date.now() });
  return Number(row.n);
}

type Hit = { product_id: string; position: number };

/**
 * One tier of a search, in catalog order: `count` hits from `offset`. Walks the first
 * `walkWindow` products in order (stopping as soon as the page is full); when the window
 * holds too few hits, takes every hit through the indexes instead, which also gives the tier's total.
 * Filters apply to hits, not to the window, so the walk's cost never depends on them.
 */
async function tierPage(db: DB, shop: Shop, cond: RawBuilder<boolean>, filters: Filters, locale: Locale, offset: number, count: number, needTotal: boolean): Promise<{ hits: Hit[]; total?: number }> {
  const window = db
    .selectFrom('product_search')
    .select(['product_id', 'position', 'categories', 'price_min', 'price_max', cond.as('hit')])
    .where('shop_id', '=', shop.id)
    .orderBy('position')
    .limit(searchTuning.walkWindow);
  const walked: Hit[] = await applyFilters(db.selectFrom(window.as('w')).select(['product_id', 'position']).where('hit', '=', true), filters, locale)
    .orderBy('position')
    .limit(offset + count)
    .execute();
  if (walked.length === offset + count) return { hits: walked.slice(offset) };
  // Materialized, so the planner cannot turn this back into a walk over the whole catalog.
  const all = await db
    .with((w) => w('m').materialized(), (qb) => applyFilters(qb.selectFrom('product_search').select(['product_id', 'position']).where('shop_id', '=', shop.id).where(cond), filters, locale))
    .selectFrom('m')
    .select(['product_id', 'position', sql<number>`count(*) over ()`.as('total')])
    .orderBy('position')
    .limit(count)
    .offset(offset)
    .execute();
  if (all.length || !needTotal) return { hits: all.map(({ product_id, position }) => ({ product_id, position })), total: all.length ? Number(all[0].total) : undefined };
  // Past the end of this tier: its total is still needed to place the next one.
  const n = await db.with((w) => w('m').materialized(), (qb) => applyFilters(qb.selectFrom('product_search').select('product_id').where('shop_id', '=', shop.id).where(cond), filters, locale))
    .selectFrom('m')
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return { hits: [], total: Number(n.n) };
}

/**
 * Catalog search. A query that finds nothing gets one typo-tolerant second pass
 * (search-correction.ts): its unknown words corrected to the closest catalog words, the same page
 * asked again, and an `info` message `query_corrected` saying what was searched instead. Later
 * pages of the original query resolve the same way, so its cursors page through the corrected results.
 */
export async function searchCatalog(db: DB, shop: Shop, req: SearchRequest, locale: Locale, origin: string): Promise<SearchResult> {
  const result = await searchOnce(db, shop, req, locale, origin);
  const query = req.query?.trim();
  if (result.products.length || !query) return result;
  const corrected = correctQuery(query, await searchVocabulary(db, shop));
  if (!corrected) return result;
  const second = await searchOnce(db, shop, { ...req, query: corrected }, locale, origin);
  if (!second.products.length) return result;
  return { ...second, messages: [{ type: 'info', code: 'query_corrected', content: `No products match "${query}"; showing results for "${corrected}".` }] };
}

/** The filters in the shop's currency, for the in-memory index. */
function indexFilters(filters: Filters, locale: Locale): IndexFilters {
  const p = filters?.price;
  return {
    categories: filters?.categories?.filter(Boolean),
    priceAtLeast: p?.min === undefined ? undefined : toBase(p.min, locale, 'floor'),
    priceAtMost: p?.max === undefined ? undefined : toBase(p.max, locale, 'ceil'),
  };
}

/**
 * The same search in SQL: while a shop's index is being built, for queries the index cannot answer
 * (phrases need positions), and as the reference the index is tested against.
 * Two tiers, each in catalog order: products whose title matches the query, then those that match
 * elsewhere (description, identifiers).
 */
async function databaseSearch(db: DB, shop: Shop, query: string, filters: Filters, locale: Locale, offset: number, want: number): Promise<string[]> {
  const tsq = sql`(websearch_to_tsquery(${tsConfig(locale.language)}::regconfig, ${query}) || websearch_to_tsquery('simple'::regconfig, ${query}))`;
  const inTitle = sql<boolean>`(title_tsv @@ ${tsq} and tsv @@ ${tsq})`;
  const elsewhere = sql<boolean>`(tsv @@ ${tsq} and not (title_tsv @@ ${tsq}))`;
  let hits: Hit[];
  if ((await catalogSize(db, shop)) <= searchTuning.sortAllUpTo) {
    hits = await applyFilters(
      db
        .selectFrom('product_search')
        .select(['product_id', 'position'])
        .where('shop_id', '=', shop.id)
        .where(sql<boolean>`tsv @@ ${tsq}`),
      filters,
      locale,
    )
      .orderBy(sql`title_tsv @@ ${tsq}`, 'desc')
      .orderBy('position')
      .limit(want)
      .offset(offset)
      .execute();
  } else {
    const first = await tierPage(db, shop, inTitle, filters, locale, offset, want, true);
    hits = first.hits;
    if (hits.length < want) {
      // The title tier ended on this page, so its total is known (tierPage read it through the index).
      const second = await tierPage(db, shop, elsewhere, filters, locale, Math.max(0, offset - (first.total ?? 0)), want - hits.length, false);
      hits = [...hits, ...second.hits];
    }
  }
  return hits.map((h) => h.product_id);
}

async function searchOnce(db: DB, shop: Shop, req: SearchRequest, locale: Locale, origin: string): Promise<SearchResult> {
  const requested = req.pagination?.limit ?? req.limit ?? SEARCH_DEFAULT_LIMIT;
  const limit = Math.min(requested, SEARCH_MAX_LIMIT); // a hint: clamp silently, as UCP allows
  const cursor = req.pagination?.cursor ?? req.cursor;
  const offset = cursor ? decodeCursor(cursor, req.pagination?.cursor ? '$.pagination.cursor' : '$.cursor') : 0;
  const query = req.query?.trim();

  const want = limit + 1; // one more than the page tells whether a next page exists
  const index = await catalogIndex(db, shop.id);
  const tree = index && query ? await parseQuery(db, tsConfig(locale.language), query) : undefined;
  let ids: string[] | undefined;
  if (index && tree !== 'positional') ids = index.page(query ? tree : undefined, indexFilters(req.filters, locale), offset, want);
  else if (query) ids = await databaseSearch(db, shop, query, req.filters, locale, offset, want);

  let products: StoredProduct[];
  if (ids) {
    const docs = ids.length ? await loadProducts(db, shop, ids) : new Map<string, StoredProduct>();
    products = ids.flatMap((id) => docs.get(id) ?? []);
  } else {
    // Browsing: catalog order straight off the (shop_id, position) index.
    const rows = await applyFilters(db.selectFrom('products').select(docText).where('shop_id', '=', shop.id).where(LISTED), req.filters, locale)
      .orderBy('position')
      .limit(want)
      .offset(offset)
      .execute();
    products = rows.map((r) => parseDoc(r.doc));
  }

  const hasNext = products.length > limit;
  const o = renderOptions(shop, locale, origin);
  // Documents are cached objects only where this process is the single writer (product-cache.ts).
  const key = isSingleWriter(db) ? listingKey(o) : undefined;
  const page = products.length > limit ? products.slice(0, limit) : products;
  const listed: Product[] = new Array(page.length);
  for (let i = 0; i < page.length; i++) listed[i] = renderListing(page[i], o, key);
  return {
    products: listed,
    pagination: hasNext ? { has_next_page: true, cursor: encodeCursor(offset + limit) } : { has_next_page: false },
  };
}

/**
 * A product as listings show it (the featured variant first). Where stored documents are cached
 * objects, the rendering is kept per document and locale (`key`, one per request: listingKey), with
 * its JSON (lib/json-fragments.ts): a catalog write replaces the document, and with it what was kept.
 */
const listings = new WeakMap<StoredProduct, Map<string, Product>>();

function listingKey(o: RenderOptions): string {
  const { language, currency, rates } = o.locale;
  return `${language}|${currency}|${rates.base}|${rates.rates[currency] ?? ''}|${o.origin}|${o.defaultLanguage}`;
}

function renderListing(p: StoredProduct, o: RenderOptions, key: string | undefined): Product {
  if (key === undefined) return renderFeaturedFirst(p, o);
  let byLocale = listings.get(p);
  if (!byLocale) listings.set(p, (byLocale = new Map()));
  let product = byLocale.get(key);
  if (!product) {
    if (byLocale.size >= 16) byLocale.clear();
    byLocale.set(key, (product = serializedOnce(renderFeaturedFirst(p, o))));
  }
  return product;
}

function renderFeaturedFirst(p: StoredProduct, o: RenderOptions): Product {
  const featured = featuredVariant(p);
  return renderProduct(p, o, [featured, ...p.variants.filter((v) => v !== featured)]);
}

export interface LookupResult {
  products: Product[];
  messages: Message[];
}

export async function lookupCatalog(db: DB, shop: Shop, req: LookupRequest, locale: Locale, origin: string): Promise<LookupResult> {
  const ids = [...new Set(req.ids)];
  if (ids.length > LOOKUP_MAX_IDS) {
    throw new RequestTooLarge(`At most ${LOOKUP_MAX_IDS} ids per lookup; got ${ids.length}.`, [
      { path: '$.ids', code: 'request_too_large', content: `At most ${LOOKUP_MAX_IDS} distinct ids.` },
    ]);
  }
  const variantHits = await db
    .selectFrom('variants')
    .select(['id', 'product_id', 'sku'])
    .where('shop_id', '=', shop.id)
    .where((eb) => eb.or([eb('id', 'in', ids), eb('sku', 'in', ids)]))
    .execute();
  const productIds = new Set<string>(variantHits.map((v) => v.product_id));
  let qb = db
    .selectFrom('products')
    .select(['id', docText])
    .where('shop_id', '=', shop.id)
    .where((eb) => eb.or([eb('id', 'in', ids), ...(productIds.size ? [eb('id', 'in', [...productIds])] : [])]));
  qb = applyFilters(qb, req.filters, locale);
  const rows = await qb.orderBy('position').execute();

  const o = renderOptions(shop, locale, origin);
  const found = new Set<string>();
  const products: Product[] = [];
  for (const row of rows) {
    const p = parseDoc(row.doc);
    // inputs per variant: exact for variant ids / SKUs, featured for a product id.
    const inputs = new Map<string, Array<{ id: string; match: 'exact' | 'featured' }>>();
    const add = (v: StoredVariant, id: string, match: 'exact' | 'featured') => {
      inputs.set(v.id, [...(inputs.get(v.id) ?? []), { id, match }]);
      found.add(id);
    };
    for (const v of p.variants) {
      for (const id of ids) if (v.id === id || (v.sku && v.sku === id)) add(v, id, 'exact');
    }
    if (ids.includes(p.id)) add(featuredVariant(p), p.id, 'featured');
    const variants = p.variants.filter((v) => inputs.has(v.id));
    if (!variants.length) continue;
    const rendered = renderProduct(p, o, variants);
    rendered.variants = rendered.variants.map((v) => ({ ...v, inputs: inputs.get(v.id)! }));
    products.push(rendered);
  }
  const messages: Message[] = ids
    .filter((id) => !found.has(id))
    .map((id) => ({ type: 'info', code: 'not_found', content: id }));
  return { products, messages };
}

export async function getProduct(db: DB, shop: Shop, req: GetProductRequest, locale: Locale, origin: string): Promise<Product> {
  const byVariant = await db
    .selectFrom('variants')
    .select('product_id')
    .where('shop_id', '=', shop.id)
    .where('id', '=', req.id)
    .executeTakeFirst();
  const productId = byVariant?.product_id ?? req.id;
  const row = await db.selectFrom('products').select(docText).where('shop_id', '=', shop.id).where('id', '=', productId).executeTakeFirst();
  if (!row) throw new BusinessError('not_found', `No product or variant with id '${req.id}'.`);
  const p = parseDoc(row.doc);

  // Effective selection: the requested variant, else the best match for `selected`, else featured.
  const requestedVariant = byVariant ? p.variants.find((v) => v.id === req.id) : undefined;
  const chosen = requestedVariant ?? matchSelection(p, req) ?? featuredVariant(p);
  const o = renderOptions(shop, locale, origin);
  const product = renderProduct(p, o, [chosen, ...p.variants.filter((v) => v !== chosen)]);
  if (p.options?.length) {
    product.selected = product.variants[0].options ?? [];
    product.options = optionAvailability(p, chosen, product);
  }
  return product;
}

/** Finds the variant matching `selected`, relaxing options from the end of `preferences` first. */
function matchSelection(p: StoredProduct, req: GetProductRequest): StoredVariant | undefined {
  if (!req.selected?.length || !p.options?.length) return undefined;
  const wanted = new Map<string, string>();
  for (const s of req.selected) {
    const option = optionNamed(p, s.name);
    const value = option?.values.find((v) => v.id === s.id || allLanguages(v.label).includes(s.label));
    if (option && value) wanted.set(option.name, value.id);
  }
  const preferred = (req.preferences ?? []).map((n) => optionNamed(p, n)?.name ?? n);
  const order = [...preferred, ...[...wanted.keys()].filter((k) => !preferred.includes(k))];
  let names = order.filter((n) => wanted.has(n));
  while (true) {
    const matches = p.variants.filter((v) => names.every((n) => v.options[n] === wanted.get(n)));
    const best = matches.find(isAvailable) ?? matches[0];
    if (best) return best;
    if (!names.length) return undefined;
    names = names.slice(0, -1);
  }
}

/**
 * The stored option a request names, by its id ("size") or by its display name in any language
 * ("Size", "Taille": what UCP's `name` carries in responses), case-insensitively.
 */
function optionNamed(p: StoredProduct, name: string) {
  const n = name.toLowerCase();
  return p.options?.find((o) => o.name.toLowerCase() === n || allLanguages(o.label).some((l) => l.toLowerCase() === n));
}

/** Marks each option value exists/available relative to the chosen variant's other options (rendered options are in stored order). */
function optionAvailability(p: StoredProduct, chosen: StoredVariant, product: Product) {
  return (p.options ?? []).map((stored, i) => {
    const opt = product.options![i];
    const id = stored.name;
    return {
      name: opt.name,
      values: opt.values.map((val) => {
        const combo = p.variants.filter((v) => v.options[id] === val.id && Object.entries(chosen.options).every(([n, vid]) => n === id || v.options[n] === vid));
        return { ...val, exists: combo.length > 0, available: combo.some(isAvailable) };
      }),
    };
  });
}

/** Variants by id for pricing carts: id -> its product and stored variant. Scoped to the shop. */
/** Product documents by id, from this process's cache when it has them (server/core/products/product-cache.ts). */
export async function loadProducts(db: DB, shop: Shop, ids: string[]): Promise<Map<string, StoredProduct>> {
  const { hits: out, missing, store } = cachedProducts(db, shop.id, ids);
  if (!missing.length) return out;
  const rows = await db.selectFrom('products').select(['id', docText]).where('shop_id', '=', shop.id).where('id', 'in', missing).execute();
  const loaded = rows.map((r) => parseDoc(r.doc));
  store(loaded);
  for (const p of loaded) out.set(p.id, p);
  return out;
}

export async function loadVariants(db: DB, shop: Shop, variantIds: string[]): Promise<Map<string, VariantHit>> {
  const { hits: out, missing, store } = cachedVariants(db, shop.id, [...new Set(variantIds)]);
  if (!missing.length) return out;
  const rows = await db
    .selectFrom('variants as v')
    .innerJoin('products as p', (j) => j.onRef('p.shop_id', '=', 'v.shop_id').onRef('p.id', '=', 'v.product_id'))
    .select(['v.id as variant_id', docTextOf('p')])
    .where('v.shop_id', '=', shop.id)
    .where('v.id', 'in', missing)
    .execute();
  const loaded = new Map<string, VariantHit>();
  for (const row of rows) {
    const product = parseDoc(row.doc);
    const variant = product.variants.find((v) => v.id === row.variant_id);
    if (variant) loaded.set(row.variant_id, { product, variant });
  }
  store([...loaded.values()].map((h) => h.product));
  for (const [id, hit] of loaded) out.set(id, hit);
  return out;
}
