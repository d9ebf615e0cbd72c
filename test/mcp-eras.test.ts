/**
 * Both MCP eras on one `/mcp` (docs/mcp.md "Eras"): the 2025 handshake (2025-11-25, 2025-06-18,
 * 2025-03-26) and 2026-07-28 (no initialize, the `_meta` envelope on every request,
 * `server/discover`), chosen per request. Driven with the official clients — v1
 * `@modelcontextprotocol/sdk` and v2 `@modelcontextprotocol/client` in `legacy`, `auto` and pinned
 * 2026-07-28 modes —, each listing and calling every tool, reading the view, and hitting the bad
 * inputs a client can send; then each bad input of either era as a raw POST: a JSON-RPC error
 * with the right code, HTTP 400 or 200, never a 5xx, never a hang.
 */
import './support/localhost-dns.mjs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from './support/server.ts';
import { parseMetrics, valueOf } from './support/metrics.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';
import { APP_MIME, APP_URI } from '../server/mcp/apps.ts';
import { mcpServersInUse } from '../server/mcp/server.ts';
import { envelope, MODERN } from './support/mcp-eras.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const PROFILE = 'https://platform.example/.well-known/ucp';
serveProfiles({ [PROFILE]: platformProfile() });
const meta = (extra: Record<string, unknown> = {}) => ({ 'ucp-agent': { profile: PROFILE }, ...extra });
const endpoint = () => new URL(`http://demo.localhost:${s.port}/mcp`);

/** What a client put on the wire: each POST's MCP headers and JSON-RPC methods. */
interface Sent {
  version: string | null;
  method: string | null;
  bodies: Array<{ method?: string; params?: { _meta?: Record<string, unknown> } }>;
}
function recording(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    if (init?.method === 'POST') sent.push({ version: headers.get('mcp-protocol-version'), method: headers.get('mcp-method'), bodies: Array.isArray(body) ? body : [body] });
    return fetch(input, init);
  };
}

/** The surface both SDK generations' clients share (the names are the same in v1 and v2). */
interface AnyClient {
  listTools(): Promise<{ tools: any[] }>;
  callTool(p: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> }): Promise<any>;
  listResources(): Promise<{ resources: any[] }>;
  readResource(p: { uri: string }): Promise<{ contents: any[] }>;
  /** Any method, with a result schema (both generations take a zod schema for a method they do not know). */
  request(r: { method: string; params?: Record<string, unknown> }, schema: unknown): Promise<unknown>;
  close(): Promise<void>;
}

type Mode = 'legacy' | 'auto' | { pin: string };
const CLIENTS: Array<{ label: string; era: string; connect: (sent: Sent[]) => Promise<AnyClient> }> = [
  {
    label: 'v1 @modelcontextprotocol/sdk',
    era: '2025-11-25',
    connect: async (sent) => {
      const c = new ClientV1({ name: 'eras-v1', version: '1.0.0' });
      await c.connect(new TransportV1(endpoint(), { fetch: recording(sent) }));
      return c as unknown as AnyClient;
    },
  },
  ...(['legacy', 'auto', { pin: MODERN }] as Mode[]).map((mode) => ({
    label: `v2 @modelcontextprotocol/client, mode ${JSON.stringify(mode)}`,
    era: mode === 'legacy' ? '2025-11-25' : MODERN,
    connect: async (sent: Sent[]) => {
      const c = new ClientV2({ name: 'eras-v2', version: '1.0.0' }, { versionNegotiation: { mode } as never });
      await c.connect(new TransportV2(endpoint(), { fetch: recording(sent) }));
      expect(c.getNegotiatedProtocolVersion()).toBe(mode === 'legacy' ? '2025-11-25' : MODERN);
      return c as unknown as AnyClient;
    },
  })),
];

/** The 2025-era tools/list, as the reference every client must see (one definition). */
async function referenceTools() {
  const r = await s.req('demo.localhost', 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json' });
  return r.body.result.tools;
}

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return { code: (e as { code?: unknown }).code, message: (e as Error).message, data: (e as { data?: unknown }).data };
  }
  throw new Error('expected the call to fail');
};

describe.each(CLIENTS)('$label', ({ era, connect }) => {
  let client: AnyClient;
  const sent: Sent[] = [];
  beforeAll(async () => {
    client = await connect(sent);
  });
  afterAll(() => client?.close());

  it(`speaks ${era} on the wire: the handshake, or the envelope on every request and no initialize`, async () => {
    await client.listTools();
    const methods = sent.flatMap((x) => x.bodies.map((b) => b.method));
    if (era === MODERN) {
      expect(methods).not.toContain('initialize');
      expect(methods[0]).toBe('server/discover');
      for (const x of sent) {
        expect(x.version).toBe(MODERN);
        expect(x.bodies[0].params?._meta?.['io.modelcontextprotocol/protocolVersion']).toBe(MODERN);
        expect(x.method).toBe(x.bodies[0].method);
      }
    } else {
      expect(methods[0]).toBe('initialize');
      for (const x of sent) for (const b of x.bodies) expect(b.params?._meta?.['io.modelcontextprotocol/protocolVersion']).toBeUndefined();
    }
  });

  it('lists the seven tools exactly as the 2025 era defines them (schemas, annotations, _meta.ui)', async () => {
    const { tools } = await client.listTools();
    expect(tools).toEqual(await referenceTools());
    expect(tools.map((t) => t.name)).toEqual(['search_catalog', 'lookup_catalog', 'get_product', 'create_cart', 'get_cart', 'update_cart', 'cancel_cart']);
  });

  it('calls every tool: the REST bodies as structuredContent, isError only where nothing was done', async () => {
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: { meta: meta(), ...args } });
    const search = await call('search_catalog', { catalog: { query: 'mug' } });
    expect(search.isError).toBeUndefined();
    expect(search.structuredContent.products.length).toBeGreaterThan(0);
    expect(JSON.parse(search.content[0].text)).toEqual(search.structuredContent);
    const lookup = await call('lookup_catalog', { catalog: { ids: ['prod_engraved_flask'] } });
    expect(lookup.structuredContent.products.map((p: { id: string }) => p.id)).toEqual(['prod_engraved_flask']);
    expect((await call('get_product', { catalog: { id: 'prod_engraved_flask' } })).structuredContent.product.id).toBe('prod_engraved_flask');
    const missing = await call('get_product', { catalog: { id: 'prod_nope' } });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent.ucp.status).toBe('error');

    const created = await call('create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_white' }, quantity: 2 }] } });
    expect(created.isError).toBeUndefined();
    const id = created.structuredContent.id as string;
    expect((await call('get_cart', { id })).structuredContent.id).toBe(id);
    const updated = await call('update_cart', { id, cart: { line_items: [{ item: { id: 'var_tee_m_white' }, quantity: 3 }] } });
    expect(updated.structuredContent.line_items[0].quantity).toBe(3);
    const cancelled = await client.callTool({ name: 'cancel_cart', arguments: { meta: meta({ 'idempotency-key': randomUUID() }), id } });
    expect(cancelled.isError).toBeUndefined();
    expect(cancelled.structuredContent.id).toBe(id);

    // An input mistake is a result the model reads, the same in both eras.
    const mistake = await call('create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_white' }, quantity: 'two' }] } });
    expect(mistake.isError).toBe(true);
    expect(mistake.structuredContent.messages[0].path).toBe('$.cart.line_items[0].quantity');
    const noKey = await call('cancel_cart', { id });
    expect(noKey.isError).toBe(true);
    expect(noKey.structuredContent.messages[0].code).toBe('idempotency_key_required');
  });

  it('reads the MCP Apps view; a missing resource is the era\'s not-found error', async () => {
    expect((await client.listResources()).resources).toEqual([expect.objectContaining({ uri: APP_URI, mimeType: APP_MIME })]);
    const { contents } = await client.readResource({ uri: APP_URI });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: APP_URI, mimeType: APP_MIME, _meta: { ui: { prefersBorder: true } } });
    expect(contents[0].text.startsWith('<!doctype html>')).toBe(true);
    const miss = await codeOf(client.readResource({ uri: 'ui://ucp/nope.html' }));
    // 2025: -32002 as before; 2026-07-28: -32602 with data {uri} (that revision's MUST).
    expect(miss.code).toBe(era === MODERN ? -32602 : -32002);
    if (era === MODERN) expect(miss.data).toEqual({ uri: 'ui://ucp/nope.html' });
    expect(miss.message).toContain('resources/list names');
  });

  it('an unknown method is -32601 in this client\'s era, and the connection goes on', async () => {
    const e = await codeOf(client.request({ method: 'nope/nothing', params: {} }, z.object({}).passthrough()));
    expect(e.code).toBe(-32601);
    // 2025: the SDK's "Method not found"; 2026-07-28: the era's edge names the methods it answers.
    expect(e.message).toMatch(era === MODERN ? /not a method of this server in protocol revision 2026-07-28.*server\/discover/ : /Method not found/);
    expect((await client.listTools()).tools).toHaveLength(7);
    expect(mcpServersInUse()).toBe(0);
  });

  it('an unknown or renamed tool is -32602 naming what to call', async () => {
    const unknown = await codeOf(client.callTool({ name: 'no_such_tool', arguments: { meta: meta() } }));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toMatch(/Offered: search_catalog/);
    const renamed = await codeOf(client.callTool({ name: 'search_products', arguments: { meta: meta() } }));
    expect(renamed.code).toBe(-32602);
    expect(renamed.message).toMatch(/use 'search_catalog'/);
  });

  it('a 2026-07-28 _meta version inside a 2025 session: refused -32020 under a 2025 header, served as 2026-07-28 when the headers say so', async () => {
    if (era === MODERN) return; // in 2026-07-28 the envelope is the client's own: nothing to mix
    const args = { name: 'search_catalog', arguments: { meta: meta(), catalog: { query: 'mug' } }, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } };
    const before = sent.length;
    const outcome = await client.callTool(args).then(
      (r) => ({ ok: true as const, r }),
      (e: Error & { code?: unknown }) => ({ ok: false as const, text: `${e.code} ${e.message}` }),
    );
    const mine = sent.slice(before).find((x) => x.bodies.some((b) => b.method === 'tools/call'))!;
    expect(mine.bodies[0].params?._meta?.['io.modelcontextprotocol/protocolVersion']).toBe(MODERN);
    if (mine.version === '2025-11-25') {
      // v1 sends the session's header with the given _meta: header and body disagree, refused.
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.text).toMatch(/-32020.*MCP-Protocol-Version header names 2025-11-25/);
    } else {
      // v2 derives MCP-Protocol-Version and Mcp-Method from an enveloped body: a complete
      // 2026-07-28 request, which a stateless server serves as one (no session to mix with).
      expect(mine).toMatchObject({ version: MODERN, method: 'tools/call' });
      expect(outcome.ok && outcome.r.structuredContent.products.length).toBeGreaterThan(0);
    }
  });
});

describe('v2 clients against versions the server does not speak', () => {
  it('a client pinned to a later revision is told what the server supports (-32022, data.supported)', async () => {
    const c = new ClientV2({ name: 'eras-future', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2027-01-01' } }, supportedProtocolVersions: ['2027-01-01'] } as never);
    const e = await codeOf(c.connect(new TransportV2(endpoint())));
    expect(`${e.code} ${e.message}`).toMatch(/-32022|2027-01-01|not offer/);
  });
});

// ---------------------------------------------------------------------------------------------
// Raw POSTs: each bad input of either era.

let rpcId = 1000;
const post = (body: unknown, headers: Record<string, string> = {}) => s.req('demo.localhost', 'POST', '/mcp', body, { accept: 'application/json, text/event-stream', ...headers });
/** A well-formed 2026-07-28 request: envelope in the body, the standard headers beside it. */
function modern(method: string, params: Record<string, unknown> = {}, over: { headers?: Record<string, string>; meta?: Record<string, unknown> } = {}) {
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}), ...over.headers };
  return post({ jsonrpc: '2.0', id: rpcId++, method, params: { ...params, _meta: over.meta ?? envelope() } }, headers);
}
function expectError(r: { status: number; body: any }, status: number, code: number, message: RegExp) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.jsonrpc).toBe('2.0');
  expect(r.body.error.code, r.body.error.message).toBe(code);
  expect(r.body.error.message).toMatch(message);
  expect(mcpServersInUse()).toBe(0);
}

describe('2026-07-28 raw: what the era requires of a server', () => {
  it('server/discover: versions, capabilities with MCP Apps, instructions, serverInfo, caching hints', async () => {
    const r = await modern('server/discover');
    expect(r.status).toBe(200);
    expect(r.headers['mcp-session-id']).toBeUndefined();
    expect(r.body.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN],
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, extensions: { 'io.modelcontextprotocol/ui': {} } },
      instructions: expect.stringContaining('search_catalog'),
      ttlMs: expect.any(Number),
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'ucp-storefront', version: expect.any(String) } },
    });
  });

  it('tools/list and resources/read carry the caching hints; tools/call carries none', async () => {
    const list = await modern('tools/list');
    expect(list.body.result).toMatchObject({ resultType: 'complete', ttlMs: 300000, cacheScope: 'public' });
    expect(list.body.result.tools).toEqual(await referenceTools());
    expect((await modern('resources/read', { uri: APP_URI })).body.result).toMatchObject({ resultType: 'complete', ttlMs: 60000, cacheScope: 'public' });
    const call = await modern('tools/call', { name: 'search_catalog', arguments: { meta: meta(), catalog: { query: 'mug' } } });
    expect(call.body.result.resultType).toBe('complete');
    expect(call.body.result.ttlMs).toBeUndefined();
  });

  it('counts 2026-07-28 calls under the same metric labels as 2025 ones', async () => {
    const scrape = async () => parseMetrics((await s.req('localhost', 'GET', '/metrics')).text);
    const before = await scrape();
    await modern('tools/call', { name: 'search_catalog', arguments: { meta: meta(), catalog: { query: 'mug' } } });
    await modern('server/discover');
    const after = await scrape();
    const delta = (operation: string) => valueOf(after, 'ucp_requests_total', { transport: 'mcp', operation, status: '200' }) - valueOf(before, 'ucp_requests_total', { transport: 'mcp', operation, status: '200' });
    expect(delta('tools/call search_catalog')).toBe(1);
    expect(delta('server/discover')).toBe(1);
  });

  it('a missing profile is the same -32001 with HTTP 400 in both eras', async () => {
    const legacy = await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/call', params: { name: 'search_catalog', arguments: { catalog: { query: 'mug' } } } });
    const now = await modern('tools/call', { name: 'search_catalog', arguments: { catalog: { query: 'mug' } } });
    expectError(legacy, 400, -32001, /arguments.meta is missing/);
    expectError(now, 400, -32001, /arguments.meta is missing/);
    expect(now.body.error.data).toEqual(legacy.body.error.data);
  });
});

describe('bad input, 2026-07-28', () => {
  it('an unknown method is -32601; so are initialize and ping inside the era, saying what to call instead', async () => {
    expectError(await modern('nope/nothing'), 200, -32601, /not a method of this server.*server\/discover/);
    expectError(await modern('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }), 200, -32601, /no initialize handshake: call server\/discover/);
    expectError(await modern('ping'), 200, -32601, /no ping/);
    expectError(await modern('constructor'), 200, -32601, /not a method/);
  });

  it('a version the server does not speak is -32022 with the supported list, 2025 versions in the envelope too', async () => {
    for (const v of ['2027-01-01', '2025-11-25', 'banana']) {
      const r = await modern('tools/list', {}, { meta: envelope(v), headers: { 'mcp-protocol-version': v } });
      expectError(r, 400, -32022, /Unsupported protocol version/);
      expect(r.body.error.data).toEqual({ supported: [MODERN], requested: v });
      expect(r.body.error.message).toMatch(/2025-11-25, 2025-06-18, 2025-03-26 through the initialize handshake/);
    }
  });

  it('a missing or malformed _meta envelope is -32602 naming the key', async () => {
    const noMeta = await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/list', params: {} }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' });
    expectError(noMeta, 400, -32602, /MCP-Protocol-Version header names 2026-07-28, but; params._meta is missing/);
    const noCaps = await modern('tools/list', {}, { meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } });
    expectError(noCaps, 400, -32602, /clientCapabilities is missing/);
    const badVersion = await modern('tools/list', {}, { meta: { ...envelope(), 'io.modelcontextprotocol/protocolVersion': 20260728 } });
    expectError(badVersion, 400, -32602, /protocolVersion must be a protocol version string/);
    const badCaps = await modern('tools/list', {}, { meta: { ...envelope(), 'io.modelcontextprotocol/clientCapabilities': 'all' } });
    expectError(badCaps, 400, -32602, /clientCapabilities must be an object/);
    const badInfo = await modern('tools/list', {}, { meta: { ...envelope(), 'io.modelcontextprotocol/clientInfo': 'me' } });
    expectError(badInfo, 400, -32602, /clientInfo, when sent, must be/);
    const notObject = await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/list', params: { _meta: 'v2026' } }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' });
    expectError(notObject, 400, -32602, /params._meta must be an object carrying io.modelcontextprotocol\/protocolVersion/);
    const callNoMeta = await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: meta(), catalog: { query: 'mug' } } } }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'search_catalog' });
    expectError(callNoMeta, 400, -32602, /params._meta is missing/);
  });

  it('the standard headers must be there and agree with the body (-32020)', async () => {
    expectError(await modern('tools/list', {}, { headers: { 'mcp-method': 'tools/call' } }), 400, -32020, /Mcp-Method header names tools\/call/);
    const bare = await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/list', params: { _meta: envelope() } });
    expectError(bare, 400, -32020, /required MCP-Protocol-Version header is absent/);
    expectError(await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/list', params: { _meta: envelope() } }, { 'mcp-protocol-version': MODERN }), 400, -32020, /required Mcp-Method header is absent/);
    const args = { name: 'search_catalog', arguments: { meta: meta(), catalog: { query: 'mug' } } };
    expectError(await modern('tools/call', args, { headers: { 'mcp-name': 'get_cart' } }), 400, -32020, /Mcp-Name header names "get_cart"/);
    expectError(await modern('tools/call', args, { headers: { 'mcp-name': '=?base64?***?=' } }), 400, -32020, /invalid Base64/);
    // The Base64 form of the same name is the same name.
    expect((await modern('tools/call', args, { headers: { 'mcp-name': `=?base64?${Buffer.from('search_catalog').toString('base64')}?=` } })).status).toBe(200);
  });

  it('a batch holding a 2026-07-28 request is -32600; a 2026-07-28 notification is accepted with 202', async () => {
    const batch = await post([{ jsonrpc: '2.0', id: rpcId++, method: 'tools/list', params: { _meta: envelope() } }, { jsonrpc: '2.0', id: rpcId++, method: 'tools/list' }]);
    expectError(batch, 400, -32600, /batches may not hold protocol revision 2026-07-28 requests/);
    const note = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: envelope() } }, { 'mcp-protocol-version': MODERN });
    expect(note.status).toBe(202);
  });

  it('a wrong content type is 415; malformed tools/call params are -32602 as in 2025', async () => {
    expectError(await modern('tools/list', {}, { headers: { 'content-type': 'text/plain' } }), 415, -32000, /Content-Type must be application\/json/);
    expectError(await modern('tools/call', { name: 42 }, { headers: { 'mcp-name': '42' } }), 200, -32602, /name/);
  });
});

describe('bad input, 2025 era (as before, plus the era cross-checks)', () => {
  it('an unknown method is -32601 with HTTP 200', async () => {
    expectError(await post({ jsonrpc: '2.0', id: rpcId++, method: 'nope/nothing' }), 200, -32601, /Method not found/);
  });

  it('a version the server does not speak in MCP-Protocol-Version is refused with HTTP 400', async () => {
    expectError(await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/list' }, { 'mcp-protocol-version': '2024-01-01' }), 400, -32000, /Unsupported protocol version: 2024-01-01/);
  });

  it('initialize under a 2026-07-28 header is -32020; a 2026-07-28 _meta under a 2025 header is -32020', async () => {
    const init = { jsonrpc: '2.0', id: rpcId++, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    expectError(await post(init, { 'mcp-protocol-version': MODERN }), 400, -32020, /initialize is the 2025-era handshake.*server\/discover/);
    const mixed = await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/list', params: { _meta: envelope() } }, { 'mcp-protocol-version': '2025-06-18', 'mcp-method': 'tools/list' });
    expectError(mixed, 400, -32020, /names protocol version 2026-07-28 but the MCP-Protocol-Version header names 2025-06-18 \(a 2026-07-28 request inside a 2025-era exchange/);
  });

  it('initialize still negotiates each 2025 version, with no 2026-07-28 fields in its results', async () => {
    for (const v of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      const r = await post({ jsonrpc: '2.0', id: rpcId++, method: 'initialize', params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
      expect(r.status).toBe(200);
      expect(r.body.result.protocolVersion).toBe(v);
      expect(r.body.result.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/ui': {} });
      const list = await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/list' }, { 'mcp-protocol-version': v });
      expect(list.body.result.resultType).toBeUndefined();
      expect(list.body.result.ttlMs).toBeUndefined();
    }
  });

  it('initialize asking for a version the server does not speak is answered with its latest 2025 version (the handshake negotiates), never an error', async () => {
    for (const v of ['2024-01-01', '2099-01-01', MODERN]) {
      const r = await post({ jsonrpc: '2.0', id: rpcId++, method: 'initialize', params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
      expect(r.status, v).toBe(200);
      expect(r.body.result.protocolVersion).toBe('2025-11-25');
    }
    // Not a version at all: the request is malformed, -32602 naming the field.
    const bad = await post({ jsonrpc: '2.0', id: rpcId++, method: 'initialize', params: { protocolVersion: 20251125, capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    expectError(bad, 200, -32602, /initialize params.protocolVersion/);
  });

  it('a missing _meta is fine (optional in 2025); a malformed one is -32602 naming the field', async () => {
    const none = await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: meta(), catalog: { query: 'mug' } } } });
    expect(none.status).toBe(200);
    expect(none.body.result.structuredContent.products.length).toBeGreaterThan(0);
    expectError(await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/list', params: { _meta: 'x' } }), 200, -32602, /tools\/list params._meta/);
    expectError(await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: meta() }, _meta: 'x' } }), 200, -32602, /params._meta must be an object/);
    expectError(await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/list', params: { _meta: { progressToken: { not: 'a token' } } } }), 200, -32602, /progressToken/);
    // Half a 2026-07-28 envelope with no era header: a 2026-07-28 claim, malformed.
    const half = await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } });
    expectError(half, 400, -32602, /clientCapabilities is missing/);
    // The same inside a 2025 session (its header): still -32602, the envelope is checked first.
    expectError(await post({ jsonrpc: '2.0', id: rpcId++, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } }, { 'mcp-protocol-version': '2025-11-25' }), 400, -32602, /clientCapabilities is missing/);
  });

  it('server/discover without the envelope is a 2025 request: -32601 (a 2025 server has no such method)', async () => {
    expectError(await post({ jsonrpc: '2.0', id: rpcId++, method: 'server/discover' }), 200, -32601, /Method not found/);
  });
});
