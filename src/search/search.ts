/**
 * `<ucp-search>`: a shop's whole catalog for any storefront — a search box, a category filter and
 * pages of product cards linking to their product pages — over the UCP catalog search (REST).
 *
 * A lazily loaded chunk (`host-search-<hash>.js`, docs/host-js.md): the entry defines the element
 * and, when one is connected, hands this chunk the shop's store (its UCP client, with whatever
 * access the page has) and the money formatter. Plain DOM on purpose: chunks never import the
 * entry, so Preact is not available here, and this UI is a form and a list.
 *
 * Attributes: `shop`, `lang`, `currency` (as the other elements); `categories` (the filter's
 * choices, comma-separated, as the shop names them); `query` and `category` (the first search);
 * `page-size` (1-50, default 12); `sync-url` (the element owns the page's `?q=&category=&page=`).
 * UCP pages by cursor, so the pager goes forward and back.
 * Children are a fallback (e.g. the same listing rendered by the server, which also serves pages
 * without JavaScript): shown from the chunk's first draw until the first results arrive. The
 * shopper's search and page are kept in the history entry (`keep`), for Back and reload.
 */
import type { Store } from '../state/store.ts';
import type { Product, SearchResponse } from '../wire/catalog.ts';
import { cardAvailability } from '../format/availability.ts';

type Money = (amount: number, currency: string, lang: string) => string;

const WORDS = {
  en: {
    search: 'Search the shop',
    go: 'Search',
    category: 'Category',
    all: 'All products',
    prev: 'Previous page',
    next: 'Next page',
    page: 'Page {0}',
    shown: '{0} products on this page',
    none: 'No products match your search.',
    loading: 'Loading products…',
    failed: 'The catalog could not be loaded.',
    retry: 'Try again',
    fromPrice: 'From {0}',
    results: 'Products',
    pages: 'Pages',
    close: 'No exact match; showing close results.',
    rating: 'Rated {0} out of {1}',
    reviews: '{0} reviews',
    resultsFor: 'Results for “{0}”',
    out_of_stock: 'Out of stock',
    preorder: 'Pre-order',
    backorder: 'Backorder',
  },
  fr: {
    search: 'Rechercher dans la boutique',
    go: 'Rechercher',
    category: 'Catégorie',
    all: 'Tous les produits',
    prev: 'Page précédente',
    next: 'Page suivante',
    page: 'Page {0}',
    shown: '{0} produits sur cette page',
    none: 'Aucun produit ne correspond à votre recherche.',
    loading: 'Chargement des produits…',
    failed: 'Le catalogue n’a pas pu être chargé.',
    retry: 'Réessayer',
    fromPrice: 'À partir de {0}',
    results: 'Produits',
    pages: 'Pages',
    close: 'Aucun résultat exact\u00a0; voici des résultats proches.',
    rating: 'Noté {0} sur {1}',
    reviews: '{0} avis',
    resultsFor: 'Résultats pour «\u00a0{0}\u00a0»',
    out_of_stock: 'En rupture de stock',
    preorder: 'Précommande',
    backorder: 'Sur commande',
  },
};
type Word = keyof typeof WORDS.en;

// The same look as the server-rendered listing of later pages (public/storefront.css: .search,
// h2.sub, .cards, .card, .price, .rating, .pager), so every page of the catalog is one shop.
const CSS = /* css */ `:host{display:block;color:inherit}
form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end;margin:0 0 1rem}label{display:flex;flex-direction:column;gap:.25rem;font-size:.875rem}
input,select,button{font:inherit;padding:.45rem .6rem;border-radius:8px;border:1px solid light-dark(#b9c0cc,#4a515c);background:light-dark(#fff,#1a1d22);color:inherit;min-height:2.75rem}
label:first-child{flex:1 1 14rem;min-width:0}form button{background:light-dark(#1f4fd1,#8fb0ff);color:light-dark(#fff,#0f1114);border-color:transparent;font-weight:600}
button{cursor:pointer}button:disabled{opacity:.5;cursor:default}
h2{font-size:1.1rem;margin:0 0 .75rem}
ul{list-style:none;margin:0;padding:0;display:grid;gap:1.25rem;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr))}
li{background:light-dark(#fff,#171a1f);border:1px solid light-dark(#d5d9e0,#30353d);border-radius:12px;padding:.75rem}
li a{display:block;margin-bottom:.4rem;color:inherit;text-decoration:none}li a:hover h3,li a:focus-visible h3{text-decoration:underline;color:light-dark(#1f4fd1,#8fb0ff)}
img{width:100%;height:auto;aspect-ratio:1;object-fit:cover;border-radius:8px;background:light-dark(#eef0f3,#22262c)}
h3{font-size:1rem;margin:.5rem 0 .25rem}li p{margin:.15rem 0}.p{font-weight:600}.r{font-size:.9rem;color:light-dark(#4a5160,#b8bfca)}.o{font-size:.9rem;color:light-dark(#b3261e,#ffb4ab)}
nav{display:flex;gap:1rem;align-items:center;justify-content:center;margin:1.5rem 0 .5rem}p{margin:.5rem 0}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}.h{visibility:hidden}`;

const el = <K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Array<Node | string>) => {
  const e = document.createElement(tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  e.append(...children);
  return e;
};

/** Elements already built, with how to draw them again. */
const mounted = new WeakMap<HTMLElement, () => void>();

/** A search as the page's history entry keeps it. */
interface Kept {
  query: string;
  category: string;
  cursors: Array<string | null>;
  page: number;
  /** How far the page was scrolled when the shopper left it. */
  y?: number;
}

/**
 * Each element keeps its search (query, category, the page reached) in the page's history entry,
 * so Back from a product page or a reload comes back to where the shopper was rather than to the
 * first page, and to the same scroll position once the results are back (the browser restores it
 * before they arrive, on a page still too short). Keyed by the element's place among the page's
 * elements of its kind; the page's own history state (an object) is kept beside it, and any other
 * kind of state is left alone.
 */
function keep(host: HTMLElement): { read(): Kept | undefined; write(k: Kept): void } {
  const key = () => host.localName + [...document.getElementsByTagName(host.localName)].indexOf(host);
  const state = () => history.state as Record<string, unknown> | null;
  const object = (v: unknown): v is Record<string, any> => !!v && typeof v == 'object' && !Array.isArray(v);
  return {
    read() {
      const k = object(state()) ? state()![key()] : 0;
      if (object(k) && typeof k.query == 'string' && typeof k.category == 'string' && Array.isArray(k.cursors) && k.page >= 0 && k.page < k.cursors.length)
        return { query: k.query, category: k.category, page: k.page | 0, cursors: k.cursors.map((c: unknown) => (typeof c == 'string' ? c : null)), y: k.y > 0 ? +k.y : 0 };
    },
    write(k) {
      const s = state();
      // A sandboxed or opaque document may refuse: the search still works, it is just not kept.
      if (s === null || object(s)) try { history.replaceState({ ...s, [key()]: k }, ''); } catch {}
    },
  };
}

type Say = (w: Word, ...args: Array<string | number>) => string;

/** The element's language (its `lang`, else the page's, else the browser's) and its words in it. */
function speech(host: HTMLElement): { lang: () => string; say: Say } {
  const lang = () => (host.getAttribute('lang') || document.documentElement.lang || navigator.language || 'en').toLowerCase();
  return { lang, say: (w, ...args) => (lang().startsWith('fr') ? WORDS.fr : WORDS.en)[w].replace(/\{(\d)\}/g, (_, i) => String(args[+i] ?? '')) };
}

/** The element's own stylesheet beside the widget's, as an adopted sheet where the engine has them. */
function adoptCss(root: ShadowRoot) {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  } catch {
    root.append(el('style', {}, CSS));
  }
}

/** One element's search: what it asks for, what came back, and where it lives. */
interface Search {
  host: HTMLElement;
  root: ShadowRoot;
  store: Store;
  money: Money;
  kept: ReturnType<typeof keep>;
  /** `sync-url`: the element owns the page's address (see push). */
  sync: boolean;
  /**
   * The page's own listing is the first page of the element's attributes: while another kept page
   * is on its way, that listing keeps its space (so the browser's scroll restoring still lands) but
   * is not shown, rather than products the shopper had left behind.
   */
  elsewhere: boolean;
  query: string;
  category: string;
  /** The cursor of each page reached so far (page 1 has none). */
  cursors: Array<string | undefined>;
  page: number;
  /** Where to scroll once the kept page's results are drawn (then never again). */
  scrollBack: number;
  result: { products: Product[]; next?: string; corrected?: boolean } | null;
  failed: boolean;
  loading: boolean;
  /** How many searches were asked: only the latest one's answer is drawn. */
  asked: number;
  /** The control the shopper last used (its data-k), focused again after each redraw. */
  used?: string;
}

/**
 * Builds the element in its shadow root (which already has the widget's stylesheet; this adds its
 * own), once: a reconnected element (moved on the page) is drawn again from the state it kept,
 * without searching again. Then follows its attributes.
 */
export function mountSearch(host: HTMLElement, root: ShadowRoot, store: Store, money: Money): void {
  const again = mounted.get(host);
  if (again) return again();
  adoptCss(root);
  const kept = keep(host);
  const before = kept.read();
  const attr = (name: string) => host.getAttribute(name) ?? '';
  const s: Search = {
    host, root, store, money, kept,
    sync: host.hasAttribute('sync-url'),
    elsewhere: !!before && (before.page > 0 || before.query !== attr('query') || before.category !== attr('category')),
    query: before?.query ?? attr('query'),
    category: before?.category ?? attr('category'),
    cursors: before ? before.cursors.map((c) => c ?? undefined) : [undefined],
    page: before?.page ?? 0,
    scrollBack: before?.y ?? 0,
    result: null, failed: false, loading: false, asked: 0,
  };
  addEventListener('pagehide', () => save(s));
  if (s.sync) addEventListener('popstate', () => followAddress(s));
  mounted.set(host, () => draw(s, !!s.result));
  if (before) void run(s); // the shopper's own search and page, kept in this history entry
  else restart(s);
  // An attribute changed: search again (the same page for `lang` and `currency`), or redraw the filter.
  new MutationObserver((changes) => {
    const names = new Set(changes.map((m) => m.attributeName));
    if (names.has('query')) s.query = attr('query');
    if (names.has('category')) s.category = attr('category');
    if (names.has('query') || names.has('category') || names.has('page-size')) restart(s);
    else if (names.has('lang') || names.has('currency')) void run(s);
    else draw(s, !!s.result);
  }).observe(host, { attributes: true, attributeFilter: ['lang', 'currency', 'query', 'category', 'categories', 'page-size'] });
}

/** Keeps the search in the page's history entry (when the element is still on the page). */
const save = (s: Search) => s.host.isConnected && s.kept.write({ query: s.query, category: s.category, cursors: s.cursors.map((c) => c ?? null), page: s.page, y: window.scrollY });

/** Asks the catalog for the current page of the search and draws the answer (only the latest search's). */
async function run(s: Search) {
  const { host, store } = s;
  const ticket = ++s.asked;
  save(s);
  s.loading = true;
  s.failed = false;
  draw(s); // the previous page stays in view, marked busy, until this one arrives
  const { lang } = speech(host);
  const currency = host.getAttribute('currency')?.toUpperCase() || store.currency.value;
  const cursor = s.cursors[s.page];
  const body = {
    ...(s.query.trim() ? { query: s.query.trim() } : {}),
    filters: s.category ? { categories: [s.category] } : {},
    pagination: { limit: Math.min(50, Math.max(1, Number(host.getAttribute('page-size')) || 12)), ...(cursor ? { cursor } : {}) },
    context: { language: lang(), ...(currency ? { currency } : {}) },
  };
  const r = await store.client.call<SearchResponse>('POST', '/catalog/search', body);
  if (ticket !== s.asked || !host.isConnected) return; // a newer search, or the element left the page
  s.loading = false;
  if (r.ok) {
    s.result = {
      products: r.data.products,
      next: r.data.pagination?.has_next_page ? r.data.pagination.cursor : undefined,
      // The shop searched for close words instead (its typo-tolerant second pass).
      corrected: !!r.data.messages?.some((m) => m.code === 'query_corrected'),
    };
  }
  else s.failed = true;
  draw(s, true);
  if (s.scrollBack && r.ok) window.scrollTo(0, s.scrollBack);
  s.scrollBack = 0;
}

/**
 * `sync-url`: the element owns the page's address (`?q=…&category=…&page=N`, the server-rendered
 * listing's own), so each search and page the shopper asks for is a history entry of its own:
 * shareable, reloadable, and Back/Forward go through them (followAddress).
 */
function push(s: Search) {
  if (!s.sync) return;
  const u = new URL(location.href);
  for (const [k, v] of [['q', s.query.trim()], ['category', s.category], ['page', s.page ? String(s.page + 1) : '']]) v ? u.searchParams.set(k, v) : u.searchParams.delete(k);
  if (u.href !== location.href) try { history.pushState(history.state, '', u); } catch {}
}

/** Back or Forward (`sync-url`): the search the entry kept, or else the one its address names. */
function followAddress(s: Search) {
  if (!s.host.isConnected) return;
  const k = s.kept.read();
  if (k) {
    ({ query: s.query, category: s.category, page: s.page } = k);
    s.cursors = k.cursors.map((c) => c ?? undefined);
    s.scrollBack = k.y ?? 0;
    return void run(s);
  }
  // An entry this element never kept (one its document shares with a page the server rendered
  // before a reload): the address names the search; a later page's cursor is the server's to
  // know, so that page is loaded as the server renders it.
  const u = new URL(location.href);
  if ((Number(u.searchParams.get('page')) || 1) > 1) return location.reload();
  s.query = u.searchParams.get('q') ?? '';
  s.category = u.searchParams.get('category') ?? '';
  s.cursors = [undefined];
  s.page = 0;
  void run(s);
}

/** The shopper asks for another search or page: the entry being left keeps its own first. */
function go(s: Search, change: () => void) {
  if (s.sync) save(s);
  change();
  push(s);
  void run(s);
}

/** The search from its first page. */
const restart = (s: Search) =>
  go(s, () => {
    s.cursors = [undefined];
    s.page = 0;
  });

/** One product card: image and title linking to the product page, price, rating, availability. */
function card(p: Product, say: Say, money: Money, lang: string) {
  const image = p.media?.find((m) => m.type === 'image' || !m.type);
  const min = p.price_range.min;
  const price = money(min.amount, min.currency, lang);
  const varies = p.price_range.max.amount > min.amount;
  // Card titles are headings (screen-reader users move through a listing by heading).
  const parts: Node[] = [el('p', { class: 'p' }, varies ? say('fromPrice', price) : price)];
  if (p.rating) parts.push(el('p', { class: 'r' }, el('span', { 'aria-hidden': 'true' }, '★'), ` ${say('rating', p.rating.value, p.rating.scale_max)}${p.rating.count ? ` · ${say('reviews', p.rating.count)}` : ''}`));
  const state = cardAvailability(p);
  if (state) parts.push(el('p', { class: 'o' }, say(state)));
  return el('li', { class: 'card' }, el('a', { href: p.url }, ...(image ? [el('img', { src: image.url, alt: '', loading: 'lazy', width: '320', height: '320' })] : []), el('h3', {}, p.title)), ...parts);
}

/** The search form: a query, the category filter (the element's `categories`), a submit button. */
function searchForm(s: Search, say: Say) {
  const q = el('input', { type: 'search', name: 'q', value: s.query, autocomplete: 'off', 'data-k': 'q' });
  q.value = s.query;
  const c = el('select', { name: 'category', 'data-k': 'c' }, el('option', { value: '' }, say('all')));
  for (const name of (s.host.getAttribute('categories') ?? '').split(',').map((x) => x.trim()).filter(Boolean)) c.append(el('option', { value: name }, name));
  c.value = s.category;
  const form = el('form', { role: 'search' }, el('label', {}, say('search'), q), el('label', {}, say('category'), c), el('button', { type: 'submit', 'data-k': 'g' }, say('go')));
  const ask = () =>
    go(s, () => {
      s.query = q.value;
      s.category = c.value;
      s.cursors = [undefined];
      s.page = 0;
    });
  form.onsubmit = (e) => {
    e.preventDefault();
    ask();
  };
  c.onchange = ask;
  return form;
}

/** Previous page, the page's number, next page (disabled while a page loads). */
function pager(s: Search, say: Say, next: string | undefined) {
  const prev = el('button', { type: 'button', 'data-k': 'p' }, say('prev'));
  const forward = el('button', { type: 'button', 'data-k': 'n' }, say('next'));
  prev.disabled = s.loading || s.page === 0;
  forward.disabled = s.loading || !next;
  prev.onclick = () => go(s, () => s.page--);
  forward.onclick = () =>
    go(s, () => {
      s.cursors[s.page + 1] = s.result!.next;
      s.page++;
    });
  return el('nav', { 'aria-label': say('pages') }, prev, el('span', { 'aria-current': 'page' }, say('page', s.page + 1)), forward);
}

/** Renders the whole element; `settled`: a search just answered (status words are announced then). */
function draw(s: Search, settled = false) {
  const { host, root, query, category, result } = s;
  const { lang, say } = speech(host);
  // Until the first results arrive, a page's own listing inside the element (its server-rendered
  // fallback) holds the place rather than a blank "loading" state: shown, or hidden while a kept
  // page other than it is on its way (`elsewhere`).
  if (!result && !s.failed && host.childElementCount) {
    root.replaceChildren(el('slot', s.elsewhere ? { class: 'h' } : {}));
    if (s.elsewhere) host.setAttribute('aria-busy', 'true');
    return;
  }
  const status = el('p', { role: 'status' });
  const parts: Node[] = [searchForm(s, say), el('h2', {}, query.trim() ? say('resultsFor', query.trim()) : category || say('all')), status];
  if (s.failed) {
    const retry = el('button', { type: 'button' }, say('retry'));
    retry.onclick = () => void run(s);
    status.append(say('failed'), ' ', retry);
  } else if (!result) {
    status.append(say('loading'));
  } else {
    if (s.loading) status.append(say('loading'));
    else if (settled) status.append(result.products.length ? `${result.corrected ? `${say('close')} ` : ''}${say('shown', result.products.length)}` : say('none'));
    if (result.products.length) {
      parts.push(el('ul', { 'aria-label': say('results') }, ...result.products.map((p) => card(p, say, s.money, lang()))));
      // For docs/benchmarks.md: cards drawn (the frame after this one paints them).
      requestAnimationFrame(() => performance.mark('ucp:search:cards'));
    }
    if (s.page > 0 || result.next) parts.push(pager(s, say, result.next));
  }
  if (s.loading) host.setAttribute('aria-busy', 'true');
  else host.removeAttribute('aria-busy');
  const active = root.activeElement as HTMLElement | null;
  if (active?.dataset.k) s.used = active.dataset.k;
  // Focus stays with the shopper: after a redraw, on the control they used (the other pager
  // button when that one is now disabled), unless they have moved on to the rest of the page.
  const ours = active !== null || document.activeElement === document.body;
  root.replaceChildren(...parts);
  if (ours && s.used) ((root.querySelector(`[data-k=${s.used}]:not(:disabled)`) ?? root.querySelector('nav button:not(:disabled)')) as HTMLElement | null)?.focus();
}
