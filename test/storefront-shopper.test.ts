/**
 * What shoppers read on the server-rendered storefront pages (issue 28's rough edges): listing
 * cards with headings and availability in words, one search form, the widgets told the display
 * currency (the shop's own included), and the offline shop's product page with its price.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

const cardOf = (page: string, title: string) => page.split('<li class="card">').find((c) => c.includes(`<h3>${title}</h3>`));

describe('listing cards', () => {
  it('titles are headings (h3 under the listing\'s h2), and availability is said in words', async () => {
    const r = await s.req('demo.localhost', 'GET', '/?q=lantern');
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/<h2 class="sub">[^<]+<\/h2><ul class="grid cards">/);
    expect(cardOf(r.text, 'Rechargeable Camp Lantern')).toContain('<p class="avail">Pre-order</p>');
    const lamp = await s.req('demo.localhost', 'GET', '/?q=lamp');
    expect(cardOf(lamp.text, 'Brass Desk Lamp')).toContain('<p class="avail">Backorder</p>');
    const spoons = await s.req('demo.localhost', 'GET', '/?q=spoons', undefined, { cookie: 'ucp_lang=fr' });
    expect(spoons.text).toContain('<p class="avail">En rupture de stock</p>');
    // A product with some variant in stock says nothing.
    const tee = await s.req('demo.localhost', 'GET', '/?q=tee');
    expect(tee.text.split('<li class="card">')[1]).not.toContain('class="avail"');
  });

  it('the search form labels its fields visibly, as <ucp-search> does, and the element owns the URL', async () => {
    const r = await s.req('demo.localhost', 'GET', '/');
    expect(r.text).toContain('<label class="grow">Search the shop<input name="q" type="search"');
    expect(r.text).toMatch(/<ucp-search [^>]*page-size="12" sync-url currency="USD">/);
    const two = await s.req('demo.localhost', 'GET', '/?page=2');
    expect(two.text).not.toContain('<ucp-search');
    expect(two.text).toContain('<label class="grow">Search the shop');
  });
});

describe('the display currency', () => {
  it('widgets always carry it (the shop\'s own too); the switcher\'s shop option has its code as value', async () => {
    const usd = await s.req('demo.localhost', 'GET', '/products/engraved-flask');
    expect(usd.text).toContain('<select id="currency-switch" data-shop-currency="USD"><option selected>USD</option>');
    expect(usd.text).toContain('<ucp-cart currency="USD"></ucp-cart>');
    expect(usd.text).toContain('currency="USD"></ucp-product>');
    const eur = await s.req('demo.localhost', 'GET', '/products/engraved-flask', undefined, { cookie: 'ucp_currency=EUR' });
    expect(eur.text).toContain('<option>USD</option>');
    expect(eur.text).toContain('<option selected>EUR</option>');
    expect(eur.text).toContain('<ucp-cart currency="EUR"></ucp-cart>');
    // The cart page (not framed) too; a framed one follows its host.
    expect((await s.req('demo.localhost', 'GET', '/cart/c_1', undefined, { cookie: 'ucp_currency=EUR' })).text).toMatch(/<ucp-cart cart-id="c_1" mode="page" allowed-hosts="[^"]*" currency="EUR">/);
    expect((await s.req('demo.localhost', 'GET', '/cart/c_1?ep_version=2026-04-08')).text).not.toMatch(/<ucp-cart cart-id="c_1"[^>]*currency=/);
  });
});

describe('the offline shop', () => {
  it('its product page shows the price its listing shows, and says why there is no cart', async () => {
    const list = await s.req('offline.localhost', 'GET', '/');
    const card = list.text.split('<li class="card">').find((c) => c.includes('/products/cast-iron-teapot'))!;
    const price = /<p class="price">([^<]+)<\/p>/.exec(card)![1];
    const r = await s.req('offline.localhost', 'GET', '/products/cast-iron-teapot');
    expect(r.status).toBe(200);
    expect(r.text).toContain(`<p class="price">${price}</p>`);
    expect(r.text).toContain('This shop does not take orders online');
    expect(r.text).not.toContain('<ucp-');
  });
});
