/**
 * The checkout handoff (docs/carts.md "Checkout handoff"): the URL template rule, pure; then the
 * storefront route through the real server — the demo shop's form POST to its preview page, a shop
 * without a checkout, and the shopper-worded refusals. Also money in server messages (formatted by locale).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { checkoutHandoff } from '../server/core/carts/checkout-handoff.ts';
import { CheckoutHandoff } from '../server/formats/catalog-format.ts';
import { formatMoney } from '../server/core/shared/money.ts';

const cart = (over: Record<string, unknown> = {}) =>
  ({
    id: 'cart_1',
    currency: 'EUR',
    context: { language: 'fr' },
    line_items: [
      { id: 'li_1', item: { id: 'var/a b', title: 'A', price: 100 }, quantity: 2, totals: [] },
      { id: 'li_2', item: { id: 'var_c', title: 'C', price: 50 }, quantity: 1, totals: [] },
    ],
    totals: [{ type: 'total', amount: 250 }],
    continue_url: 'x',
    expires_at: 'x',
    ...over,
  }) as any;

describe('checkoutHandoff', () => {
  it('fills a cart permalink (Shopify form) with encoded values', () => {
    const setting = CheckoutHandoff.parse({ url: 'https://shop.example/cart/{lines}?locale={language}&ref={cart_id}' });
    expect(checkoutHandoff(setting, cart(), 'http://o')).toEqual({ kind: 'redirect', url: 'https://shop.example/cart/var%2Fa%20b:2,var_c:1?locale=fr&ref=cart_1' });
  });

  it('takes a line template and separator, a SKU map, and resolves a path on the storefront', () => {
    const setting = CheckoutHandoff.parse({ url: '/checkout?items={lines}&cur={currency}', line: '{sku}x{quantity}', separator: '|' });
    expect(checkoutHandoff(setting, cart(), 'http://shop.test', new Map([['var_c', 'SKU-C']]))).toEqual({ kind: 'redirect', url: 'http://shop.test/checkout?items=var%2Fa%20bx2|SKU-Cx1&cur=EUR' });
  });

  it('POST hands over the whole cart; empty, out-of-stock and unconfigured are not handed over', () => {
    const post = checkoutHandoff(CheckoutHandoff.parse({ url: 'https://pay.example/in', method: 'POST' }), cart(), 'http://o');
    expect(post).toMatchObject({ kind: 'post', url: 'https://pay.example/in', fields: { cart_id: 'cart_1' } });
    expect(JSON.parse((post as any).fields.cart).line_items).toHaveLength(2);
    expect(checkoutHandoff(undefined, cart(), 'http://o')).toEqual({ kind: 'summary' });
    expect(checkoutHandoff(undefined, cart({ line_items: [] }), 'http://o')).toEqual({ kind: 'refused', reason: 'empty' });
    const oos = cart({ messages: [{ type: 'error', code: 'out_of_stock', path: '$.line_items[0]', content: 'x', severity: 'recoverable' }] });
    expect(checkoutHandoff(undefined, oos, 'http://o')).toEqual({ kind: 'refused', reason: 'out_of_stock' });
  });

  it('refuses settings that are not http(s) URLs or paths', () => {
    for (const url of ['javascript:alert(1)', 'shop.example/cart', '']) expect(CheckoutHandoff.safeParse({ url }).success, url).toBe(false);
  });
});

describe('formatMoney', () => {
  it('formats like the prices shoppers see', () => {
    expect(formatMoney(15000, 'USD', 'en')).toBe('$150.00');
    expect(formatMoney(15000, 'USD', 'fr').replace(/\s/g, ' ')).toBe('150,00 $US');
    expect(formatMoney(4848, 'JPY', 'en')).toBe('¥4,848');
  });
});

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const FLASK = { item: { id: 'var_flask_steel' }, quantity: 2, customizations: [{ id: 'engraving', value: 'For Sam' }, { id: 'gift_box', value: 'kraft' }] };
const formField = (htmlText: string, name: string) => {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(htmlText);
  return m ? m[1].replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&') : undefined;
};

describe('GET /cart/{id}/checkout', () => {
  it('demo shop: a form POST of the cart to its preview page, which shows lines, customizations, totals and currency', async () => {
    const created = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [FLASK], context: { currency: 'EUR' } });
    const r = await s.req('demo.localhost', 'GET', `/cart/${created.body.id}/checkout`);
    expect(r.status).toBe(200);
    expect(r.text).toContain(`action="http://demo.localhost:${s.port}/handoff-preview"`);
    expect(r.text).toContain('data-autosubmit');
    const posted = formField(r.text, 'cart')!;
    expect(JSON.parse(posted)).toMatchObject({ id: created.body.id, currency: 'EUR' });
    const preview = await s.req('demo.localhost', 'POST', '/handoff-preview', new URLSearchParams({ cart: posted, cart_id: created.body.id }).toString(), { 'content-type': 'application/x-www-form-urlencoded' });
    expect(preview.status).toBe(200);
    expect(preview.text).toMatch(/shop’s own checkout takes over/);
    expect(preview.text).toContain('Engraving: For Sam');
    expect(preview.text).toContain('Prices in EUR');
    const total = created.body.totals.find((t: any) => t.type === 'total').amount;
    expect(preview.text).toContain(formatMoney(total, 'EUR', 'en').replace(/&/g, '&amp;'));
  });

  it('the preview page refuses what is not a handed-over cart, in shopper words', async () => {
    const r = await s.req('demo.localhost', 'POST', '/handoff-preview', 'cart=%7B%7D', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.status).toBe(400);
    expect(r.text).toContain('Nothing was handed over');
  });

  it('the preview page takes posts from its own shop only: another origin cannot put its words under the shop\'s heading', async () => {
    const created = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [FLASK] });
    const handed = JSON.parse(formField((await s.req('demo.localhost', 'GET', `/cart/${created.body.id}/checkout`)).text, 'cart')!);
    handed.line_items[0].item.title = 'Free iPhone! Call +1-555-0100';
    const spoof = JSON.stringify(handed);
    const form = (headers: Record<string, string>) => s.req('demo.localhost', 'POST', '/handoff-preview', new URLSearchParams({ cart: spoof }).toString(), { 'content-type': 'application/x-www-form-urlencoded', ...headers });
    const foreign: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { origin: `http://other.localhost:${s.port}` }, // another shop on the same server
      { origin: 'null' },
      { referer: 'https://evil.example/page' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: `http://demo.localhost:${s.port}` },
    ];
    for (const headers of foreign) {
      const r = await form(headers);
      expect(r.status, JSON.stringify(headers)).toBe(403);
      expect(r.text, JSON.stringify(headers)).not.toContain('Free iPhone');
      expect(r.text).toContain('Nothing was handed over');
    }
    // The shop's own checkout page posting (what the browser sends), also behind a proxy ending TLS.
    for (const origin of [`http://demo.localhost:${s.port}`, `https://demo.localhost:${s.port}`]) {
      const r = await form({ origin, 'sec-fetch-site': 'same-origin' });
      expect(r.status, origin).toBe(200);
      expect(r.text).toContain('Free iPhone');
    }
  });

  it('a shop without a checkout shows the summary; unknown, empty and out-of-stock carts are explained', async () => {
    const other = await s.req('other.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'other_var_shaker_steel' }, quantity: 1 }] });
    const summary = await s.req('other.localhost', 'GET', `/cart/${other.body.id}/checkout`);
    expect(summary.status).toBe(200);
    expect(summary.text).toContain('has not connected its online checkout');
    // The header's cart button shows this cart, which may have been filled from another origin's widget.
    expect(summary.text).toContain(`<ucp-cart cart-id="${other.body.id}"`);

    const gone = await s.req('demo.localhost', 'GET', '/cart/cart_nope/checkout', undefined, { cookie: 'ucp_lang=fr' });
    expect(gone.status).toBe(410);
    expect(gone.text).toContain('Ce panier n’est plus disponible');
    expect(gone.text).toContain('<html lang="fr">');

    const c = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] });
    await s.req('demo.localhost', 'POST', `/api/ucp/carts/${c.body.id}/cancel`);
    const empty = await s.req('demo.localhost', 'GET', `/cart/${c.body.id}/checkout`);
    expect(empty.status).toBe(409);
    expect(empty.text).toContain('Your cart is empty');
  });
});

describe('money in messages', () => {
  it('a discount minimum reads like the prices, in the cart language', async () => {
    const en = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }], discounts: { codes: ['BIGSPENDER'] } });
    expect(en.body.messages[0].content).toContain('$150.00');
    const fr = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }], discounts: { codes: ['BIGSPENDER'] }, context: { language: 'fr', currency: 'EUR' } });
    expect(fr.body.messages[0].content.replace(/\s/g, ' ')).toContain('138,00 €');
  });
});
