/**
 * The storefront's catalog pages: the home page lists the whole catalog (search box, category
 * filter, numbered pages) and the product page shows what the catalog knows about a product
 * (gallery, description, rating, option names) around the add-to-cart widget.
 *
 * Server-rendered HTML over the same `searchCatalog` the UCP REST and MCP transports call, so a
 * shopper, an agent and a crawler see one catalog in one order; it works before (and without)
 * host.js, costs the widget's entry budget nothing, and each page of results has its own URL
 * (`/?q=linen&category=Home&page=2`) a shopper can share or go back to. Cards link to product pages,
 * where the widget adds to the cart; a card shows each name once. docs/host-js.md "Storefront pages".
 */
import type { Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import type { Shop } from '../formats/types.ts';
import type { Product } from '../../src/wire/catalog.ts';
import { cursorAt, searchCatalog } from '../core/catalog/catalog.ts';
import { formatMoney } from '../core/shared/money.ts';
import { InvalidRequest } from '../core/shared/errors.ts';
import { html, raw, type Raw } from './html.ts';
import { currencyAttr, type Prefs } from './prefs.ts';
import type { StoreSay } from './words.ts';
import { cardAvailability } from '../../src/format/availability.ts';

/** Products per page of the home page. */
export const PAGE_SIZE = 12;
/** Pages past this are not linked (a search that deep should be narrowed instead). */
const MAX_PAGE = 1000;

export interface CatalogQuery {
  q: string;
  category: string;
  page: number;
}

/** The home page's query, forgiving: anything unusable means "the first page of everything". */
export function catalogQuery(url: URL): CatalogQuery {
  const q = (url.searchParams.get('q') ?? '').trim().slice(0, 200);
  const category = (url.searchParams.get('category') ?? '').trim().slice(0, 128);
  const n = Number.parseInt(url.searchParams.get('page') ?? '1', 10);
  return { q, category, page: Number.isInteger(n) && n >= 1 ? Math.min(n, MAX_PAGE) : 1 };
}

function href(query: CatalogQuery, page: number): string {
  const p = new URLSearchParams();
  if (query.q) p.set('q', query.q);
  if (query.category) p.set('category', query.category);
  if (page > 1) p.set('page', String(page));
  const s = p.toString();
  return s ? `/?${s}` : '/';
}

/** The shop's categories, for the filter (remembered a minute per shop: a home page is hot). */
const categoryCache = new Map<string, { at: number; values: string[] }>();
async function categoriesOf(c: Context<AppEnv>, shop: Shop): Promise<string[]> {
  const hit = categoryCache.get(shop.id);
  if (hit && Date.now() - hit.at < 60_000) return hit.values;
  const rows = await c
    .get('db')
    .selectFrom('products')
    .select((eb) => eb.fn<string>('jsonb_array_elements_text', ['categories']).as('category'))
    .where('shop_id', '=', shop.id)
    .distinct()
    .orderBy('category')
    .limit(200)
    .execute();
  const values = rows.map((r) => r.category);
  categoryCache.set(shop.id, { at: Date.now(), values });
  return values;
}

/** A product's price as its card shows it (a range says "From"). */
export function priceText(p: Product, prefs: Prefs, say: StoreSay): string {
  const { min, max } = p.price_range;
  const low = formatMoney(min.amount, min.currency, prefs.language);
  return min.amount === max.amount ? low : say('from_price', low);
}

function rating(p: Product, say: StoreSay): Raw | '' {
  if (!p.rating) return '';
  const { value, scale_max, count } = p.rating;
  return html`<p class="rating"><span aria-hidden="true">★</span> ${say('rating', value, scale_max)}${count ? html` · ${say('reviews', count)}` : ''}</p>`;
}

function card(p: Product, prefs: Prefs, say: StoreSay): Raw {
  const image = p.media?.[0];
  const state = cardAvailability(p);
  return html`<li class="card"><a href="/products/${encodeURIComponent(p.handle ?? p.id)}">${
    image ? html`<img src="${image.url}" alt="" width="320" height="320" loading="lazy">` : ''
  }<h3>${p.title}</h3></a><p class="price">${priceText(p, prefs, say)}</p>${rating(p, say)}${state ? html`<p class="avail">${say(state)}</p>` : ''}</li>`;
}

/**
 * The home page's main content. The first page is also `<ucp-search>` (host.js, src/search/search.ts):
 * the listing below is its fallback, shown until the element's first results arrive (or without
 * JavaScript); later pages (`?page=N`, links a shopper shares) are served as they are. `live`: the
 * element is on the page (its chunk is worth preloading).
 */
export async function homeContent(c: Context<AppEnv>, shop: Shop, prefs: Prefs, say: StoreSay): Promise<{ content: Raw; live: boolean }> {
  const query = catalogQuery(new URL(c.req.url));
  const req = {
    ...(query.q ? { query: query.q } : {}),
    ...(query.category ? { filters: { categories: [query.category] } } : {}),
    pagination: { limit: PAGE_SIZE, ...(query.page > 1 ? { cursor: cursorAt((query.page - 1) * PAGE_SIZE) } : {}) },
  };
  let products: Product[] = [];
  let hasNext = false;
  try {
    const result = await searchCatalog(c.get('db'), shop, req, prefs.locale, c.get('origin'));
    products = result.products;
    hasNext = result.pagination.has_next_page;
  } catch (e) {
    // A query the search cannot read is a search with no results, not an error page.
    if (!(e instanceof InvalidRequest)) throw e;
  }
  const categories = await categoriesOf(c, shop);
  const heading = query.q ? say('results_for', query.q) : query.category || say('all_products');
  const form = html`<form class="search" role="search" action="/" method="get">
<label class="grow">${say('search_label')}<input name="q" type="search" value="${query.q}" maxlength="200" autocomplete="off"></label>
<label>${say('category')}<select name="category"><option value="">${say('all_products')}</option>${categories.map(
    (cat) => html`<option${cat === query.category ? raw(' selected') : ''}>${cat}</option>`,
  )}</select></label>
<button type="submit">${say('search')}</button></form>`;
  const list = products.length
    ? html`<ul class="grid cards">${products.map((p) => card(p, prefs, say))}</ul>`
    : html`<p>${say('no_results')} <a href="/">${say('all_products')}</a></p>`;
  const pager =
    query.page > 1 || hasNext
      ? html`<nav class="pager" aria-label="${say('pages')}">${query.page > 1 ? html`<a rel="prev" href="${href(query, query.page - 1)}">${say('prev')}</a>` : ''}<span aria-current="page">${say('page', query.page)}</span>${
          hasNext && query.page < MAX_PAGE ? html`<a rel="next" href="${href(query, query.page + 1)}">${say('next')}</a>` : ''
        }</nav>`
      : '';
  const listing = html`${form}<h2 class="sub">${heading}</h2>${list}${pager}`;
  const live = shop.protocolEnabled && query.page === 1;
  const element = html`<ucp-search categories="${categories.join(',')}" query="${query.q}" category="${query.category}" page-size="${PAGE_SIZE}" sync-url${currencyAttr(prefs)}>${listing}</ucp-search>`;
  return { content: html`<h1>${shop.name}</h1>${live ? element : listing}`, live };
}

/**
 * What the product page shows beside the widget: gallery, description, rating, and the options by
 * their names in the shopper's language (UCP's option `name` is the display name: "Finish").
 */
export function productDetails(p: Product, say: StoreSay): Raw {
  const gallery = (p.media ?? []).filter((m) => m.type === undefined || m.type === 'image');
  const options = p.options?.length
    ? html`<h2>${say('options')}</h2><dl class="options">${p.options.map((o) => html`<dt>${o.name}</dt><dd>${o.values.map((v) => v.label).join(', ')}</dd>`)}</dl>`
    : '';
  return html`<section class="details">${
    gallery.length > 1 ? html`<ul class="gallery" aria-label="${say('gallery', p.title)}">${gallery.map((m) => html`<li><img src="${m.url}" alt="${m.alt_text ?? ''}" width="160" height="160" loading="lazy"></li>`)}</ul>` : ''
  }${rating(p, say)}${p.description?.plain ? html`<h2>${say('description')}</h2><p>${p.description.plain}</p>` : ''}${options}</section>`;
}
