import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { tokensFor } from './support/oauth.ts';
import { ROUTE_SCOPES } from '../server/merchant/routes.ts';

let s: TestServer;
let all: string; // a token with every merchant scope (shop_demo)
let other: string; // shop_other's owner, every scope
beforeAll(async () => {
  s = await startTestServer();
  const scopes = [...new Set(ROUTE_SCOPES.map((r) => r.scope))].join(' ');
  all = (await tokensFor(s, scopes)).access_token;
  other = (await tokensFor(s, scopes, { username: 'owner@other.localhost', password: 'other' })).access_token;
});
afterAll(() => s.close());

const api = (token: string | null, method: string, path: string, body?: unknown, merchant = 'shop_demo') =>
  s.req('localhost', method, `/merchants/${merchant}${path}`, body, token ? { authorization: `Bearer ${token}` } : {});

const product = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  handle: id.replace(/_/g, '-'),
  title: 'Zanzibar Quokka Lamp',
  description: 'A lamp shaped like a quokka.',
  categories: ['lighting'],
  variants: [{ id: `${id}_v1`, sku: `SKU-${id}`, price: 4500 }],
  ...extra,
});

const concrete = (path: string) => path.replace(/\{\w+\}/, 'x');

describe('scope-by-route table', () => {
  it('every route: 401 without token, 404 for another merchant, 403 naming the scope without it', async () => {
    for (const r of ROUTE_SCOPES) {
      const body = r.method === 'POST' || r.method === 'PUT' ? {} : undefined;
      const none = await api(null, r.method, concrete(r.path), body);
      expect(none.status, `${r.method} ${r.path}`).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      const cross = await api(other, r.method, concrete(r.path), body);
      expect(cross.status, `${r.method} ${r.path} cross-merchant`).toBe(404);
      // A token carrying every scope of the table except this route's.
      const others = [...new Set(ROUTE_SCOPES.map((x) => x.scope))].filter((x) => x !== r.scope);
      const t = (await tokensFor(s, others.join(' '))).access_token;
      const denied = await api(t, r.method, concrete(r.path), body);
      expect(denied.status, `${r.method} ${r.path} without ${r.scope}`).toBe(403);
      expect(denied.headers['www-authenticate']).toBe(`Bearer error="insufficient_scope", scope="${r.scope}", error_description="This call needs the ${r.scope} scope"`);
      expect(denied.body.error).toMatchObject({ code: 'insufficient_scope', required_scope: r.scope });
      // With the scope, the route is reached (whatever the business answer).
      const ok = await api(all, r.method, concrete(r.path), body);
      expect([200, 201, 204, 404, 409, 422], `${r.method} ${r.path} with scope`).toContain(ok.status);
    }
  }, 120_000);

  it('an invalid token is 401 invalid_token', async () => {
    const r = await api('garbage', 'GET', '/3.0/products');
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toMatch(/error="invalid_token"/);
    expect(r.body.error.code).toBe('invalid_token');
  });

  it('unknown paths answer the same envelope', async () => {
    const r = await api(all, 'GET', '/3.0/nothing');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
  });
});

describe('products', () => {
  it('lists with pagination', async () => {
    const p1 = await api(all, 'GET', '/3.0/products?limit=2');
    expect(p1.status).toBe(200);
    expect(p1.body.products).toHaveLength(2);
    expect(p1.body.pagination.next_cursor).toBeTruthy();
    const p2 = await api(all, 'GET', `/3.0/products?limit=2&cursor=${p1.body.pagination.next_cursor}`);
    expect(p2.body.products[0].id).not.toBe(p1.body.products[0].id);
    expect((await api(all, 'GET', '/3.0/products?limit=0')).status).toBe(400);
  });

  it('a cursor this API did not write is 400 invalid_parameter, never page one', async () => {
    const p1 = await api(all, 'GET', '/3.0/products?limit=2');
    for (const cursor of ['%25%25%25', '!!!', `${p1.body.pagination.next_cursor}x`, Buffer.from('p:-1').toString('base64url'), Buffer.from('p:1.5').toString('base64url')]) {
      const r = await api(all, 'GET', `/3.0/products?limit=2&cursor=${cursor}`);
      expect(r.status, cursor).toBe(400);
      expect(r.body.error.code).toBe('invalid_parameter');
    }
  });

  it('a product created here is found by UCP catalog search at once; PUT and DELETE too', async () => {
    const created = await api(all, 'POST', '/3.0/products', product('prod_quokka_lamp'));
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/merchants/shop_demo/3.0/products/prod_quokka_lamp');
    let found = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'quokka' });
    expect(found.body.products.map((p: any) => p.id)).toContain('prod_quokka_lamp');
    expect((await api(all, 'GET', '/3.0/products/prod_quokka_lamp')).body.title).toBe('Zanzibar Quokka Lamp');
    expect((await api(all, 'POST', '/3.0/products', product('prod_quokka_lamp'))).status).toBe(409);

    const put = await api(all, 'PUT', '/3.0/products/prod_quokka_lamp', { ...product('prod_quokka_lamp'), title: 'Zanzibar Wombat Lamp' });
    expect(put.status).toBe(200);
    found = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'wombat' });
    expect(found.body.products.map((p: any) => p.id)).toContain('prod_quokka_lamp');

    expect((await api(all, 'DELETE', '/3.0/products/prod_quokka_lamp')).status).toBe(204);
    expect((await api(all, 'GET', '/3.0/products/prod_quokka_lamp')).status).toBe(404);
    found = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'wombat' });
    expect(found.body.products.map((p: any) => p.id)).not.toContain('prod_quokka_lamp');
  });

  it('validates the product body (422 naming fields, 415, 400)', async () => {
    const bad = await api(all, 'POST', '/3.0/products', { id: 'x', variants: [] });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(bad.body.error.details.map((d: any) => d.path)).toEqual(expect.arrayContaining(['$.handle', '$.variants']));
    const txt = await s.req('localhost', 'POST', '/merchants/shop_demo/3.0/products', 'x', { authorization: `Bearer ${all}`, 'content-type': 'text/plain' });
    expect(txt.status).toBe(415);
    const broken = await s.req('localhost', 'POST', '/merchants/shop_demo/3.0/products', '{', { authorization: `Bearer ${all}`, 'content-type': 'application/json' });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_json');
  });

  it("the other merchant's catalog is separate", async () => {
    const r = await api(other, 'GET', '/3.0/products', undefined, 'shop_other');
    expect(r.status).toBe(200);
    expect(r.body.products.every((p: any) => p.id.startsWith('other_'))).toBe(true);
  });
});

describe('customers and orders', () => {
  it('creates a customer, then an order priced from the catalog', async () => {
    const cus = await api(all, 'POST', '/3.0/customers', { email: 'Ada@Example.com', first_name: 'Ada', last_name: 'Lovelace' });
    expect(cus.status).toBe(201);
    expect(cus.body).toMatchObject({ id: expect.stringMatching(/^cus_/), email: 'ada@example.com' });
    expect((await api(all, 'POST', '/3.0/customers', { email: 'ada@example.com' })).status).toBe(409);
    const list = await api(all, 'GET', '/3.0/customers');
    expect(list.body.customers.map((c: any) => c.id)).toContain(cus.body.id);

    await api(all, 'POST', '/3.0/products', product('prod_order_lamp'));
    const order = await api(all, 'POST', '/3.0/orders', { customer_id: cus.body.id, items: [{ variant_id: 'prod_order_lamp_v1', quantity: 3 }] });
    expect(order.status).toBe(201);
    expect(order.body).toMatchObject({
      id: expect.stringMatching(/^ord_/),
      status: 'created',
      customer_id: cus.body.id,
      currency: 'USD',
      items: [{ variant_id: 'prod_order_lamp_v1', product_id: 'prod_order_lamp', quantity: 3, unit_price: 4500, total: 13500 }],
      totals: { subtotal: 13500, total: 13500 },
    });
    const got = await api(all, 'GET', `/3.0/orders/${order.body.id}`);
    expect(got.body).toEqual(order.body);
    expect((await api(all, 'GET', '/3.0/orders')).body.orders.map((o: any) => o.id)).toContain(order.body.id);
    expect((await api(other, 'GET', `/3.0/orders/${order.body.id}`, undefined, 'shop_other')).status).toBe(404);
  });

  it('validates every field of an order', async () => {
    const shape = await api(all, 'POST', '/3.0/orders', { customer_id: '', items: [{ variant_id: 'v', quantity: 0 }, { quantity: 1.5 }], extra: 1 });
    expect(shape.status).toBe(422);
    const paths = shape.body.error.details.map((d: any) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['$.customer_id', '$.items[0].quantity', '$.items[1].variant_id', '$.items[1].quantity']));
    const refs = await api(all, 'POST', '/3.0/orders', { customer_id: 'cus_nope', items: [{ variant_id: 'var_nope', quantity: 1 }] });
    expect(refs.status).toBe(422);
    expect(refs.body.error.details.map((d: any) => d.code)).toEqual(['unknown_customer', 'unknown_variant']);
    const empty = await api(all, 'POST', '/3.0/orders', { customer_id: 'cus_nope', items: [] });
    expect(empty.status).toBe(422);
  });
});
