/**
 * Server side of WebMCP (docs/webmcp.md): `/ucp/webmcp.json`, the tool list host.js registers on
 * the shop's own pages — the seven UCP tools with the MCP transport's argument shapes minus `meta`
 * (the same src/wire schemas, so the same JSON Schemas) plus begin_checkout — and the per-shop
 * switch (`settings.webmcp_enabled`), which the storefront pages also carry on host.js's tag.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { TOOLS_LIST_RESULT } from '../server/mcp/tools.ts';
import { ShopSettings } from '../server/formats/catalog-format.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

type Tool = { name: string; title: string; description: string; inputSchema: any; annotations: Record<string, boolean> };
const mcp = (name: string) => TOOLS_LIST_RESULT.tools.find((t) => t.name === name)!.inputSchema as any;

describe('/ucp/webmcp.json', () => {
  it('lists the seven UCP tools without meta, plus begin_checkout', async () => {
    const r = await s.req<{ version: string; tools: Tool[] }>('demo.localhost', 'GET', '/ucp/webmcp.json');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.headers['cache-control']).toBe('public, max-age=300');
    // Same-origin only: no CORS grant.
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    const z = await s.req('demo.localhost', 'GET', '/ucp/webmcp.json', undefined, { 'Accept-Encoding': 'gzip' });
    expect(z.headers['content-encoding']).toBe('gzip');
    expect(z.headers.vary).toBe('Accept-Encoding');
    expect(r.body.version).toBe('2026-04-08');
    const names = r.body.tools.map((t) => t.name);
    expect(names).toEqual(['search_catalog', 'lookup_catalog', 'get_product', 'create_cart', 'get_cart', 'update_cart', 'cancel_cart', 'begin_checkout']);
    // Every UCP tool of the MCP transport is here.
    for (const t of TOOLS_LIST_RESULT.tools) expect(names).toContain(t.name);
    for (const t of r.body.tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(JSON.stringify(t.inputSchema)).not.toContain('"meta"');
      expect(t.description).not.toMatch(/\bmeta\b/);
      expect(t.description.length).toBeGreaterThan(80);
    }
  });

  it('argument schemas are the MCP transport\'s (same wire schemas), with the cart id optional', async () => {
    const tools = (await s.req<{ tools: Tool[] }>('demo.localhost', 'GET', '/ucp/webmcp.json')).body.tools;
    const by = (n: string) => tools.find((t) => t.name === n)!.inputSchema;
    for (const n of ['search_catalog', 'lookup_catalog', 'get_product']) {
      expect(by(n).properties.catalog).toEqual(mcp(n).properties.catalog);
      expect(by(n).required).toEqual(['catalog']);
    }
    expect(by('create_cart').properties.cart).toEqual(mcp('create_cart').properties.cart);
    expect(by('update_cart').properties.cart).toEqual(mcp('update_cart').properties.cart);
    expect(by('create_cart').required).toEqual(['cart']);
    expect(by('update_cart').required).toEqual(['cart']);
    for (const n of ['get_cart', 'cancel_cart', 'begin_checkout']) {
      expect(by(n).properties.id.type).toBe('string');
      expect(by(n).required ?? []).toEqual([]);
    }
  });

  it('says which tools only read, and which are consequential (the shopper confirms those)', async () => {
    const tools = (await s.req<{ tools: Tool[] }>('demo.localhost', 'GET', '/ucp/webmcp.json')).body.tools;
    const readOnly = tools.filter((t) => t.annotations.readOnlyHint).map((t) => t.name);
    expect(readOnly).toEqual(['search_catalog', 'lookup_catalog', 'get_product', 'get_cart']);
    const consequential = tools.filter((t) => t.annotations.consequentialHint).map((t) => t.name);
    expect(consequential).toEqual(['cancel_cart', 'begin_checkout']);
  });

  it('a shop with webmcp_enabled off answers 404 and its pages mark host.js off', async () => {
    const off = await s.req('other.localhost', 'GET', '/ucp/webmcp.json');
    expect(off.status).toBe(404);
    expect(off.body.code).toBe('webmcp_disabled');
    const page = await s.req('other.localhost', 'GET', '/');
    expect(page.text).toMatch(/<script type="module" src="\/ucp\/host[^"]*\.js"[^>]* data-webmcp="off"><\/script>/);
    const on = await s.req('demo.localhost', 'GET', '/');
    expect(on.text).toMatch(/<script type="module" src="\/ucp\/host/);
    expect(on.text).not.toContain('data-webmcp');
  });

  it('is absent where the protocol is off', async () => {
    const r = await s.req('offline.localhost', 'GET', '/ucp/webmcp.json');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });

  it('is on by default for a shop whose settings do not mention it', () => {
    expect(ShopSettings.parse({}).webmcp_enabled).toBe(true);
    expect(ShopSettings.parse({ webmcp_enabled: false }).webmcp_enabled).toBe(false);
  });
});
