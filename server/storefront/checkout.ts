/**
 * The checkout handoff on the storefront (docs/carts.md "Checkout handoff"): `GET /cart/{id}/checkout`
 * — where the cart's Checkout button goes, and the `continue_url` of `ep.cart.complete` — renders
 * the cart now (stock checked) and hands it to the shop's own checkout per `settings.checkout`:
 * a 303 redirect to the filled URL template, or a form POST of the cart (auto-submitted by
 * public/storefront.js, with a button for when scripts are off). `POST /handoff-preview` is the
 * demo shop's "own checkout": it shows what was handed over. Every failure here is worded for shoppers.
 */
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import type { Shop } from '../formats/types.ts';
import type { Cart } from '../../src/wire/cart.ts';
import { HandoffCart } from '../../src/wire/cart.ts';
import { checkoutHandoff } from '../core/carts/checkout-handoff.ts';
import { formatMoney } from '../core/shared/money.ts';
import { lineAmount, signedAmount } from '../../src/format/amounts.ts';
import { customizationsText } from '../../src/format/line-text.ts';
import { getCartOp } from '../ucp/cart-operations.ts';
import { protocolError } from '../http/errors.ts';
import { provenance } from '../http/origin.ts';
import { html, page, type PageOptions } from './pages.ts';
import { prefsOf } from './prefs.ts';
import { storeWords, type StoreSay, type StoreWord } from './words.ts';

interface SummaryTotal {
  type: string;
  amount: number;
  display_text?: string;
}
/** What a summary reads of a cart (a rendered Cart and a posted HandoffCart both fit). */
interface SummaryCart {
  currency: string;
  line_items: Array<{ item: { title: string; price: number }; quantity: number; customizations?: Array<{ id: string; value: string; display_text?: string }>; totals: SummaryTotal[] }>;
  totals: SummaryTotal[];
}

/** The lines, customizations and totals of a cart, as a table a shopper reads (amounts: src/format/amounts.ts). */
export function cartSummary(cart: SummaryCart, say: StoreSay, lang: string) {
  const fmt = (n: number) => formatMoney(n, cart.currency, lang);
  return html`<p>${say('currency_is', cart.currency)}</p>
<div class="scroll" tabindex="0" role="region" aria-label="${say('cart')}"><table class="summary">
<thead><tr><th scope="col">${say('item')}</th><th scope="col">${say('qty')}</th><th scope="col">${say('price')}</th><th scope="col">${say('line_total')}</th></tr></thead>
<tbody>${cart.line_items.map(
    (l) => html`<tr><td>${l.item.title}${l.customizations?.length ? html`<br><small>${customizationsText(l.customizations)}</small>` : ''}</td><td>${l.quantity}</td><td>${fmt(l.item.price)}</td><td>${fmt(lineAmount(l))}</td></tr>`,
  )}</tbody>
<tfoot>${cart.totals.map((t) => html`<tr><th scope="row" colspan="3">${label(t.type, say) ?? t.display_text ?? t.type}</th><td>${fmt(signedAmount(t))}</td></tr>`)}</tfoot>
</table></div>`;
}

function label(type: string, say: StoreSay): string | undefined {
  return ['subtotal', 'items_discount', 'discount', 'tax', 'total'].includes(type) ? say(type as StoreWord) : undefined;
}

function notice(c: Context<AppEnv>, shop: Shop, text: string, back: string, status: PageOptions['status']) {
  const say = storeWords(prefsOf(c, shop).language);
  return page(c, shop, say('co_title'), html`<h1>${say('co_title')}</h1><p role="alert">${text}</p><p><a href="${back}">${back === '/' ? say('shop_home') : say('co_back')}</a></p>`, { status });
}

/**
 * Whether a POST comes from a page of this shop's own origin (issue 29: any site could post a cart
 * of its own words, rendered under the shop's heading). A browser names the posting page in
 * `Origin` (`Referer` where an old one does not) and says `Sec-Fetch-Site`; a foreign or opaque
 * (`null`) one is refused. Hosts are compared, not schemes: behind a proxy that ends TLS the page
 * is https and the request we see is http. A request naming no page is not a browser's, so it
 * cannot put words in front of a shopper.
 */
function postedFromHere(c: Context<AppEnv>): boolean {
  const from = provenance(c.req, [c.get('origin')], { referer: true });
  return from === 'same' || from === 'unnamed';
}

export function checkoutRoutes() {
  const app = new Hono<AppEnv>();

  app.get('/cart/:id/checkout', async (c, next) => {
    const shop = c.get('shop');
    if (!shop) return next();
    if (!shop.protocolEnabled) return protocolError(c, 404, 'not_found', 'This domain does not offer the Universal Commerce Protocol.');
    const id = c.req.param('id');
    const origin = c.get('origin');
    const say = storeWords(prefsOf(c, shop).language);
    const r = await getCartOp({ db: c.get('db'), shop, origin }, id);
    const body = r.body as Cart & { ucp: { status?: string } };
    if (body.ucp?.status === 'error') return notice(c, shop, say('co_gone'), '/', 410);
    const cart = body as Cart;
    const lang = String(cart.context?.language ?? prefsOf(c, shop).language);
    const back = `/cart/${encodeURIComponent(id)}`;
    const h = checkoutHandoff(shop.settings.checkout, cart, origin);
    if (h.kind === 'refused') return notice(c, shop, say(h.reason === 'empty' ? 'co_empty' : 'co_stock'), back, 409);
    if (h.kind === 'redirect') return c.redirect(h.url, 303);
    if (h.kind === 'summary') {
      return page(c, shop, say('co_title'), html`<h1>${say('co_title')}</h1><p>${say('co_none')}</p>${cartSummary(cart, say, lang)}<p><a href="${back}">${say('co_back')}</a></p>`, { cartId: cart.id });
    }
    const target = new URL(h.url).origin;
    return page(
      c,
      shop,
      say('co_title'),
      html`<h1>${say('co_title')}</h1><form method="post" action="${h.url}" data-autosubmit>
${Object.entries(h.fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
<p role="status">${say('co_going')}</p><button type="submit">${say('co_go')}</button></form><p><a href="${back}">${say('co_back')}</a></p>`,
      { formTargets: target === origin ? [] : [target], cartId: cart.id },
    );
  });

  // The demo shop's "own checkout": shows what the handoff carried (docs/carts.md).
  app.post('/handoff-preview', async (c, next) => {
    const shop = c.get('shop');
    if (!shop) return next();
    const say = storeWords(prefsOf(c, shop).language);
    if (!postedFromHere(c)) {
      return page(c, shop, say('hp_title'), html`<h1>${say('hp_title')}</h1><p role="alert">${say('hp_bad')}</p><p><a href="/">${say('shop_home')}</a></p>`, { status: 403 });
    }
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    let cart: HandoffCart | null = null;
    try {
      const parsed = HandoffCart.safeParse(JSON.parse(String(form.cart ?? '')));
      if (parsed.success) cart = parsed.data;
    } catch {
      /* not JSON: nothing handed over */
    }
    if (!cart) return page(c, shop, say('hp_title'), html`<h1>${say('hp_title')}</h1><p role="alert">${say('hp_bad')}</p><p><a href="/">${say('shop_home')}</a></p>`, { status: 400 });
    const lang = prefsOf(c, shop).language;
    return page(c, shop, say('hp_title'), html`<h1>${say('hp_title')}</h1><p>${say('hp_lead')}</p>${cartSummary(cart, say, lang)}<p><a href="/">${say('shop_home')}</a></p>`);
  });

  return app;
}
