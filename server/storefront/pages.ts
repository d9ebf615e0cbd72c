/**
 * Storefront HTML: the demo home (`/`), product pages (`/products/:handle`) and the cart page at
 * `continue_url` (`/cart/:id`, loaded plainly or inside an agent's frame with `ep_*` params).
 * Server-rendered by one escaping template; no inline scripts or styles, so every page ships a
 * strict CSP. The cart page's `frame-ancestors` comes from the shop's `allowed_agent_origins`.
 */
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import type { Shop } from '../formats/types.ts';
import { text } from '../core/shared/localize.ts';
import { hostBundle, roleChunks } from './host-bundle.ts';
import { protocolError } from '../http/errors.ts';
import { currencyAttr, prefsOf } from './prefs.ts';
import { storeWords } from './words.ts';
import { issueStorefrontToken } from '../core/access/storefront-tokens.ts';
import { html, raw, type Raw } from './html.ts';
import { homeContent, priceText, productDetails } from './catalog-pages.ts';
import { getProduct } from '../core/catalog/catalog.ts';

export { esc, html, raw } from './html.ts';

/** A CSP source is an origin, optionally with a `:*` port wildcard; anything else is dropped. */
const ORIGIN_RE = /^https?:\/\/(\*\.)?[a-z0-9.-]+(:(\d{1,5}|\*))?$/i;
export function frameAncestors(origins: string[]): string[] {
  return origins.map((o) => o.trim().replace(/\/$/, '')).filter((o) => ORIGIN_RE.test(o));
}

export function pageCsp(ancestors: string[] = [], formTargets: string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    `form-action ${["'self'", ...formTargets].join(' ')}`,
    `frame-ancestors ${["'self'", ...ancestors].join(' ')}`,
  ].join('; ');
}

export interface PageOptions {
  ancestors?: string[];
  /** Origins a form on the page may post to (the checkout handoff). */
  formTargets?: string[];
  status?: 200 | 404 | 410 | 409 | 400 | 403 | 500 | 503;
  withHeader?: boolean;
  cartButton?: boolean;
  /** The cart the header's cart button shows (a page about one cart: checkout), instead of the browser's own. */
  cartId?: string;
  /** A lazily loaded host.js chunk this page will use at once (`search`: `<ucp-search>`; `picker`: a product with customizations). */
  preload?: 'embedded' | 'search' | 'picker';
}

/** A storefront page in the shopper's language and currency (prefs.ts), with the shop's header. */
export function page(c: Context<AppEnv>, shop: Shop, title: string, body: Raw, opts: PageOptions = {}) {
  const b = hostBundle();
  // host.js is an ES module: the immutable twin with SRI when built; otherwise the plain URL (which
  // answers 503 until built). A framed cart page also preloads the embedded role's chunks with SRI
  // (host.js would import them anyway; this way they load in parallel and are integrity-checked).
  // A shop with WebMCP off says so on the tag, so host.js does not even load its tools chunk
  // (/ucp/webmcp.json refuses too, for any other page; docs/webmcp.md).
  const off = shop.settings.webmcp_enabled ? '' : raw(' data-webmcp="off"');
  const script = shop.protocolEnabled
    ? b
      ? html`<script type="module" src="/ucp/host.${b.hash}.js" integrity="${b.integrity}" crossorigin="anonymous"${off}></script>${
          opts.preload ? roleChunks(b, opts.preload).map((ch) => html`\n<link rel="modulepreload" href="/ucp/${ch.file}" integrity="${ch.integrity}" crossorigin="anonymous">`) : ''
        }`
      : html`<script type="module" src="/ucp/host.js" crossorigin="anonymous"${off}></script>`
    : '';
  const prefs = prefsOf(c, shop);
  const lang = prefs.language;
  const say = storeWords(lang);
  const doc = html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${shop.name}</title>
${shop.protocolEnabled ? html`<meta name="ucp-storefront-token" content="${issueStorefrontToken(shop.id)}">` : ''}
<link rel="stylesheet" href="/storefront.css">
${script}
<script src="/storefront.js" defer></script>
</head>
<body>
${opts.withHeader === false ? '' : html`<header class="top"><a class="brand" href="/">${shop.name}</a>${shop.protocolEnabled ? html`<div class="tools">
<label><span class="lbl">${say('currency')}</span> <select id="currency-switch" data-shop-currency="${shop.settings.currency}"><option${prefs.chosenCurrency ? '' : raw(' selected')}>${shop.settings.currency}</option>${Object.keys(shop.settings.rates).map((cur) => html`<option${cur === prefs.currency ? raw(' selected') : ''}>${cur}</option>`)}</select></label>
<label><span class="lbl">${say('language')}</span> <select id="lang-switch">${shop.settings.languages.map((l) => html`<option${l === lang ? raw(' selected') : ''}>${l}</option>`)}</select></label>
${opts.cartButton === false ? '' : html`<ucp-cart${opts.cartId ? html` cart-id="${opts.cartId}"` : ''}${currencyAttr(prefs)}></ucp-cart>`}</div>` : ''}</header>`}
<main id="main"${opts.withHeader === false ? html` aria-label="${title} · ${shop.name}"` : ''}>
${body}
</main>
</body>
</html>
`;
  c.header('Content-Security-Policy', pageCsp(opts.ancestors, opts.formTargets));
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'strict-origin-when-cross-origin');
  c.header('Cache-Control', 'no-store');
  return c.html(doc.html, opts.status ?? 200);
}

/** 404 in the shop's chrome (error-pages.ts: for a browser on a shop's host). */
export function notFoundPage(c: Context<AppEnv>, heading?: string) {
  const shop = c.get('shop')!;
  const say = storeWords(prefsOf(c, shop).language);
  return page(c, shop, heading ?? say('nf_title'), html`<h1>${heading ?? say('nf_title')}</h1><p>${say('nf_lead')}</p><p><a href="/">${say('shop_home')}</a></p>`, { status: 404 });
}

export function storefrontPages() {
  const app = new Hono<AppEnv>();

  // No shop for this Host (the platform's own address): fall through to the next handlers.
  // The whole catalog: search, category filter and numbered pages (catalog-pages.ts).
  app.get('/', async (c, next) => {
    const shop = c.get('shop');
    if (!shop) return next();
    const prefs = prefsOf(c, shop);
    const home = await homeContent(c, shop, prefs, storeWords(prefs.language));
    return page(c, shop, storeWords(prefs.language)('home'), home.content, home.live ? { preload: 'search' } : {});
  });

  app.get('/products/:handle', async (c, next) => {
    const shop = c.get('shop');
    if (!shop) return next();
    const prefs = prefsOf(c, shop);
    const lang = prefs.language;
    const row = await c.get('db').selectFrom('products').select(['id', 'handle', 'doc']).where('shop_id', '=', shop.id).where('handle', '=', c.req.param('handle')).executeTakeFirst();
    if (!row) return notFoundPage(c, storeWords(prefsOf(c, shop).language)('not_found'));
    const title = text(row.doc.title, lang, shop.settings.default_language);
    const product = await getProduct(c.get('db'), shop, { id: row.id }, prefs.locale, c.get('origin'));
    const say = storeWords(lang);
    // The widget (image, price, variant, customizations, add to cart) and what else the catalog
    // knows about the product; without the protocol, the details alone.
    const body = shop.protocolEnabled
      ? html`<h1 class="sr-only">${title}</h1><div class="product"><ucp-product product-id="${row.id}"${currencyAttr(prefs)}></ucp-product>${productDetails(product, say)}</div>`
      : html`<h1>${title}</h1>${product ? html`<p class="price">${priceText(product, prefs, say)}</p>` : ''}<p>${say('offline_note')}</p>${productDetails(product, say)}`;
    // A product with customizations shows the picker at once: its chunk loads alongside host.js.
    const custom = product?.variants.some((v) => v.metadata?.customizations?.length);
    return page(c, shop, title, body, custom && shop.protocolEnabled ? { preload: 'picker' } : {});
  });

  // The cart page = the cart's continue_url. Any id answers 200; the widget reports an unknown cart.
  app.get('/cart/:id', (c, next) => {
    const shop = c.get('shop');
    if (!shop) return next();
    if (!shop.protocolEnabled) return protocolError(c, 404, 'not_found', 'This domain does not offer the Universal Commerce Protocol.');
    const ancestors = frameAncestors(shop.settings.allowed_agent_origins);
    const id = c.req.param('id');
    const q = new URL(c.req.url).searchParams;
    // Same rule as host.js's mode selection (src/host/mode.ts): ep_version or ec_version ⇒ embedded.
    const framed = q.has('ep_version') || q.has('ec_version');
    return page(
      c,
      shop,
      'Cart',
      html`<h1 class="sr-only">Cart</h1><ucp-cart cart-id="${id}" mode="page" allowed-hosts="${ancestors.join(' ')}"${framed ? '' : currencyAttr(prefsOf(c, shop))}></ucp-cart>`,
      { ancestors, withHeader: !framed, cartButton: false, ...(framed ? { preload: 'embedded' as const } : {}) },
    );
  });

  return app;
}
