/**
 * The storefront's own access (server/core/access/storefront-tokens.ts, docs/access.md): a shop's pages
 * carry a token that lets the widget do on that shop what its policy keeps from anonymous agents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { checkStorefrontToken, issueStorefrontToken } from '../server/core/access/storefront-tokens.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const tokenOf = (htmlText: string) => /<meta name="ucp-storefront-token" content="([^"]+)">/.exec(htmlText)?.[1];

describe('storefront tokens', () => {
  it('are bound to a shop and expire', () => {
    const now = 1_800_000_000;
    const t = issueStorefrontToken('shop_strict', now);
    expect(checkStorefrontToken('shop_strict', t, now + 60)).toBe('ok');
    expect(checkStorefrontToken('shop_demo', t, now + 60)).toBe('invalid');
    expect(checkStorefrontToken('shop_strict', t, now + 24 * 3600 + 1)).toBe('expired');
    expect(checkStorefrontToken('shop_strict', t.slice(0, -1) + (t.endsWith('A') ? 'B' : 'A'), now)).toBe('invalid');
    expect(checkStorefrontToken('shop_strict', 'sft_garbage', now)).toBe('invalid');
  });

  it("strict.localhost: anonymous get_product is refused, the page's own token may build a cart", async () => {
    const anon = await s.req('strict.localhost', 'POST', '/api/ucp/catalog/product', { id: 'strict_var_padlock' });
    expect(anon.status).toBe(401);
    const home = await s.req('strict.localhost', 'GET', '/');
    const token = tokenOf(home.text)!;
    expect(token).toMatch(/^sft_/);
    const auth = { authorization: `Bearer ${token}` };
    const product = await s.req('strict.localhost', 'POST', '/api/ucp/catalog/product', { id: 'strict_var_padlock' }, auth);
    expect(product.status).toBe(200);
    const cart = await s.req('strict.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'strict_var_padlock' }, quantity: 1 }] }, auth);
    expect(cart.status).toBe(201);
    // Another shop's page token is no key here.
    const demoToken = tokenOf((await s.req('demo.localhost', 'GET', '/')).text)!;
    const cross = await s.req('strict.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'strict_var_padlock' }, quantity: 1 }] }, { authorization: `Bearer ${demoToken}` });
    expect(cross.status).toBe(401);
    expect(cross.body.code).toBe('invalid_credentials');
  });

  it('shops without the protocol carry no token', async () => {
    const r = await s.req('offline.localhost', 'GET', '/');
    expect(tokenOf(r.text)).toBeUndefined();
  });
});
