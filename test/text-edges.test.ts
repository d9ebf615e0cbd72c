/**
 * Text the store cannot accept (a lone UTF-16 surrogate, the NUL character) is the caller's
 * mistake: 400 naming the field at every edge, nothing stored (src/wire/input.ts). Before this rule
 * PostgreSQL refused the text and the caller met a 500.
 */
import './support/localhost-dns.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';
import { tokensFor } from './support/oauth.ts';
import { inputProblem } from '../src/wire/input.ts';

const PROFILE = 'https://platform.example/.well-known/ucp';
serveProfiles({ [PROFILE]: platformProfile() });

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

const BAD = { surrogate: 'x\ud800y', low: '\udc00', nul: 'a\u0000b' };
const LINE = { item: { id: 'var_flask_steel' }, quantity: 1 };
const carts = async () => (await s.db.selectFrom('carts').select('id').execute()).length;

describe('the rule', () => {
  it('finds lone surrogates and NUL in values and keys, and lets paired surrogates and other text through', () => {
    expect(inputProblem({ a: [{ b: BAD.surrogate }] })).toMatchObject({ path: '$.a[0].b' });
    expect(inputProblem({ a: BAD.low })).toMatchObject({ path: '$.a' });
    expect(inputProblem({ [BAD.nul]: 1 })?.content).toContain('NUL');
    expect(inputProblem({ ok: '😀 \u200f مرحبا 𝄞', n: 1, z: null })).toBeNull();
  });
});

describe.each(Object.entries(BAD))('%s in text', (_kind, bad) => {
  const cases: Array<[string, unknown, string]> = [
    ['discount code', { line_items: [LINE], discounts: { codes: [bad] } }, '$.discounts.codes[0]'],
    ['buyer', { line_items: [LINE], buyer: { first_name: bad } }, '$.buyer.first_name'],
    ['context.postal_code', { line_items: [LINE], context: { postal_code: bad } }, '$.context.postal_code'],
    ['customization value', { line_items: [{ ...LINE, customizations: [{ id: 'engraving', value: bad }] }] }, '$.line_items[0].customizations[0].value'],
  ];
  it.each(cases)('REST create: %s → 400 at its path, nothing stored', async (_name, body, path) => {
    const before = await carts();
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/carts', body);
    expect(r.status).toBe(400);
    expect(r.body.messages[0]).toMatchObject({ path, code: 'invalid_character' });
    expect(await carts()).toBe(before);
  });

  it('REST update → 400, the cart unchanged', async () => {
    const created = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [LINE] });
    const r = await s.req('demo.localhost', 'PUT', `/api/ucp/carts/${created.body.id}`, { line_items: [LINE], buyer: { email: bad } });
    expect(r.status).toBe(400);
    expect(r.body.messages[0].path).toBe('$.buyer.email');
    expect((await s.req('demo.localhost', 'GET', `/api/ucp/carts/${created.body.id}`)).body.buyer).toBeUndefined();
  });

  it('MCP create_cart → -32602 naming the argument, nothing stored', async () => {
    const before = await carts();
    const r = await s.req('demo.localhost', 'POST', '/mcp', {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'create_cart', arguments: { meta: { 'ucp-agent': { profile: PROFILE } }, cart: { line_items: [LINE], buyer: { last_name: bad } } } },
    }, { accept: 'application/json, text/event-stream' });
    const error = r.body.error ?? r.body.result;
    expect(JSON.stringify(error)).toContain('$.cart.buyer.last_name');
    expect(r.status).toBeLessThan(500);
    expect(await carts()).toBe(before);
  });

  it('merchant API product title → 400 invalid_input naming the field, nothing stored', async () => {
    const token = (await tokensFor(s, 'products_write products_read')).access_token;
    const r = await s.req('localhost', 'POST', '/merchants/shop_demo/3.0/products', { id: 'prod_bad_text', handle: 'bad-text', title: bad, variants: [{ id: 'var_bad_text', price: 100 }] }, { authorization: `Bearer ${token}` });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_input', details: [expect.objectContaining({ path: '$.title' })] });
    expect(await s.db.selectFrom('products').select('id').where('id', '=', 'prod_bad_text').executeTakeFirst()).toBeUndefined();
  });

  it('GraphQL variables → 400 naming the variable', async () => {
    const r = await s.req('demo.localhost', 'POST', '/graphql/3.0', { query: 'query($x: String) { apiVersion }', variables: { x: bad } }, { accept: 'application/graphql-response+json' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions).toMatchObject({ code: 'INVALID_INPUT', path: '$.variables.x' });
  });
});

describe('NUL in OAuth forms', () => {
  it('token endpoint: 400 invalid_request naming the parameter', async () => {
    const r = await s.req('localhost', 'POST', '/oauth2/access_token', 'grant_type=authorization_code&code=a%00b&client_id=demo-app&client_secret=demo-secret', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid_request' });
    expect(r.body.error_description).toContain('"code"');
  });

  it('sign-in form: a 400 page naming the field', async () => {
    const r = await s.req('localhost', 'POST', '/admin/login', 'username=owner%00@demo.localhost&password=demo', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.status).toBe(400);
    expect(r.text).toContain('username');
  });
});
