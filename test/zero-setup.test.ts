/**
 * An agent builder's first minutes (docs/access.md "Zero setup"): `npm start` with nothing else set,
 * the profile the banner prints, and the official MCP SDK client plus plain REST calling the demo
 * shop with it. Nothing here configures the server: it runs as `npm start` runs it.
 */
import './support/localhost-dns.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { npmStart, type NpmStarted } from './support/npm-start.ts';
import { expectUcp20260825Valid, expectUcpValid, PROFILE_2026_08_25, PROFILE_ID } from './support/ucp-schemas.ts';

let server: NpmStarted;
let profile: string;
let shop: string;

beforeAll(async () => {
  server = await npmStart();
  profile = /agent profile\s+(\S+)/.exec(server.banner())?.[1] ?? '';
  shop = `http://demo.localhost:${server.port}`;
}, 180_000);
afterAll(() => server?.stop(), 20_000);

describe('npm start, no setup', () => {
  it('the banner names the demo agent profile; it is a valid platform_profile naming every capability we offer', async () => {
    expect(profile).toBe(`http://agent.localhost:${server.port}/.well-known/ucp`);
    const res = await fetch(profile);
    expect(res.status).toBe(200);
    const body = await res.json();
    expectUcpValid(`${PROFILE_ID}#/$defs/platform_profile`, body);
    const discovery = await (await fetch(`${shop}/.well-known/ucp`)).json();
    expect(Object.keys(body.ucp.capabilities).sort()).toEqual(Object.keys(discovery.ucp.capabilities).sort());
    const transports = (body.ucp.services['dev.ucp.shopping'] as Array<{ transport: string }>).map((b) => b.transport).sort();
    expect(transports).toEqual(['embedded', 'mcp', 'rest']);
  });

  it('the banner names the demo agent speaking UCP 2026-08-25 too: a valid 2026-08-25 platform profile, answered in 2026-08-25', async () => {
    const latest = /agent profile, UCP 2026-08-25\s+(\S+)/.exec(server.banner())?.[1];
    expect(latest).toBe(`http://agent.localhost:${server.port}/.well-known/ucp/2026-08-25`);
    const body = await (await fetch(latest!)).json();
    expectUcp20260825Valid(`${PROFILE_2026_08_25}#/$defs/platform_schema`, body);
    expect(body.ucp.version).toBe('2026-08-25');
    const search = await fetch(`${shop}/api/ucp/catalog/search`, { method: 'POST', headers: { 'content-type': 'application/json', 'ucp-agent': `profile="${latest}"` }, body: JSON.stringify({ query: 'tee' }) });
    expect(search.status).toBe(200);
    const answer = await search.json();
    expect(answer.ucp.version).toBe('2026-08-25');
    expect(answer.products.length).toBeGreaterThan(0);
    // The seed's version stays the default profile's: its answers are 2026-04-08.
    const seed = await fetch(`${shop}/api/ucp/catalog/search`, { method: 'POST', headers: { 'content-type': 'application/json', 'ucp-agent': `profile="${profile}"` }, body: JSON.stringify({ query: 'tee' }) });
    expect((await seed.json()).ucp.version).toBe('2026-04-08');
  });

  it('the official MCP SDK client searches and builds a cart with that profile', async () => {
    const discovery = await (await fetch(`${shop}/.well-known/ucp`)).json();
    const endpoint = discovery.ucp.services['dev.ucp.shopping'].find((b: { transport: string }) => b.transport === 'mcp').endpoint;
    const client = new Client({ name: 'zero-setup', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    try {
      const meta = { 'ucp-agent': { profile } };
      const search = await client.callTool({ name: 'search_catalog', arguments: { meta, catalog: { query: 'flask' } } });
      expect(search.isError).toBeFalsy();
      const sc = search.structuredContent as { ucp: { capabilities: Record<string, unknown> }; products: Array<{ variants: Array<{ id: string }> }> };
      expect(Object.keys(sc.ucp.capabilities)).toEqual(['dev.ucp.shopping.catalog.search']);
      const variant = sc.products[0].variants[0].id;
      const cart = await client.callTool({ name: 'create_cart', arguments: { meta, cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 2 }] } } });
      expect(cart.isError).toBeFalsy();
      const c = cart.structuredContent as { id: string; line_items: Array<{ quantity: number }>; ucp: { capabilities: Record<string, unknown> } };
      expect(c.line_items[0].quantity).toBe(2);
      // Negotiation with the demo profile keeps every capability of the operation (cart + discount).
      expect(Object.keys(c.ucp.capabilities).sort()).toEqual(['dev.ucp.shopping.cart', 'dev.ucp.shopping.discount']);
      expect(variant).toMatch(/^var_/);
    } finally {
      await client.close();
    }
  });

  it('plain REST with UCP-Agent naming that profile', async () => {
    const headers = { 'content-type': 'application/json', 'ucp-agent': `profile="${profile}"` };
    const search = await fetch(`${shop}/api/ucp/catalog/search`, { method: 'POST', headers, body: JSON.stringify({ query: 'tee' }) });
    expect(search.status).toBe(200);
    const cart = await fetch(`${shop}/api/ucp/carts`, { method: 'POST', headers, body: JSON.stringify({ line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] }) });
    expect(cart.status).toBe(201);
    expect((await cart.json()).continue_url).toMatch(/^http:\/\/demo\.localhost:\d+\/cart\//);
  });

  it('a refused profile says which URL to name instead, on both transports', async () => {
    const rest = await fetch(`${shop}/api/ucp/catalog/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'ucp-agent': 'profile="http://agent.example/profile.json"' },
      body: JSON.stringify({ query: 'tee' }),
    });
    expect(rest.status).toBe(400);
    const body = await rest.json();
    expect(body.code).toBe('invalid_profile_url');
    expect(body.content).toContain(profile);

    const mcp = await fetch(`${shop}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_catalog', arguments: { catalog: { query: 'tee' } } } }),
    });
    const rpc = await mcp.json();
    expect(rpc.error.code).toBe(-32001);
    expect(rpc.error.data.code).toBe('invalid_profile_url');
    expect(rpc.error.message).toContain(profile);
    expect(rpc.error.message).toContain('meta');
  });
});
