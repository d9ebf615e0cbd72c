/**
 * The storefront's catalog pages (server/storefront/catalog-pages.ts): the home page reaches every
 * product through numbered pages, search and the category filter are the UCP catalog search's,
 * bad query strings fall back to page 1, and the product page shows the catalog's details.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { PAGE_SIZE } from '../server/storefront/catalog-pages.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

const page = async (path: string, headers: Record<string, string> = {}) => {
  const r = await s.req('demo.localhost', 'GET', path, undefined, headers);
  expect(r.status, path).toBe(200);
  return r.text as string;
};
const cardLinks = (html: string) => [...html.matchAll(/<li class="card"><a href="([^"]+)"/g)].map((m) => m[1]);

describe('home page', () => {
  it('numbered pages reach every product once, in catalog order, with Next until the last page', async () => {
    const all = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { filters: {}, pagination: { limit: 100 } });
    const total = (await s.db.selectFrom('products').select(({ fn }) => fn.countAll<number>().as('n')).where('shop_id', '=', 'shop_demo').executeTakeFirstOrThrow()).n;
    expect(all.status).toBeLessThan(500);
    const seen: string[] = [];
    for (let n = 1; n <= 10; n++) {
      const html = await page(n === 1 ? '/' : `/?page=${n}`);
      const links = cardLinks(html);
      seen.push(...links);
      if (!html.includes('rel="next"')) break;
      expect(links).toHaveLength(PAGE_SIZE);
    }
    expect(seen.length).toBe(Number(total));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.every((h) => h.startsWith('/products/'))).toBe(true);
  });

  it('search and category narrow the cards like the UCP search; each name appears once per card', async () => {
    const html = await page('/?q=flask');
    const links = cardLinks(html);
    expect(links).toContain('/products/engraved-flask');
    const rest = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'flask', pagination: { limit: PAGE_SIZE } });
    expect(links).toEqual(rest.body.products.map((p: { handle: string }) => `/products/${p.handle}`));
    expect(html.match(/Engraved Steel Flask/g)).toHaveLength(1);
    const kitchen = cardLinks(await page('/?category=kitchen'));
    const restKitchen = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { filters: { categories: ['kitchen'] }, pagination: { limit: PAGE_SIZE } });
    expect(kitchen).toEqual(restKitchen.body.products.map((p: { handle: string }) => `/products/${p.handle}`));
    expect(kitchen.length).toBeGreaterThan(0);
  });

  it('a query string it cannot use is page 1 of everything, never an error; nothing found says so', async () => {
    const first = cardLinks(await page('/'));
    for (const q of ['?page=0', '?page=-3', '?page=abc', '?page=1e3x', '?category=' + 'x'.repeat(500) + '&page=2']) {
      const html = await page(`/${q}`);
      if (q.includes('category')) expect(html).toContain('No products match');
      else expect(cardLinks(html)).toEqual(first);
    }
    expect(await page('/?q=zzzzqqqxxx')).toContain('No products match your search.');
    expect(await page('/?page=999')).toContain('No products match your search.');
    expect(await page('/?q=%ff%fe')).toContain('<h1>'); // not UTF-8: searched as typed, no error
    expect((await s.req('demo.localhost', 'GET', '/?q=a%00')).status).toBe(400); // NUL: the edge's input rule
  });

  it('is in the shopper\'s language and currency', async () => {
    const html = await page('/', { cookie: 'ucp_lang=fr; ucp_currency=EUR' });
    expect(html).toContain('Rechercher dans la boutique');
    expect(html).toContain('Tous les produits');
    expect(html).toMatch(/\d+,\d{2}\s€/);
  });
});

describe('product page', () => {
  it('shows description, rating, gallery and the options by name beside the widget', async () => {
    const html = await page('/products/engraved-flask');
    expect(html).toContain('<ucp-product product-id="prod_engraved_flask"');
    expect(html).toContain('<h2>Description</h2>');
    expect(html).toMatch(/Rated \d(\.\d)? out of 5/);
    expect(html).toContain('<dt>Finish</dt>');
    expect(html).toContain('class="gallery"');
    const fr = await page('/products/engraved-flask', { cookie: 'ucp_lang=fr' });
    expect(fr).toContain('<h2>Description</h2>');
    expect(fr).toMatch(/Noté \d(,|\.)?\d? sur 5/);
  });
});
