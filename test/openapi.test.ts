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
