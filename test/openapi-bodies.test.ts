/**
 * The OpenAPI documents describe real answers (issue 30 point 1): every success and error body is
 * an in-document `$ref` to `components.schemas` (no link to ucp.dev, no bare `{type: object}`), and
 * the answers the server really sends validate against those components (Ajv, draft 2020-12, with
 * the components as one schema resource, so their `$ref`s resolve as a code generator's would).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020.js';
import { startTestServer, type TestServer } from './support/server.ts';
import { tokensFor } from './support/oauth.ts';

let s: TestServer;
let ucp: any;
let merchant: any;
beforeAll(async () => {
  s = await startTestServer();
  ucp = (await s.req('demo.localhost', 'GET', '/api/ucp/openapi.json')).body;
  merchant = (await s.req('localhost', 'GET', '/merchants/shop_demo/3.0/openapi.json')).body;
});
afterAll(() => s.close());

/** Every `$ref` in a document, with where it is. */
function refs(node: unknown, at = '#', out: Array<[string, string]> = []): Array<[string, string]> {
  if (Array.isArray(node)) node.forEach((v, i) => refs(v, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push([at, v]);
      else refs(v, `${at}/${k}`, out);
    }
  }
  return out;
}

const resolvePointer = (doc: any, ref: string) => ref.slice(2).split('/').reduce((n, k) => n?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);

/** A validator for `components.schemas[name]` of a document. */
function validator(doc: any) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'https://openapi.test/doc', components: doc.components });
  const errorsOf = (name: string, body: unknown) => {
    const v = ajv.getSchema(`https://openapi.test/doc#/components/schemas/${name}`)!;
    expect(v, name).toBeDefined();
    return v(body) ? [] : v.errors;
  };
  return Object.assign((name: string, body: unknown) => expect(errorsOf(name, body), `${name}: ${JSON.stringify(body).slice(0, 200)}`).toEqual([]), { errorsOf });
}

describe.each([
  ['UCP REST', () => ucp],
  ['merchant API', () => merchant],
])('%s document', (_name, doc) => {
  it('has only in-document $refs, each resolving', () => {
    const all = refs(doc());
    expect(all.length).toBeGreaterThan(20);
    for (const [at, ref] of all) {
      expect(ref, at).toMatch(/^#\/components\//);
      expect(resolvePointer(doc(), ref), `${at} → ${ref}`).toBeDefined();
    }
  });

  it('every success and error body (but the document itself) is a named component', () => {
    const schemaOf = (res: any) => (res.$ref ? resolvePointer(doc(), res.$ref) : res)?.content?.['application/json']?.schema;
    let bodies = 0;
    for (const [path, item] of Object.entries<any>(doc().paths)) {
      if (path.endsWith('openapi.json')) continue;
      for (const op of Object.values<any>(item)) {
        for (const [status, res] of Object.entries<any>(op.responses)) {
          const schema = schemaOf(res);
          if (status === '204') continue;
          const named = schema?.$ref ? [schema.$ref] : (schema?.anyOf ?? []).map((s: any) => s.$ref);
          expect(named.length, `${path} ${status}`).toBeGreaterThan(0);
          for (const r of named) expect(r, `${path} ${status}`).toMatch(/^#\/components\/schemas\/\w+$/);
          bodies++;
        }
      }
    }
    expect(bodies).toBeGreaterThan(40);
  });
});

describe('real answers validate against the components', () => {
  it('UCP: catalog, cart from create to cancel and after, business and protocol errors', async () => {
    const check = validator(ucp);
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) => s.req('demo.localhost', 'POST', `/api/ucp${path}`, body, headers);
    check('ServiceRoot', (await s.req('demo.localhost', 'GET', '/api/ucp')).body);
    check('SearchResponse', (await post('/catalog/search', { query: 'flask' })).body);
    check('LookupResponse', (await post('/catalog/lookup', { ids: ['var_flask_steel', 'nope'] })).body);
    check('GetProductResponse', (await post('/catalog/product', { id: 'prod_engraved_flask' })).body);
    check('ErrorResponse', (await post('/catalog/product', { id: 'prod_nope' })).body);
    const cart = (await post('/carts', { line_items: [{ item: { id: 'var_tee_m_white' }, quantity: 2 }], discounts: { codes: ['WELCOME10'] }, context: { language: 'fr' } })).body;
    check('Cart', cart);
    check('Cart', (await post(`/carts/${cart.id}/cancel`, {}, { 'Idempotency-Key': randomUUID() })).body);
    check('Cart', (await s.req('demo.localhost', 'GET', `/api/ucp/carts/${cart.id}`)).body);
    check('ErrorResponse', (await post('/carts', { line_items: [{ item: { id: 'prod_engraved_flask' }, quantity: 1 }] })).body);
    // Not vacuous: a cart without its lines, or with a total that is not an integer, is refused.
    expect(check.errorsOf('Cart', { ...cart, line_items: undefined })).not.toEqual([]);
    expect(check.errorsOf('Cart', { ...cart, totals: [{ type: 'total', amount: '45.00' }] })).not.toEqual([]);
    const bad = await post('/carts', { line_items: 3 });
    expect(bad.status).toBe(400);
    check('ProtocolError', bad.body);
  });

  it('merchant API: pages, one of each resource, an error', async () => {
    const check = validator(merchant);
    const token = (await tokensFor(s, 'products_read customers_read sales_read settings_read inventories_read sales_channel_read')).access_token;
    const get = async (path: string) => (await s.req('localhost', 'GET', `/merchants/shop_demo/3.0${path}`, undefined, { Authorization: `Bearer ${token}` })).body;
    const products = await get('/products?limit=3');
    check('ProductPage', products);
    check('Product', await get(`/products/${products.products[0].id}`));
    check('InventoryLevel', await get(`/inventory/${products.products[0].variants[0].id}`));
    check('CustomerPage', await get('/customers'));
    check('OrderPage', await get('/orders'));
    check('WebhookList', await get('/webhooks'));
    check('WebhookDeliveryPage', await get('/webhooks/deliveries'));
    check('ChannelKeyList', await get('/channel_keys'));
    check('Error', await get('/products/nope'));
    expect(check.errorsOf('ProductPage', { products: 'none', pagination: products.pagination })).not.toEqual([]);
  });
});
