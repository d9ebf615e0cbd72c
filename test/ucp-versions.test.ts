/**
 * UCP 2026-08-25 served beside 2026-04-08, chosen per request (issue 37; docs/ucp.md "Versions";
 * the mapping is server/ucp/versions.ts). Discovery, REST and MCP (official SDK client): each
 * answer validated against its own version's official schemas (../shared, where present).
 */
import './support/localhost-dns.mjs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from './support/server.ts';
import { expectUcp20260825Valid, expectUcpValid, PROFILE_2026_08_25, PROFILE_ID } from './support/ucp-schemas.ts';
import { platformProfile, platformProfile20260825, serveProfiles } from './support/platform.ts';
import { parseMetrics, valueOf } from './support/metrics.ts';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ShopPolicy, StoredVariant } from '../server/formats/catalog-format.ts';
import * as z from 'zod/mini';
import { PlatformProfile } from '../src/wire/platform-profile.ts';

const P0408 = 'https://agent-0408.example/.well-known/ucp';
const P0825 = 'https://agent-0825.example/.well-known/ucp';
const P2099 = 'https://agent-2099.example/.well-known/ucp';
/** A 2026-08-25 profile whose capability entries are 2026-04-08's: capabilities never mix across versions. */
const PMIXED = 'https://agent-mixed.example/.well-known/ucp';
const agent = (profile: string) => ({ 'ucp-agent': `profile="${profile}"` });

let s: TestServer;
let origin: string;
beforeAll(async () => {
  serveProfiles({ [PMIXED]: { ...platformProfile(), ucp: { ...platformProfile().ucp, version: '2026-08-25' } }, [P0408]: platformProfile(), [P0825]: platformProfile20260825(), [P2099]: { ...platformProfile20260825(), ucp: { ...platformProfile20260825().ucp, version: '2099-01-01' } } });
  s = await startTestServer();
  origin = `http://demo.localhost:${s.port}`;
});
afterAll(() => s?.close());

const versionsIn = (ucp: { capabilities?: Record<string, Array<{ version: string }>>; services?: Record<string, Array<{ version: string }>> }) =>
  new Set([...Object.values(ucp.capabilities ?? {}), ...Object.values(ucp.services ?? {})].flat().map((e) => e.version));

describe('discovery', () => {
  it('/.well-known/ucp is a 2026-08-25 profile naming the 2026-04-08 leaf on the same origin', async () => {
    const r = await s.req('demo.localhost', 'GET', '/.well-known/ucp');
    expect(r.status).toBe(200);
    expectUcp20260825Valid(`${PROFILE_2026_08_25}#/$defs/business_schema`, r.body);
    expect(r.body.ucp.version).toBe('2026-08-25');
    expect([...versionsIn(r.body.ucp)]).toEqual(['2026-08-25']);
    for (const entries of Object.values(r.body.ucp.capabilities) as Array<Array<{ schema: string }>>) {
      for (const e of entries) expect(e.schema).toMatch(/^https:\/\/ucp\.dev\/2026-08-25\/schemas\//);
    }
    expect(r.body.ucp.supported_versions).toEqual({ '2026-04-08': `${origin}/.well-known/ucp/2026-04-08` });
    expect(r.body.signing_keys).toBeUndefined();

    const leaf = await s.req('demo.localhost', 'GET', '/.well-known/ucp/2026-04-08');
    expect(leaf.status).toBe(200);
    expectUcpValid(`${PROFILE_ID}#/$defs/business_profile`, leaf.body);
    expect(leaf.body.ucp.version).toBe('2026-04-08');
    expect([...versionsIn(leaf.body.ucp)]).toEqual(['2026-04-08']);
    expect(leaf.body.ucp.supported_versions).toBeUndefined();
    // The same bindings and capabilities by name: one shop, two renderings.
    expect(Object.keys(leaf.body.ucp.capabilities).sort()).toEqual(Object.keys(r.body.ucp.capabilities).sort());
    expect(leaf.body.ucp.services['dev.ucp.shopping'].map((b: any) => b.transport)).toEqual(r.body.ucp.services['dev.ucp.shopping'].map((b: any) => b.transport));
  });

  it('answers 404 for a version that has no leaf here (the current one included)', async () => {
    for (const path of ['/.well-known/ucp/2026-08-25', '/.well-known/ucp/2099-01-01', '/.well-known/ucp/constructor']) {
      const r = await s.req('demo.localhost', 'GET', path);
      expect(r.status, path).toBe(404);
      expect(r.body.code).toBe('not_found');
    }
  });
});

describe('REST: the platform profile decides the version', () => {
  it('search: 2026-08-25 answers in 2026-08-25 with policies and the sale unit; 2026-04-08 and anonymous answer as before', async () => {
    const body = { query: 'socks' };
    const latest = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', body, agent(P0825));
    expect(latest.status).toBe(200);
    expectUcp20260825Valid('shopping/catalog_search.json#/$defs/search_response', latest.body);
    expect(latest.body.ucp.version).toBe('2026-08-25');
    expect([...versionsIn(latest.body.ucp)]).toEqual(['2026-08-25']);
    expect(latest.body.policies.map((p: any) => p.type)).toEqual(['dev.ucp.shopping.policy.return', 'localhost.demo.policy.shipping']);
    const socks = latest.body.products.find((p: any) => p.id === 'prod_crew_socks_3_pack');
    expect(socks.variants[0].quantity_unit).toEqual({ unit: 'PK', display_text: '3-pair pack' });
    expect(socks.variants[0].unit_price).toEqual({
      amount: 600,
      currency: 'USD',
      measure: { unit: 'PR', display_text: 'pairs', value: 3 },
      reference: { unit: 'PR', display_text: 'pair', value: 1 },
    });

    const seed = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', body, agent(P0408));
    expectUcpValid('shopping/catalog_search.json#/$defs/search_response', seed.body);
    expect(seed.body.ucp.version).toBe('2026-04-08');
    expect([...versionsIn(seed.body.ucp)]).toEqual(['2026-04-08']);
    expect(seed.text).not.toMatch(/quantity_unit|unit_price|policies/);

    // No profile named: the seed's answer, byte for byte the 2026-04-08 agent's.
    const anonymous = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', body);
    expect(anonymous.text).toBe(seed.text);
  });

  it('French answers carry French policies and unit labels', async () => {
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/lookup', { ids: ['var_socks_m'], context: { language: 'fr' } }, agent(P0825));
    expectUcp20260825Valid('shopping/catalog_lookup.json#/$defs/lookup_response', r.body);
    expect(r.body.policies[0].description.plain).toMatch(/30 jours/);
    expect(r.body.products[0].variants[0].quantity_unit.display_text).toBe('lot de 3 paires');
  });

  it('get_product in each version; a miss is an error envelope in the caller\'s version', async () => {
    const latest = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/product', { id: 'prod_crew_socks_3_pack' }, agent(P0825));
    expectUcp20260825Valid('shopping/catalog_lookup.json#/$defs/get_product_response', latest.body);
    expect(latest.body.product.variants[0].quantity_unit.unit).toBe('PK');
    const seed = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/product', { id: 'prod_crew_socks_3_pack' }, agent(P0408));
    expect(seed.text).not.toMatch(/quantity_unit|unit_price/);
    const miss = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/product', { id: 'nope' }, agent(P0825));
    expectUcp20260825Valid('common/types/error_response.json', miss.body);
    expect(miss.body.ucp).toMatchObject({ version: '2026-08-25', status: 'error' });
    expect(miss.body.policies).toBeUndefined();
  });

  it('version_unsupported: 422 with code, content and continue_url, nothing created', async () => {
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_m_white' }, quantity: 1 }] }, agent(P2099));
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ code: 'version_unsupported', content: expect.stringMatching(/2099-01-01.*2026-08-25.*2026-04-08/), continue_url: `${origin}/` });
  });

  it('capabilities are negotiated within the chosen version: 2026-04-08 entries in a 2026-08-25 profile match nothing', async () => {
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_m_white' }, quantity: 1 }] }, agent(PMIXED));
    expect(r.status).toBe(200);
    expectUcp20260825Valid('common/types/error_response.json', r.body);
    expect(r.body.ucp).toMatchObject({ version: '2026-08-25', status: 'error' });
    expect(r.body.messages[0].code).toBe('capabilities_incompatible');
  });

  it('carts in 2026-08-25: no id in bodies, the sale unit on the line, policies; the same cart read in 2026-04-08', async () => {
    const created = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_socks_m' }, quantity: 2 }] }, agent(P0825));
    expect(created.status).toBe(201);
    expectUcp20260825Valid('shopping/cart.json', created.body);
    expect(created.body.ucp.version).toBe('2026-08-25');
    expect(created.body.line_items[0].item.quantity_unit).toEqual({ unit: 'PK', display_text: '3-pair pack' });
    expect(created.body.policies).toHaveLength(2);
    const id = created.body.id;

    const updated = await s.req('demo.localhost', 'PUT', `/api/ucp/carts/${id}`, { line_items: [{ item: { id: 'var_socks_m' }, quantity: 3 }] }, agent(P0825));
    expect(updated.status).toBe(200);
    expectUcp20260825Valid('shopping/cart.json', updated.body);
    expect(updated.body.line_items[0].quantity).toBe(3);

    const withId = await s.req('demo.localhost', 'PUT', `/api/ucp/carts/${id}`, { id, line_items: [{ item: { id: 'var_socks_m' }, quantity: 4 }] }, agent(P0825));
    expect(withId.status).toBe(400);
    expect(withId.body.code).toBe('invalid_request');
    expect(withId.body.messages[0]).toMatchObject({ path: '$.id', code: 'unexpected_field' });
    const unchanged = await s.req('demo.localhost', 'GET', `/api/ucp/carts/${id}`, undefined, agent(P0825));
    expect(unchanged.body.line_items[0].quantity).toBe(3);

    // A 2026-04-08 agent still sends the id in its update body, and reads the cart without 2026-08-25 fields.
    const seed = await s.req('demo.localhost', 'PUT', `/api/ucp/carts/${id}`, { id, line_items: [{ item: { id: 'var_socks_m' }, quantity: 4 }] }, agent(P0408));
    expect(seed.status).toBe(200);
    expectUcpValid('shopping/cart.json', seed.body);
    expect(seed.body.ucp.version).toBe('2026-04-08');
    expect(seed.body.line_items[0].quantity).toBe(4);
    expect(seed.text).not.toMatch(/quantity_unit|policies/);
    const anonymous = await s.req('demo.localhost', 'GET', `/api/ucp/carts/${id}`);
    expect(anonymous.body.ucp.version).toBe('2026-04-08');
    expect(anonymous.text).not.toMatch(/quantity_unit|policies/);
  });

  it('a line asserting another sale unit is refused recoverably, never reinterpreted; the item\'s own unit is accepted', async () => {
    const pairs = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_socks_m', quantity_unit: { unit: 'PR', display_text: 'pair' } }, quantity: 6 }] }, agent(P0825));
    expect(pairs.status).toBe(200);
    expectUcp20260825Valid('common/types/error_response.json', pairs.body);
    expect(pairs.body.messages).toEqual([
      expect.objectContaining({ type: 'error', code: 'quantity_unit_mismatch', path: '$.line_items[0].item.quantity_unit', severity: 'recoverable' }),
    ]);
    expect(pairs.body.messages[0].content).toMatch(/PK/);
    // By the piece is C62 at scale 0, explicit or not: a tee asserted in C62 is fine, in kilograms it is not.
    const tee = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_m_white', quantity_unit: { unit: 'C62', display_text: 'piece' } }, quantity: 1 }] }, agent(P0825));
    expect(tee.status).toBe(201);
    const kg = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_m_white', quantity_unit: { unit: 'KGM', display_text: 'kg', scale: 1 } }, quantity: 1 }] }, agent(P0825));
    expect(kg.body.messages[0].code).toBe('quantity_unit_mismatch');
    const packs = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_socks_m', quantity_unit: { unit: 'PK', display_text: 'anything' } }, quantity: 2 }] }, agent(P0825));
    expect(packs.status).toBe(201);
    expect(packs.body.line_items[0].quantity).toBe(2);
  });

  it('idempotency: a replay answers in the replaying version; 409 only when the request differs', async () => {
    const key = randomUUID();
    const body = { line_items: [{ item: { id: 'var_socks_l' }, quantity: 1 }] };
    const first = await s.req('demo.localhost', 'POST', '/api/ucp/carts', body, { ...agent(P0825), 'idempotency-key': key });
    expect(first.status).toBe(201);
    const again = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ quantity: 1, item: { id: 'var_socks_l' } }] }, { ...agent(P0825), 'idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    const differs = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_socks_l' }, quantity: 2 }] }, { ...agent(P0825), 'idempotency-key': key });
    expect(differs.status).toBe(409);
    expect(differs.body.code).toBe('idempotency_conflict');

    // An update retried with the (matching) id added to the body asks for the same thing: replayed.
    const ukey = randomUUID();
    const id = first.body.id;
    const u1 = await s.req('demo.localhost', 'PUT', `/api/ucp/carts/${id}`, { line_items: [{ item: { id: 'var_socks_l' }, quantity: 2 }] }, { ...agent(P0408), 'idempotency-key': ukey });
    expect(u1.status).toBe(200);
    const u2 = await s.req('demo.localhost', 'PUT', `/api/ucp/carts/${id}`, { id, line_items: [{ item: { id: 'var_socks_l' }, quantity: 2 }] }, { ...agent(P0408), 'idempotency-key': ukey });
    expect(u2.status).toBe(200);
    expect(u2.text).toBe(u1.text);
  });
});

describe('MCP (official SDK client): the profile in meta decides the version', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'versions-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)));
  });
  afterAll(() => client?.close());

  const call = (name: string, profile: string, args: Record<string, unknown>, key?: string) =>
    client.callTool({ name, arguments: { meta: { 'ucp-agent': { profile }, ...(key ? { 'idempotency-key': key } : {}) }, ...args } }) as Promise<any>;

  it('search_catalog: structuredContent in the caller\'s version, content[] its serialization', async () => {
    const latest = await call('search_catalog', P0825, { catalog: { query: 'socks' } });
    expect(latest.isError).toBeFalsy();
    expectUcp20260825Valid('shopping/catalog_search.json#/$defs/search_response', latest.structuredContent);
    expect(latest.structuredContent.ucp.version).toBe('2026-08-25');
    expect(latest.structuredContent.policies).toHaveLength(2);
    expect(JSON.parse(latest.content[0].text)).toEqual(latest.structuredContent);
    const seed = await call('search_catalog', P0408, { catalog: { query: 'socks' } });
    expectUcpValid('shopping/catalog_search.json#/$defs/search_response', seed.structuredContent);
    expect(seed.structuredContent.ucp.version).toBe('2026-04-08');
    expect(seed.content[0].text).not.toMatch(/quantity_unit|unit_price|policies/);
    // The REST answer to the same agent, exactly.
    const rest = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'socks' }, agent(P0825));
    expect(latest.content[0].text).toBe(rest.text);
  });

  it('the tools/call request and answer are the envelope transports/mcp_tool_call.json writes down', async () => {
    const request = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'create_cart', arguments: { meta: { 'ucp-agent': { profile: P0825 }, 'idempotency-key': randomUUID() }, cart: { line_items: [{ item: { id: 'var_socks_m' }, quantity: 1 }] } } } };
    expectUcp20260825Valid('transports/mcp_tool_call.json', request);
    const r = await s.req('demo.localhost', 'POST', '/mcp', request, { accept: 'application/json, text/event-stream' });
    expect(r.status).toBe(200);
    expectUcp20260825Valid('transports/mcp_tool_call.json', r.body);
    expectUcp20260825Valid('shopping/cart.json', r.body.result.structuredContent);
    expect(r.body.result.content[0].text).toBe(JSON.stringify(r.body.result.structuredContent));
  });

  it('carts: update_cart without id in the cart for 2026-08-25, with it for 2026-04-08; a body id is refused for 2026-08-25', async () => {
    const created = await call('create_cart', P0825, { cart: { line_items: [{ item: { id: 'var_socks_m' }, quantity: 1 }] } });
    expectUcp20260825Valid('shopping/cart.json', created.structuredContent);
    const id = created.structuredContent.id;
    const updated = await call('update_cart', P0825, { id, cart: { line_items: [{ item: { id: 'var_socks_m' }, quantity: 2 }] } });
    expectUcp20260825Valid('shopping/cart.json', updated.structuredContent);
    expect(updated.structuredContent.line_items[0].quantity).toBe(2);
    const refused = await call('update_cart', P0825, { id, cart: { id, line_items: [{ item: { id: 'var_socks_m' }, quantity: 3 }] } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.structuredContent ?? refused.content)).toMatch(/unexpected_field/);
    const seed = await call('update_cart', P0408, { id, cart: { id, line_items: [{ item: { id: 'var_socks_m' }, quantity: 3 }] } });
    expectUcpValid('shopping/cart.json', seed.structuredContent);
    expect(seed.structuredContent.ucp.version).toBe('2026-04-08');
    expect(seed.structuredContent.line_items[0].quantity).toBe(3);
    const cancelled = await call('cancel_cart', P0825, { id }, randomUUID());
    expect(cancelled.structuredContent.ucp.version).toBe('2026-08-25');
  });

  it('version_unsupported is JSON-RPC -32001 with code, content and continue_url (HTTP 422)', async () => {
    // The SDK client turns a 4xx into a transport error without the body, so this one is a plain JSON-RPC POST.
    const r = await s.req('demo.localhost', 'POST', '/mcp', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: { 'ucp-agent': { profile: P2099 } }, catalog: { query: 'socks' } } } }, { accept: 'application/json, text/event-stream' });
    expect(r.status).toBe(422);
    expectUcp20260825Valid('transports/mcp_tool_call.json', r.body);
    expect(r.body.error.code).toBe(-32001);
    expect(r.body.error.data).toEqual({ code: 'version_unsupported', content: expect.stringMatching(/2099-01-01/), continue_url: `${origin}/` });
    await expect(call('search_catalog', P2099, { catalog: { query: 'socks' } })).rejects.toThrow(/"code":-32001.*version_unsupported/);
  });
});

describe('tools: the inspector and the metrics say which version answered', () => {
  const SEARCH = 'POST /api/ucp/catalog/search';
  const scrape = async () => parseMetrics((await s.req('localhost', 'GET', '/metrics')).text);

  it('each exchange records its version; version_unsupported records none', async () => {
    const mark = (await s.req('localhost', 'GET', '/dev/shops/shop_demo/requests?limit=1')).body.since;
    await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' }, agent(P0825));
    await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' }, agent(P0408));
    await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' });
    await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' }, agent(P2099));
    await s.req('demo.localhost', 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: { 'ucp-agent': { profile: P0825 } }, catalog: { query: 'tee' } } } }, { accept: 'application/json' });
    const xs = (await s.req('localhost', 'GET', `/dev/shops/shop_demo/requests?since=${mark}`)).body.exchanges.reverse();
    expect(xs.map((x: any) => [x.transport, x.status, x.version])).toEqual([
      ['rest', 200, '2026-08-25'],
      ['rest', 200, '2026-04-08'],
      ['rest', 200, '2026-04-08'],
      ['rest', 422, null],
      ['mcp', 200, '2026-08-25'],
    ]);
  });

  it('ucp_requests_total counts each answer under its version (a bounded label: none outside a negotiated operation)', async () => {
    const before = await scrape();
    await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' }, agent(P0825));
    await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' }, agent(P0825));
    await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' });
    await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' }, agent(P2099));
    const after = await scrape();
    const delta = (labels: Record<string, string>) => valueOf(after, 'ucp_requests_total', labels) - valueOf(before, 'ucp_requests_total', labels);
    expect(delta({ operation: SEARCH, status: '200', version: '2026-08-25' })).toBe(2);
    expect(delta({ operation: SEARCH, status: '200', version: '2026-04-08' })).toBe(1);
    // Refused before negotiation (the middleware answers, under its own route label): no version.
    expect(delta({ transport: 'rest', status: '422', version: 'none' })).toBe(1);
    expect(delta({ transport: 'rest', status: '422', version: '2026-08-25' })).toBe(0);
    const versions = new Set(after.filter((x) => x.name === 'ucp_requests_total').map((x) => x.labels.version));
    for (const v of versions) expect(['2026-04-08', '2026-08-25', 'none']).toContain(v);
  });
});

describe('documents per version', () => {
  it('GET /api/ucp/openapi.json?version=…: a valid OpenAPI 3.1 document per version; 2026-08-25 update bodies have no id', async () => {
    const seed = await s.req('demo.localhost', 'GET', '/api/ucp/openapi.json');
    const pinnedSeed = await s.req('demo.localhost', 'GET', '/api/ucp/openapi.json?version=2026-04-08');
    expect(pinnedSeed.text).toBe(seed.text);
    const latest = await s.req('demo.localhost', 'GET', '/api/ucp/openapi.json?version=2026-08-25');
    expect(latest.status).toBe(200);
    for (const doc of [seed.body, latest.body]) {
      const result = await new Validator().validate(doc);
      expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
      expect(result.valid).toBe(true);
    }
    expect(seed.body.info.description).toContain('Universal Commerce Protocol 2026-04-08');
    expect(latest.body.info.description).toContain('Universal Commerce Protocol 2026-08-25');
    expect(latest.text).not.toContain('https://ucp.dev/2026-04-08/');
    const updateBody = (doc: any) => doc.paths['/carts/{id}'].put.requestBody.content['application/json'].schema;
    expect(updateBody(seed.body).properties.id).toBeDefined();
    expect(updateBody(latest.body).properties.id).toBeUndefined();
    expect(latest.body.components.schemas.Variant.properties.quantity_unit).toBeDefined();
    const missing = await s.req('demo.localhost', 'GET', '/api/ucp/openapi.json?version=2099-01-01');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
  });

  it('each profile names its own release\'s MCP and REST documents', async () => {
    const latest = await s.req('demo.localhost', 'GET', '/.well-known/ucp');
    const leaf = await s.req('demo.localhost', 'GET', '/.well-known/ucp/2026-04-08');
    const schemaOf = (p: any, t: string) => p.ucp.services['dev.ucp.shopping'].find((b: any) => b.transport === t).schema;
    expect(schemaOf(latest.body, 'mcp')).toBe('https://ucp.dev/2026-08-25/services/shopping/mcp.openrpc.json');
    expect(schemaOf(leaf.body, 'mcp')).toBe('https://ucp.dev/2026-04-08/services/shopping/mcp.openrpc.json');
    expect(schemaOf(latest.body, 'rest')).toBe('https://ucp.dev/2026-08-25/services/shopping/rest.openapi.json');
  });
});

describe('platform profiles of 2026-08-25', () => {
  it('the wire schema takes what the 2026-08-25 platform_schema takes: keys[], hyphenated and digit-led names', () => {
    const doc = platformProfile20260825() as any;
    doc.ucp.capabilities['com.example-shop.2loyalty'] = [{ version: '2026-08-25', spec: 'https://example-shop.com/spec', schema: 'https://example-shop.com/schema.json' }];
    doc.keys = [{ kid: 'k1', kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }];
    expectUcp20260825Valid(`${PROFILE_2026_08_25}#/$defs/platform_schema`, doc);
    expect(z.safeParse(PlatformProfile, doc).success).toBe(true);
    expect(z.safeParse(PlatformProfile, { ...doc, ucp: { ...doc.ucp, capabilities: { 'Com.Example': doc.ucp.capabilities['dev.ucp.shopping.cart'] } } }).success).toBe(false);
  });
});

describe('catalog format: policies and sale units', () => {
  const variant = { id: 'v1', price: 1800 };
  it('accepts a sale unit and unit pricing in one unit, refuses mixed units and out-of-range scales', () => {
    const ok = StoredVariant.safeParse({ ...variant, quantity_unit: { unit: 'PK', display_text: { en: 'pack' } }, unit_price: { measure: { unit: 'PR', display_text: 'pairs', value: 3 }, reference: { unit: 'PR', display_text: 'pair', value: 1 } } });
    expect(ok.success).toBe(true);
    const mixed = StoredVariant.safeParse({ ...variant, unit_price: { measure: { unit: 'PR', display_text: 'pairs', value: 3 }, reference: { unit: 'KGM', display_text: 'kg', value: 1 } } });
    expect(mixed.success).toBe(false);
    expect(JSON.stringify(mixed.error?.issues)).toMatch(/same unit/);
    expect(StoredVariant.safeParse({ ...variant, quantity_unit: { unit: 'KGM', display_text: 'kg', scale: 16 } }).success).toBe(false);
    expect(StoredVariant.safeParse({ ...variant, unit_price: { measure: { unit: 'PR', display_text: 'p', value: 0 }, reference: { unit: 'PR', display_text: 'p', value: 1 } } }).success).toBe(false);
  });

  it('a policy needs a reverse-DNS type and a description', () => {
    expect(ShopPolicy.safeParse({ type: 'dev.ucp.shopping.policy.return', description: 'Thirty days.' }).success).toBe(true);
    expect(ShopPolicy.safeParse({ type: 'returns', description: 'Thirty days.' }).success).toBe(false);
    expect(ShopPolicy.safeParse({ type: 'dev.ucp.shopping.policy.return' }).success).toBe(false);
    expect(ShopPolicy.safeParse({ type: 'com.example.policy.x', description: 'x', url: 'javascript:alert(1)' }).success).toBe(false);
  });
});
