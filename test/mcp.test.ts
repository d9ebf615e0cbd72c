/**
 * The MCP transport at /mcp: the official SDK Client over Streamable HTTP, plain JSON-RPC POSTs as
 * @shopify/ucp-cli sends them, call metadata, errors, access, the per-shop switch and discovery.
 *
 * Both protocol eras (docs/mcp.md "Eras"): every `describe.each(ERAS)` block runs once in the 2025
 * era (the SDK client's initialize handshake; raw POSTs as ucp-cli sends them) and once in
 * 2026-07-28 (the client pinned to it; raw POSTs with the `_meta` envelope and the MCP headers),
 * with the same assertions. The blocks named "2025 era only" say why they are.
 */
import './support/localhost-dns.mjs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { connectInEra, ERAS, expectEraResult, LEGACY, MODERN, rawRequest, type Era } from './support/mcp-eras.ts';
import { expectUcpValid } from './support/ucp-schemas.ts';
import { MAX_BODY_BYTES } from '../server/app.ts';
import { cartResult } from '../server/mcp/tools.ts';
import { fromDomainError, McpProtocolError } from '../server/mcp/errors.ts';
import { IdempotencyConflict, IdempotencyUnavailable } from '../server/core/carts/idempotency.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const PROFILE = 'https://platform.example/.well-known/ucp';
// Every tools/call names PROFILE, which the server fetches and validates (docs/access.md): serve it.
serveProfiles({ [PROFILE]: platformProfile() });
const meta = (extra: Record<string, unknown> = {}) => ({ 'ucp-agent': { profile: PROFILE }, ...extra });
const JSON_ONLY = { accept: 'application/json' };
const TOOL_NAMES = ['cancel_cart', 'create_cart', 'get_cart', 'get_product', 'lookup_catalog', 'search_catalog', 'update_cart'];

let nextId = 1;
/**
 * Raw JSON-RPC POSTs in `era`: in 2025 exactly like ucp-cli (no initialize, no session, Accept:
 * application/json); in 2026-07-28 the same with the `_meta` envelope and the MCP headers.
 */
function rawIn(era: Era) {
  async function rpc(method: string, params?: unknown, host = 'demo.localhost', headers: Record<string, string> = {}) {
    const id = nextId++;
    const req = rawRequest(era, id, method, params);
    const r = await s.req(host, 'POST', '/mcp', req.body, { ...JSON_ONLY, ...req.headers, ...headers });
    if (r.body?.jsonrpc) expect(r.body.id).toBe(id);
    return r;
  }
  const call = (name: string, args: unknown, headers: Record<string, string> = {}) => rpc('tools/call', { name, arguments: args }, 'demo.localhost', headers);
  return { rpc, call };
}

/** The official v2 SDK client, connected in `era` (the negotiated version checked). */
const sdkClient = (era: Era) => connectInEra(new URL(`http://demo.localhost:${s.port}/mcp`), era, 'mcp-test');

describe.each(ERAS)('official SDK Client over Streamable HTTP ($era)', ({ era }) => {
  it('connects, lists the seven tools and calls search_catalog with the REST body as structuredContent', async () => {
    const client = await sdkClient(era);
    try {
      expect(client.getServerCapabilities()?.tools).toBeDefined();
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
      for (const t of tools) {
        expect(t.description!.length).toBeGreaterThan(80);
        expect(t.inputSchema.type).toBe('object');
        expect(t.inputSchema.required).toContain('meta');
      }
      const search = tools.find((t) => t.name === 'search_catalog')!;
      expect(Object.keys(search.inputSchema.properties!)).toEqual(['meta', 'catalog']);
      expect(tools.find((t) => t.name === 'create_cart')!.description).toMatch(/customizations/);

      const res = await client.callTool({ name: 'search_catalog', arguments: { meta: meta(), catalog: { query: 'flask' } } });
      expect(res.isError).toBeFalsy();
      const rest = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'flask' });
      expect(res.structuredContent).toEqual(rest.body);
      expectUcpValid('shopping/catalog_search.json#/$defs/search_response', res.structuredContent);
      const text = (res.content as Array<{ type: string; text: string }>)[0];
      expect(text.type).toBe('text');
      expect(JSON.parse(text.text)).toEqual(rest.body);
    } finally {
      await client.close();
    }
  });

  it('gets business outcomes as results, protocol errors as errors', async () => {
    const client = await sdkClient(era);
    try {
      const miss = await client.callTool({ name: 'get_product', arguments: { meta: meta(), catalog: { id: 'prod_nope' } } });
      // A UCP error_response is a tool execution error (MCP: business logic errors), still a result.
      expect(miss.isError).toBe(true);
      expectUcpValid('shopping/types/error_response.json', miss.structuredContent);
      expect((miss.structuredContent as any).messages[0].code).toBe('not_found');
      // The same -32001 with HTTP 400 in both eras; the v2 client reports it as an HTTP failure
      // carrying the body in 2025 and as a ProtocolError with code and data in 2026-07-28.
      const refused = client.callTool({ name: 'search_catalog', arguments: { catalog: { query: 'flask' } } });
      if (era === LEGACY) await expect(refused).rejects.toThrow(/invalid_profile_url|-32001/);
      else await expect(refused).rejects.toMatchObject({ code: -32001, data: { code: 'invalid_profile_url' } });
    } finally {
      await client.close();
    }
  });
});

describe.each(ERAS)('SDK Client: concurrency and renamed tools ($era)', ({ era }) => {
  it('parallel calls on one client each get their own answer', async () => {
    const client = await sdkClient(era);
    try {
      const queries = ['flask', 'tee', 'linen', 'candle', 'sweater', 'socks', 'beanie', 'hoodie'];
      const results = await Promise.all(
        queries.flatMap((q) => [q, q]).map((q) => client.callTool({ name: 'search_catalog', arguments: { meta: meta(), catalog: { query: q } } })),
      );
      for (const [i, q] of queries.flatMap((x) => [x, x]).entries()) {
        const rest = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: q });
        expect(results[i].structuredContent, q).toEqual(rest.body);
      }
    } finally {
      await client.close();
    }
  });

  it('a former tool name fails with an error naming the replacement', async () => {
    const client = await sdkClient(era);
    try {
      await expect(client.callTool({ name: 'add_cart_lines', arguments: { meta: meta() } })).rejects.toThrow(/update_cart/);
    } finally {
      await client.close();
    }
  });
});

describe.each(ERAS)('raw JSON-RPC POSTs ($era)', ({ era }) => {
  const { rpc, call } = rawIn(era);

  it('tools/list works without meta too (SDK clients send none), Accept: application/json only, no session', async () => {
    const r = await rpc('tools/list');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    expect(r.headers['mcp-session-id']).toBeUndefined();
    expect(r.body.result.tools).toHaveLength(7);
    expectEraResult(era, r.body.result);
  });

  it('lookup_catalog and get_product return exactly the REST bodies', async () => {
    const lookup = await call('lookup_catalog', { meta: meta(), catalog: { ids: ['prod_engraved_flask', 'var_flask_black', 'nope'] } });
    const restLookup = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/lookup', { ids: ['prod_engraved_flask', 'var_flask_black', 'nope'] });
    expect(lookup.status).toBe(200);
    expect(lookup.body.result.structuredContent).toEqual(restLookup.body);
    expectUcpValid('shopping/catalog_lookup.json#/$defs/lookup_response', lookup.body.result.structuredContent);
    expectEraResult(era, lookup.body.result);

    const product = await call('get_product', { meta: meta(), catalog: { id: 'prod_engraved_flask', context: { language: 'fr', currency: 'EUR' } } });
    const restProduct = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/product', { id: 'prod_engraved_flask', context: { language: 'fr', currency: 'EUR' } });
    expect(product.body.result.structuredContent).toEqual(restProduct.body);
    expect(product.body.result.structuredContent.product.title).toBe('Flasque en acier gravée');
  });

  it('uses Accept-Language like REST', async () => {
    const r = await call('search_catalog', { meta: meta(), catalog: { query: 'flask' } }, { 'accept-language': 'fr' });
    expect(r.body.result.structuredContent.products.find((p: any) => p.id === 'prod_engraved_flask').title).toBe('Flasque en acier gravée');
  });

  it('invalid catalog input is an isError result naming every path (HTTP 200)', async () => {
    const r = await call('search_catalog', { meta: meta(), catalog: { pagination: { limit: 0 } } });
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBe(true);
    expectUcpValid('shopping/types/error_response.json', r.body.result.structuredContent);
    const paths = r.body.result.structuredContent.messages.map((m: any) => m.path);
    expect(paths).toEqual(expect.arrayContaining(['$.catalog.pagination.limit', '$.catalog.query']));
    const missing = await call('lookup_catalog', { meta: meta() });
    expect(missing.body.result.isError).toBe(true);
    expect(missing.body.result.structuredContent.messages[0].path).toBe('$.catalog');
    // A missing field says what to send.
    expect(missing.body.result.structuredContent.messages[0].content).toMatch(/received undefined\. Send catalog: The catalog request/);
  });

  it('a lookup batch over the limit is -32602 request_too_large (the UCP binding), HTTP 200', async () => {
    const ids = Array.from({ length: 51 }, (_, i) => `id_${i}`);
    const r = await call('lookup_catalog', { meta: meta(), catalog: { ids } });
    expect(r.status).toBe(200);
    expect(r.body.error.code).toBe(-32602);
    expect(r.body.error.data.code).toBe('request_too_large');
    expect(r.body.error.data.messages[0].path).toBe('$.catalog.ids');
  });
});

describe.each(ERAS)('call metadata ($era)', ({ era }) => {
  const { call } = rawIn(era);

  it.each([
    ['missing meta', { catalog: { query: 'flask' } }],
    ['meta without ucp-agent', { meta: {}, catalog: { query: 'flask' } }],
    ['profile not a URL', { meta: { 'ucp-agent': { profile: 'not a url' } }, catalog: { query: 'flask' } }],
    ['profile not https', { meta: { 'ucp-agent': { profile: 'http://platform.example/p.json' } }, catalog: { query: 'flask' } }],
    ['profile not a string', { meta: { 'ucp-agent': { profile: 42 } }, catalog: { query: 'flask' } }],
  ])('%s → -32001 invalid_profile_url, HTTP 400', async (_label, args) => {
    const r = await call('search_catalog', args);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(-32001);
    expect(r.body.error.data.code).toBe('invalid_profile_url');
    expect(r.body.error.data.content).toEqual(expect.any(String));
  });
});

describe.each(ERAS)('legacy tool names ($era)', ({ era }) => {
  const { rpc, call } = rawIn(era);

  it.each([
    ['search_products', 'search_catalog'],
    ['add_cart_lines', 'update_cart'],
    ['update_cart_lines', 'update_cart'],
    ['remove_cart_lines', 'update_cart'],
  ])('%s is not offered and names %s', async (legacy, replacement) => {
    const list = await rpc('tools/list');
    expect(list.body.result.tools.map((t: any) => t.name)).not.toContain(legacy);
    const r = await call(legacy, { meta: meta() });
    expect(r.status).toBe(200);
    expect(r.body.error.code).toBe(-32602);
    expect(r.body.error.message).toContain(replacement);
    expect(r.body.error.data.replacement).toBe(replacement);
  });

  it('an unknown tool is -32602', async () => {
    const r = await call('teleport', { meta: meta() });
    expect(r.body.error.code).toBe(-32602);
    expect(r.body.error.data.code).toBe('unknown_tool');
  });
});

describe.each(ERAS)('carts over MCP ($era)', ({ era }) => {
  const { call } = rawIn(era);
  const line = { item: { id: 'var_flask_steel' }, quantity: 1, customizations: [{ id: 'engraving', value: 'JD' }, { id: 'gift_box', value: 'none' }] };

  async function createCart(cart: unknown, key?: string) {
    return call('create_cart', { meta: meta(key ? { 'idempotency-key': key } : {}), cart });
  }

  it('create / get / update / cancel, structuredContent shaped like REST', async () => {
    const created = await createCart({ line_items: [{ item: { id: 'var_tee_m_white' }, quantity: 2 }] });
    expect(created.status).toBe(200);
    const cart = created.body.result.structuredContent;
    expectUcpValid('shopping/cart.json', cart);
    expect(cart.id).toEqual(expect.any(String));
    expect(cart.line_items[0].quantity).toBe(2);

    const got = await call('get_cart', { meta: meta(), id: cart.id });
    const rest = await s.req('demo.localhost', 'GET', `/api/ucp/carts/${cart.id}`);
    expect(got.body.result.structuredContent).toEqual(rest.body);

    const updated = await call('update_cart', { meta: meta(), id: cart.id, cart: { line_items: [{ item: { id: 'var_tee_m_white' }, quantity: 3 }] } });
    expect(updated.body.result.structuredContent.line_items[0].quantity).toBe(3);

    const noKey = await call('cancel_cart', { meta: meta(), id: cart.id });
    expect(noKey.status).toBe(200);
    expect(noKey.body.result.isError).toBe(true);
    expect(noKey.body.result.structuredContent.messages[0]).toMatchObject({ code: 'idempotency_key_required', path: "$.meta['idempotency-key']" });

    const key = randomUUID();
    const canceled = await call('cancel_cart', { meta: meta({ 'idempotency-key': key }), id: cart.id });
    expect(canceled.status).toBe(200);
    expect(canceled.body.result.structuredContent.line_items[0].quantity).toBe(3);
    const replay = await call('cancel_cart', { meta: meta({ 'idempotency-key': key }), id: cart.id });
    expect(replay.body.result.structuredContent).toEqual(canceled.body.result.structuredContent);

    // After cancel both transports agree: the cart is emptied, not deleted (docs/carts.md "Cancel").
    const gone = await call('get_cart', { meta: meta(), id: cart.id });
    const restGone = await s.req('demo.localhost', 'GET', `/api/ucp/carts/${cart.id}`);
    expect(gone.body.result.structuredContent).toEqual(restGone.body);
  });

  it('customization errors arrive as a result with messages, as in REST', async () => {
    const r = await createCart({ line_items: [{ item: { id: 'var_flask_steel' }, quantity: 1 }] });
    expect(r.status).toBe(200);
    const body = r.body.result.structuredContent;
    const rest = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_flask_steel' }, quantity: 1 }] });
    expect(body.messages.map((m: any) => m.path)).toEqual(rest.body.messages.map((m: any) => m.path));
    expect(body.messages.some((m: any) => m.type === 'error' && String(m.path).startsWith('$.line_items[0]'))).toBe(true);
  });

  it('honours idempotency keys: replay, conflict (-32000, HTTP 409), shared with REST', async () => {
    const key = randomUUID();
    const cart = { line_items: [line] };
    const first = await createCart(cart, key);
    const again = await createCart(cart, key);
    expect(again.body.result.structuredContent).toEqual(first.body.result.structuredContent);

    const conflict = await createCart({ line_items: [{ ...line, quantity: 2 }] }, key);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe(-32000);
    expect(conflict.body.error.data.code).toBe('idempotency_conflict');

    // The same caller (address and profile) over REST replays; keys are scoped to their caller (test/idempotency-callers.test.ts).
    const rest = await s.req('demo.localhost', 'POST', '/api/ucp/carts', cart, { 'idempotency-key': key, 'ucp-agent': `profile="${PROFILE}"` });
    expect(rest.body.id).toBe(first.body.result.structuredContent.id);
  });

  it('invalid cart shape → isError result with paths under $.cart; id mismatch too', async () => {
    const r = await createCart({ line_items: [{ item: { id: 'var_tee_m_white' }, quantity: 0 }] });
    expect(r.status).toBe(200);
    expect(r.body.result.isError).toBe(true);
    expect(r.body.result.structuredContent.messages[0].path).toBe('$.cart.line_items[0].quantity');
    const mismatch = await call('update_cart', { meta: meta(), id: 'cart_a', cart: { id: 'cart_b', line_items: [] } });
    expect(mismatch.body.result.isError).toBe(true);
    expect(mismatch.body.result.structuredContent.messages[0].path).toBe('$.cart.id');
  });
});

// A unit test of the mapping itself: no request, so no era.
describe('cart outcomes as MCP answers', () => {
  it('maps operation outcomes: 200/201 → result body; a reused key 409 and an unreadable key store 503 → -32000 with that HTTP status', () => {
    expect(cartResult({ status: 201, body: { ucp: { version: '2026-04-08' }, id: 'c' } })).toEqual({ ucp: { version: '2026-04-08' }, id: 'c' });
    for (const [error, status, code] of [[new IdempotencyConflict(), 409, 'idempotency_conflict'], [new IdempotencyUnavailable(), 503, 'service_unavailable']] as const) {
      const err = fromDomainError(error);
      expect(err).toBeInstanceOf(McpProtocolError);
      expect([err.code, err.httpStatus, err.data.code]).toEqual([-32000, status, code]);
      if (status === 503) expect(err.data.retry_after).toBeGreaterThan(0);
    }
  });
});

/** Malformed tools/call params: -32602 saying what to send, never -32603 with a validation dump. */
async function expectMalformedCallParams(rpc: ReturnType<typeof rawIn>['rpc'], cases: Array<[unknown, RegExp]>) {
  for (const [params, message] of cases) {
    const r = await rpc('tools/call', params);
    expect(r.body.error?.code, JSON.stringify(params)).toBe(-32602);
    expect(r.body.error.message).toMatch(message);
    expect(r.body.error.message).toContain('tools/call takes params {"name"');
    expect(JSON.stringify(r.body)).not.toMatch(/invalid_union|ZodError|"expected"/);
  }
}

describe.each(ERAS)('errors, access and the per-shop switch ($era)', ({ era }) => {
  const { rpc, call } = rawIn(era);

  it('a request that breaks JSON-RPC 2.0 (jsonrpc 1.0, an object id) → -32600 with HTTP 400; an unknown method → -32601', async () => {
    for (const over of [{ jsonrpc: '1.0' }, { id: {} }]) {
      const req = rawRequest(era, 1, 'tools/list');
      const r = await s.req('demo.localhost', 'POST', '/mcp', { ...req.body, ...over }, { ...JSON_ONLY, ...req.headers });
      expect(r.status, JSON.stringify(over)).toBe(400);
      expect(r.body.error.code).toBe(-32600);
    }
    const unknown = await rpc('no/such/method');
    expect(unknown.body.error.code).toBe(-32601);
  });

  it('malformed tools/call params → -32602 saying what to send, never -32603 with a validation dump', async () => {
    await expectMalformedCallParams(rpc, [
      [{ name: 'search_catalog', arguments: null }, /params\.arguments must be an object, not null/],
      [{ name: 'search_catalog', arguments: [1, 2] }, /params\.arguments must be an object, not an array/],
      [{ name: 'search_catalog', arguments: 'query=tee' }, /params\.arguments must be an object, not string/],
      [{ arguments: { meta: meta() } }, /params\.name must be a tool name/],
      [{ name: 7, arguments: {} }, /params\.name must be a tool name/],
    ]);
  });

  it('a malformed task on tools/call → -32602 naming params.task in the 2025 era, never a validation dump; 2026-07-28 has no tasks and ignores it', async () => {
    for (const task of ['x', 5, { ttl: 'a' }]) {
      const r = await rpc('tools/call', { name: 'search_catalog', arguments: { meta: meta(), catalog: { query: 'flask' } }, task });
      if (era !== '2026-07-28') {
        expect(r.body.error?.code, JSON.stringify(task)).toBe(-32602);
        expect(r.body.error.message).toMatch(/^Invalid params: tools\/call params\.task/);
        expect(r.body.error.message).toContain('tools/call takes params {"name"');
        expect(JSON.stringify(r.body)).not.toMatch(/\\n|"expected"|invalid_type/);
      } else {
        expect(r.body.error, JSON.stringify(task)).toBeUndefined();
        expect(r.body.result.isError).toBeUndefined();
      }
    }
  });

  it('malformed params on tools/list → -32602 naming the field, never -32603', async () => {
    const r = await rpc('tools/list', { cursor: 5 });
    expect(r.body.error?.code).toBe(-32602);
    expect(r.body.error.message).toMatch(/^Invalid params: tools\/list params/);
  });

  it('a malformed _meta.progressToken → -32602 naming the field, on tools/call as on tools/list', async () => {
    const cases = [['tools/list', {}], ['tools/call', { name: 'search_catalog', arguments: { meta: meta(), catalog: { query: 'flask' } } }]] as const;
    for (const [method, params] of cases) {
      for (const progressToken of [{}, 1.5, null]) {
        // rawRequest keeps this _meta beside the 2026-07-28 envelope.
        const r = await rpc(method, { ...params, _meta: { progressToken } });
        expect(r.status).toBe(200);
        expect(r.body.error?.code, `${method} ${JSON.stringify(progressToken)}`).toBe(-32602);
        expect(r.body.error.message).toMatch(new RegExp(`^Invalid params: ${method.replace('/', '\\/')} params\\._meta\\.progressToken`));
      }
    }
  });

  it('a non-JSON content type is refused (415), not crashed on', async () => {
    const req = rawRequest(era, 1, 'tools/list');
    const r = await s.req('demo.localhost', 'POST', '/mcp', JSON.stringify(req.body), { ...JSON_ONLY, ...req.headers, 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
    expect(r.body.error.code).toEqual(expect.any(Number));
  });

  it('oversized bodies → 413 with a JSON-RPC error', async () => {
    const req = rawRequest(era, 1, 'tools/list', { pad: 'x'.repeat(MAX_BODY_BYTES) });
    const r = await s.req('demo.localhost', 'POST', '/mcp', JSON.stringify(req.body), { ...JSON_ONLY, ...req.headers });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe(-32600);
    expect(r.body.error.data.code).toBe('request_too_large');
  });

  it('GET and DELETE are 405 (no SSE stream, no sessions)', async () => {
    for (const m of ['GET', 'DELETE']) {
      const r = await s.req('demo.localhost', m, '/mcp', undefined, { accept: 'text/event-stream', ...(era === MODERN ? { 'mcp-protocol-version': MODERN } : {}) });
      expect(r.status).toBe(405);
    }
  });

  it('anonymous tier works; an unknown API key is refused with -32000 and HTTP 401', async () => {
    for (const h of [{ 'x-api-key': 'nope' }, { authorization: 'Bearer nope' }] as Array<Record<string, string>>) {
      const r = await call('search_catalog', { meta: meta(), catalog: { query: 'flask' } }, h);
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe(-32000);
      expect(r.headers['www-authenticate']).toMatch(/^Bearer realm=/);
    }
  });

  it('browser agents may call it: the preflight allows the MCP, identity and signature headers; answers, errors included, carry CORS and expose WWW-Authenticate', async () => {
    // What a browser client of this era sends: 2026-07-28 adds Mcp-Method and Mcp-Name.
    const sent = ['content-type', 'mcp-protocol-version', 'authorization', 'signature', 'signature-input', 'content-digest', ...(era === MODERN ? ['mcp-method', 'mcp-name'] : [])];
    const pre = await s.req('demo.localhost', 'OPTIONS', '/mcp', undefined, {
      origin: 'https://agent.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': sent.join(', '),
    });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(String(pre.headers['access-control-allow-methods'])).toContain('POST');
    const allowed = String(pre.headers['access-control-allow-headers']).split(/,\s*/).map((h) => h.toLowerCase());
    expect(allowed).toEqual(expect.arrayContaining([...sent, 'ucp-agent']));
    const ok = await call('search_catalog', { meta: meta(), catalog: { query: 'tee' } }, { origin: 'https://agent.example' });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    const refused = await call('search_catalog', { meta: meta(), catalog: { query: 'tee' } }, { origin: 'https://agent.example', 'x-api-key': 'nope' });
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect(String(refused.headers['access-control-expose-headers'])).toMatch(/WWW-Authenticate/i);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer realm=/);
  });

  it('MCP off for other.localhost: /mcp is 404 and discovery has no mcp binding', async () => {
    const r = await rpc('tools/list', undefined, 'other.localhost');
    expect(r.status).toBe(404);
    const d = await s.req('other.localhost', 'GET', '/.well-known/ucp');
    expect(d.body.ucp.services['dev.ucp.shopping'].map((b: any) => b.transport)).not.toContain('mcp');
  });

  it('discovery on demo.localhost carries the mcp binding with endpoint and OpenRPC schema URL', async () => {
    // The 2026-04-08 leaf (/.well-known/ucp is 2026-08-25 since issue 37: test/ucp-versions.test.ts).
    const d = await s.req('demo.localhost', 'GET', '/.well-known/ucp/2026-04-08');
    expectUcpValid('https://ucp.dev/discovery/profile_schema.json#/$defs/business_profile', d.body);
    const mcp = d.body.ucp.services['dev.ucp.shopping'].find((b: any) => b.transport === 'mcp');
    expect(mcp).toEqual({
      version: '2026-04-08',
      transport: 'mcp',
      endpoint: `http://demo.localhost:${s.port}/mcp`,
      spec: 'https://ucp.dev/2026-04-08/specification/overview',
      schema: 'https://ucp.dev/2026-04-08/services/shopping/mcp.openrpc.json',
    });
    // The advertised endpoint is the one that answers.
    const client = await connectInEra(new URL(mcp.endpoint), era, 't');
    expect((await client.listTools()).tools).toHaveLength(7);
    await client.close();
  });

  it('the tool list matches the OpenRPC method names for carts and catalog', async () => {
    const { readFileSync, existsSync } = await import('node:fs');
    const { SHARED_UCP } = await import('./support/ucp-schemas.ts');
    const file = `${SHARED_UCP}/services/shopping/mcp.openrpc.json`;
    if (!existsSync(file)) return;
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    const offered = doc.methods.map((m: any) => m.name).filter((n: string) => /cart|catalog|product/.test(n)).sort();
    expect(offered).toEqual(TOOL_NAMES);
    const list = await rpc('tools/list');
    for (const m of doc.methods.filter((x: any) => TOOL_NAMES.includes(x.name))) {
      const tool = list.body.result.tools.find((t: any) => t.name === m.name);
      expect(Object.keys(tool.inputSchema.properties).sort()).toEqual(m.params.map((p: any) => p.name).sort());
    }
  });
});

describe('2025 era only', () => {
  const { rpc } = rawIn(LEGACY);

  // ucp-cli's quirk: `meta` inside params.arguments on tools/list; ucp-cli sends no envelope, so 2025 traffic.
  it('answers tools/list with meta in params.arguments and Accept: application/json only', async () => {
    const r = await rpc('tools/list', { arguments: { meta: meta() } });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/application\/json/);
    expect(r.body.result.tools.map((t: any) => t.name).sort()).toEqual(TOOL_NAMES);
    expect(r.headers['mcp-session-id']).toBeUndefined();
  });

  // The same ucp-cli quirk, malformed.
  it('refuses malformed meta on tools/list too', async () => {
    const r = await rpc('tools/list', { arguments: { meta: { 'ucp-agent': { profile: 'ftp://x' } } } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(-32001);
  });

  // Not JSON, not an object, no method: no request to carry an era; an empty batch: batches are 2025-only.
  it('malformed JSON → -32700; bad envelopes and empty batches → -32600; never a crash', async () => {
    const bad = await s.req('demo.localhost', 'POST', '/mcp', '{"jsonrpc": "2.0", ', JSON_ONLY);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    for (const body of [[], { jsonrpc: '1.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: {}, method: 'x' }, 'null', '42', { jsonrpc: '2.0', id: 9 }]) {
      const r = await s.req('demo.localhost', 'POST', '/mcp', typeof body === 'string' ? body : JSON.stringify(body), JSON_ONLY);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe(-32600);
    }
    const unknown = await rpc('no/such/method');
    expect(unknown.body.error.code).toBe(-32601);
  });

  // params that are not an object cannot carry the 2026-07-28 envelope.
  it('tools/call params that are not an object → -32602 saying what to send', async () => {
    await expectMalformedCallParams(rpc, [[[1, 2], /params must be an object/]]);
  });

  // initialize and ping do not exist in 2026-07-28 (test/mcp-eras.test.ts: -32601 there).
  it('malformed params on initialize, ping and tools/list → -32602 naming the field, never -32603', async () => {
    for (const [method, params] of [['initialize', undefined], ['initialize', { protocolVersion: 7 }], ['tools/list', { cursor: 5 }], ['ping', []]] as const) {
      const r = await rpc(method, params);
      expect(r.body.error?.code, `${method} ${JSON.stringify(params)}`).toBe(-32602);
      expect(r.body.error.message).toMatch(new RegExp(`^Invalid params: ${method.replace('/', '\\/')} params`));
    }
    expect((await rpc('ping')).body.result).toEqual({}); // a well-formed one still works
  });

  // Sessions-era transport rules: initialize, the 2025 MCP-Protocol-Version header, ping, batches.
  it('Streamable HTTP rules: notifications alone are accepted with 202 and no body; one initialize per POST; an unsupported MCP-Protocol-Version is 400', async () => {
    const note = await s.req('demo.localhost', 'POST', '/mcp', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), JSON_ONLY);
    expect(note.status).toBe(202);
    expect(note.text).toBe('');
    const init = { jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const two = await s.req('demo.localhost', 'POST', '/mcp', JSON.stringify([{ ...init, id: 1 }, { ...init, id: 2 }]), JSON_ONLY);
    expect(two.status).toBe(400);
    expect(two.body.error.code).toBe(-32600);
    const old = await s.req('demo.localhost', 'POST', '/mcp', JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), { ...JSON_ONLY, 'mcp-protocol-version': '1999-01-01' });
    expect(old.status).toBe(400);
    expect(old.body.error.message).toMatch(/Unsupported protocol version: 1999-01-01/);
    // A message that is both a request and a response is an invalid request (valid JSON: never
    // -32700), never left waiting for an answer that cannot come (found by the fuzz).
    const both = await s.req('demo.localhost', 'POST', '/mcp', JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping', result: {} }), JSON_ONLY);
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ id: 9, error: { code: -32600 } });
    // A supported version, and a batch: answers in request order, in one JSON array.
    const batch = await s.req('demo.localhost', 'POST', '/mcp', JSON.stringify([{ jsonrpc: '2.0', id: 'b', method: 'ping' }, { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 'a', method: 'ping' }]), { ...JSON_ONLY, 'mcp-protocol-version': '2025-06-18' });
    expect(batch.status).toBe(200);
    expect(batch.body).toEqual([{ jsonrpc: '2.0', id: 'b', result: {} }, { jsonrpc: '2.0', id: 'a', result: {} }]);
  });

  // 2026-07-28 has no batches (test/mcp-eras.test.ts: one holding a 2026-07-28 request is -32600).
  it('answers a batch', async () => {
    const r = await s.req('demo.localhost', 'POST', '/mcp', [
      { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: meta(), catalog: { query: 'tee' } } } },
    ], JSON_ONLY);
    expect(r.status).toBe(200);
    expect(r.body.map((m: any) => m.id).sort()).toEqual(['a', 'b']);
  });
});
