/**
 * The OpenAPI 3.1 documents (docs/ucp.md and docs/oauth.md "OpenAPI"): served publicly, valid per
 * a maintained OpenAPI validator (@seriousme/openapi-schema-validator), and in step with the server:
 * every route the Hono apps answer is in the document and every documented operation is a route.
 * The routes are read from the apps themselves, not listed here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestServer, type TestServer } from './support/server.ts';
import { createApp } from '../server/app.ts';
import { merchantRoutes } from '../server/merchant/routes.ts';
import { TOOLS_LIST_RESULT } from '../server/mcp/tools.ts';
import { tokensFor } from './support/oauth.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const METHODS = new Set(['get', 'post', 'put', 'delete', 'patch']);

/** `METHOD /path/{param}` for every operation of a document. */
function documented(doc: any): string[] {
  return Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).filter((m) => METHODS.has(m)).map((m) => `${m.toUpperCase()} ${path}`),
  ).sort();
}

/** Every operation of a document with its method, path (path parameters filled with `x`) and security. */
function operationsOf(doc: any): Array<{ method: string; path: string; security: Array<Record<string, string[]>> }> {
  return Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.has(m))
      .map(([m, op]) => ({ method: m.toUpperCase(), path: path.replace(/\{\w+\}/g, 'x'), security: op.security ?? doc.security })),
  );
}

/** `METHOD /path/{param}` for every concrete-method route of a Hono app under `prefix`. */
function answered(routes: Array<{ method: string; path: string }>, prefix: string, strip = prefix): string[] {
  const set = new Set(
    routes
      .filter((r) => r.method !== 'ALL' && (r.path === prefix || r.path.startsWith(`${prefix}/`)))
      .map((r) => `${r.method} ${r.path.slice(strip.length) || '/'}`.replace(/:(\w+)/g, '{$1}')),
  );
  return [...set].sort();
}

async function validOpenApi(doc: unknown) {
  const v = new Validator();
  const res = await v.validate(doc as never);
  expect(res.errors ?? [], JSON.stringify(res.errors)).toEqual([]);
  expect(res.valid).toBe(true);
  expect(v.version).toBe('3.1');
}

describe('UCP REST transport: {base_url}/openapi.json', () => {
  it('is public, valid OpenAPI 3.1, and names this shop\'s endpoint as its server', async () => {
    const r = await s.req('demo.localhost', 'GET', '/api/ucp/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    await validOpenApi(r.body);
    expect(r.body.servers[0].url).toBe(`http://demo.localhost:${s.port}/api/ucp`);
    expect((await s.req('offline.localhost', 'GET', '/api/ucp/openapi.json')).status).toBe(404);
    expect((await s.req('demo.localhost', 'POST', '/api/ucp/openapi.json', {})).status).toBe(405);
  });

  it('the service root documented as `/` is reachable as a generated client asks for it (`…/api/ucp/`)', async () => {
    const doc = (await s.req('demo.localhost', 'GET', '/api/ucp/openapi.json')).body;
    expect(doc.paths['/'].get.operationId).toBe('service_root');
    const r = await s.req('demo.localhost', 'GET', `${new URL(doc.servers[0].url).pathname}/`);
    expect([r.status, r.headers.location]).toEqual([308, '/api/ucp']);
    expect((await s.req('demo.localhost', 'GET', '/api/ucp')).body.transport).toBe('rest');
    // Only where the protocol is on, like every other /api/ucp address.
    expect((await s.req('offline.localhost', 'GET', '/api/ucp/')).status).toBe(404);
  });

  it('documents exactly the routes the server answers under /api/ucp', async () => {
    const doc = (await s.req('demo.localhost', 'GET', '/api/ucp/openapi.json')).body;
    const routes = createApp({ db: s.db, config: s.config }).routes;
    const served = answered(routes, '/api/ucp');
    expect(served.length).toBeGreaterThanOrEqual(9);
    expect(documented(doc)).toEqual(served);
  });

  it('request bodies are the ones MCP publishes for the same operations (one source)', async () => {
    const doc = (await s.req('demo.localhost', 'GET', '/api/ucp/openapi.json')).body;
    const tool = (name: string) => TOOLS_LIST_RESULT.tools.find((t) => t.name === name)!.inputSchema as any;
    // The MCP argument also carries its own description ("The cart request …"); the fields are the same.
    const arg = (name: string, key: string) => {
      const { description: _d, ...rest } = tool(name).properties[key];
      return rest;
    };
    const bodyOf = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema;
    expect(bodyOf('/carts', 'post')).toEqual(arg('create_cart', 'cart'));
    expect(bodyOf('/carts/{id}', 'put')).toEqual(arg('update_cart', 'cart'));
    expect(bodyOf('/catalog/search', 'post')).toEqual(arg('search_catalog', 'catalog'));
    expect(bodyOf('/catalog/lookup', 'post').properties.ids.description).toMatch(/Product or variant ids/);
  });
});

describe('security requirements are what the routes enforce', () => {
  it.each(['demo.localhost', 'strict.localhost'])('%s: an operation answers an anonymous caller 401 exactly when its security has no `{}`', async (host) => {
    const doc = (await s.req(host, 'GET', '/api/ucp/openapi.json')).body;
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['channelKey', 'channelKeyHeader', 'signature', 'signatureInput']);
    const seen = { open: 0, closed: 0 };
    for (const op of operationsOf(doc)) {
      expect(op.security, `${op.method} ${op.path}`).toBeDefined();
      // `security: []` (public) or a `{}` alternative: no credential needed.
      const anonymous = op.security.length === 0 || op.security.some((alt) => Object.keys(alt).length === 0);
      const r = await s.req(host, op.method, `/api/ucp${op.path === '/' ? '' : op.path}`, op.method === 'GET' ? undefined : {});
      expect(r.status === 401, `${host} ${op.method} ${op.path}: ${r.status} ${r.text.slice(0, 120)}`).toBe(!anonymous);
      if (!anonymous) {
        expect(r.body.code).toBe('identity_required');
        // A signature is two headers, required together.
        expect(op.security).toContainEqual({ signature: [], signatureInput: [] });
      }
      seen[anonymous ? 'open' : 'closed']++;
    }
    // demo is open to anonymous callers; strict lets them search only.
    expect(seen).toEqual(host === 'demo.localhost' ? { open: 9, closed: 0 } : { open: 3, closed: 6 });
  });

  it('merchant API: a token without an operation\'s scope is refused with exactly the scope the document names', async () => {
    const doc = (await s.req('localhost', 'GET', '/merchants/shop_demo/3.0/openapi.json')).body;
    expect(Object.keys(doc.components.securitySchemes.oauth2.flows)).toEqual(['authorizationCode']);
    const token = (await tokensFor(s, 'customers_read')).access_token;
    let refused = 0;
    for (const op of operationsOf(doc)) {
      if (op.path === '/3.0/openapi.json') {
        expect(op.security).toEqual([]);
        continue;
      }
      expect(op.security).toHaveLength(1);
      const [scope] = op.security[0].oauth2;
      const r = await s.req('localhost', op.method, `/merchants/shop_demo${op.path}`, op.method === 'GET' || op.method === 'DELETE' ? undefined : {}, { Authorization: `Bearer ${token}` });
      if (scope === 'customers_read') {
        expect(r.status, `${op.method} ${op.path}`).not.toBe(403);
        continue;
      }
      expect([r.status, r.body.error?.required_scope], `${op.method} ${op.path}`).toEqual([403, scope]);
      refused++;
    }
    expect(refused).toBeGreaterThanOrEqual(20);
  });
});

describe('merchant API: {merchant_api_url}/3.0/openapi.json', () => {
  it('is public (no token), valid OpenAPI 3.1, with this merchant as its server and OAuth scopes per operation', async () => {
    const r = await s.req('localhost', 'GET', '/merchants/shop_demo/3.0/openapi.json');
    expect(r.status).toBe(200);
    await validOpenApi(r.body);
    expect(r.body.servers[0].url).toBe(`http://localhost:${s.port}/merchants/shop_demo`);
    expect(r.body.paths['/3.0/products'].post.security).toEqual([{ oauth2: ['products_write'] }]);
    expect(r.body.paths['/3.0/products'].post.requestBody.content['application/json'].schema.required).toContain('id');
    // Everything else still needs a token.
    expect((await s.req('localhost', 'GET', '/merchants/shop_demo/3.0/products')).status).toBe(401);
  });

  it('documents exactly the routes the merchant app answers', async () => {
    const doc = (await s.req('localhost', 'GET', '/merchants/shop_demo/3.0/openapi.json')).body;
    const served = answered(merchantRoutes().routes, '/3.0', '');
    expect(served.length).toBeGreaterThanOrEqual(20);
    expect(documented(doc)).toEqual(served);
  });
});
