/**
 * `POST /dev/shops/{id}/clone` (server/dev/clone.ts): a fresh copy of a demo shop under a new
 * `*.localhost` domain, the per-test isolation of `ucp-storefront/testing` (docs/ci.md). The copy
 * answers on its own domain with the demo's ids; its carts, and a reset of the demo, do not cross
 * over; bad input is a 4xx naming the field; web pages cannot fire it; production has no such route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

const JSON_TYPE = { 'content-type': 'application/json' };
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const clone = (body?: unknown, headers: Record<string, string> = JSON_TYPE, id = 'shop_demo') => s.req('localhost', 'POST', `/dev/shops/${id}/clone`, body, headers);
const cart = (domain: string) => s.req(domain, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] });

describe('POST /dev/shops/{id}/clone', () => {
  it('gives a shop of its own on a fresh *.localhost domain, with the demo catalog and codes', async () => {
    const [a, b] = await Promise.all([clone({}), clone(undefined)]);
    expect(a.status, a.text).toBe(201);
    expect(b.status, b.text).toBe(201);
    expect(a.body).toMatchObject({ id: expect.stringMatching(/^shop_demo_[0-9a-f]{10}$/), domain: expect.stringMatching(/^demo-[0-9a-f]{10}\.localhost$/), source: 'shop_demo', url: `http://${a.body.domain}:${s.port}` });
    expect(a.body.products).toBeGreaterThan(10);
    expect(b.body.domain).not.toBe(a.body.domain);
    // The copy's discovery names its own domain; the demo's variant ids and discount codes work there.
    expect((await s.req(a.body.domain, 'GET', '/.well-known/ucp')).body.ucp.services['dev.ucp.shopping'][0].endpoint).toContain(`//${a.body.domain}:`);
    const created = await cart(a.body.domain);
    expect(created.status, created.text).toBe(201);
    expect(created.body.continue_url).toBe(`http://${a.body.domain}:${s.port}/cart/${created.body.id}`);
    // Carts do not cross shops, and a reset of the demo leaves the copy's carts alone.
    expect((await s.req('demo.localhost', 'GET', `/api/ucp/carts/${created.body.id}`)).body.messages?.[0]?.code).toBe('not_found');
    expect((await s.req(b.body.domain, 'GET', `/api/ucp/carts/${created.body.id}`)).body.messages?.[0]?.code).toBe('not_found');
    expect((await s.req('localhost', 'POST', '/dev/shops/shop_demo/reset', undefined, JSON_TYPE)).status).toBe(200);
    expect((await s.req(a.body.domain, 'GET', `/api/ucp/carts/${created.body.id}`)).body.id).toBe(created.body.id);
  });

  it('takes the source by domain too', async () => {
    const r = await clone({}, JSON_TYPE, 'demo.localhost');
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ source: 'shop_demo', domain: expect.stringMatching(/^demo-/) });
  });

  it('takes a domain of your choosing under .localhost, once', async () => {
    const r = await clone({ domain: 'mine-1.localhost' });
    expect(r.status, r.text).toBe(201);
    expect(r.body.domain).toBe('mine-1.localhost');
    expect((await cart('mine-1.localhost')).status).toBe(201);
    const again = await clone({ domain: 'mine-1.localhost' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'domain_taken', content: expect.stringContaining(r.body.id) });
  });

  it('refuses bad input with a 4xx naming it, and creates nothing', async () => {
    const before = (await s.db.selectFrom('shops').select('id').execute()).length;
    const cases: Array<[string, unknown, Record<string, string>, string, number, string]> = [
      ['a real domain', { domain: 'shop.example.com' }, JSON_TYPE, 'shop_demo', 400, '$.domain'],
      ['upper case', { domain: 'Demo.localhost' }, JSON_TYPE, 'shop_demo', 400, '$.domain'],
      ['bare localhost', { domain: 'localhost' }, JSON_TYPE, 'shop_demo', 400, '$.domain'],
      ['not a string', { domain: 7 }, JSON_TYPE, 'shop_demo', 400, '$.domain'],
      ['an unknown field', { name: 'x' }, JSON_TYPE, 'shop_demo', 400, '$.name'],
    ];
    for (const [what, body, headers, id, status, path] of cases) {
      const r = await clone(body, headers, id);
      expect(r.status, what).toBe(status);
      expect(r.body.messages?.[0]?.path ?? r.body.content, what).toContain(path);
    }
    expect((await clone({}, JSON_TYPE, 'shop_nope')).status).toBe(404);
    expect((await clone({}, JSON_TYPE, 'nope.localhost')).status).toBe(404);
    expect((await clone('{', JSON_TYPE)).status).toBe(400);
    // Same guard as reset (issue 29): a form post or another origin is refused.
    expect((await clone('x=1', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect((await clone({}, { ...JSON_TYPE, origin: 'http://evil.example' })).status).toBe(403);
    expect((await s.db.selectFrom('shops').select('id').execute()).length).toBe(before);
  });

  it('is absent in production', async () => {
    const prod = await startTestServer({ mode: 'production', seedDemo: true });
    try {
      expect((await prod.req('localhost', 'POST', '/dev/shops/shop_demo/clone', {}, JSON_TYPE)).status).toBe(404);
    } finally {
      await prod.close();
    }
  });
});
