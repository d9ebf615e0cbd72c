/**
 * The request inspector (server/http/inspector, server/dev/requests.ts, docs/sandbox.md): each
 * hygiene note comes from a real sequence sent to the real server and not from the clean form of
 * that sequence; secrets never reach the log; the ring, the bodies and the shops tracked are
 * bounded; the routes are absent in production and recording is off there; reset takes a domain.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { demoAgentProfileUrl } from '../server/core/shops/ucp-profile.ts';
import { BODY_MAX_CHARS, exchangesOf, logFor, MAX_SHOPS, nextExchangeId, RING_SIZE } from '../server/http/inspector/store.ts';

let s: TestServer;
let agent: Record<string, string>;
let meta: (extra?: Record<string, unknown>) => Record<string, unknown>;
beforeAll(async () => {
  s = await startTestServer();
  agent = { 'ucp-agent': `profile="${demoAgentProfileUrl(s.port)}"` };
  meta = (extra = {}) => ({ 'ucp-agent': { profile: demoAgentProfileUrl(s.port) }, ...extra });
});
afterAll(() => s.close());

const SHOP = 'demo.localhost';
const JSON_TYPE = { 'content-type': 'application/json' };
const CART = { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] };
const key = () => ({ 'idempotency-key': randomUUID() });

const rest = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => s.req(SHOP, method, `/api/ucp${path}`, body, headers);
let rpcId = 1;
const mcp = (name: string, args: unknown, headers: Record<string, string> = {}) =>
  s.req(SHOP, 'POST', '/mcp', { jsonrpc: '2.0', id: rpcId++, method: 'tools/call', params: { name, arguments: args } }, { accept: 'application/json', ...headers });

/** The newest exchange id of the shop now: exchanges after it are this test's own. */
async function mark(shop = 'shop_demo'): Promise<number> {
  const r = await s.req('localhost', 'GET', `/dev/shops/${shop}/requests?limit=1`);
  expect(r.status).toBe(200);
  return r.body.since;
}
async function since(id: number, shop = 'shop_demo'): Promise<any[]> {
  const r = await s.req('localhost', 'GET', `/dev/shops/${shop}/requests?since=${id}`);
  expect(r.status).toBe(200);
  return r.body.exchanges;
}
const codes = (xs: any[]) => xs.flatMap((x) => x.notes.map((n: any) => n.code));

describe('a clean agent sequence', () => {
  it('is listed newest first with transport, operation, status, agent, key, duration and bodies, and no notes', async () => {
    const m = await mark();
    expect((await rest('POST', '/catalog/search', { query: 'tee' }, agent)).status).toBe(200);
    const k = key();
    const cart = await rest('POST', '/carts', CART, { ...agent, ...k });
    expect(cart.status).toBe(201);
    expect((await rest('PUT', `/carts/${cart.body.id}`, { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 2 }] }, { ...agent, ...key() })).status).toBe(200);
    expect((await rest('POST', '/carts', CART, { ...agent, ...k })).status).toBe(201); // a true retry: same key, same body
    expect((await rest('GET', `/carts/${cart.body.id}`, undefined, agent)).status).toBe(200);
    expect((await rest('POST', `/carts/${cart.body.id}/cancel`, undefined, { ...agent, ...key() })).status).toBe(200);
    expect((await mcp('search_catalog', { meta: meta(), catalog: { query: 'mug' } })).status).toBe(200);
    expect((await mcp('create_cart', { meta: meta({ 'idempotency-key': randomUUID() }), cart: CART })).body.result.isError).toBeUndefined();

    const xs = await since(m);
    expect(xs.map((x) => [x.transport, x.operation, x.status])).toEqual([
      ['mcp', 'create_cart', 200],
      ['mcp', 'search_catalog', 200],
      ['rest', 'cancel_cart', 200],
      ['rest', 'get_cart', 200],
      ['rest', 'create_cart', 201],
      ['rest', 'update_cart', 200],
      ['rest', 'create_cart', 201],
      ['rest', 'search_catalog', 200],
    ]);
    expect(codes(xs)).toEqual([]);
    const created = xs[6];
    expect(created).toMatchObject({ agent: demoAgentProfileUrl(s.port), idempotency_key: k['idempotency-key'], method: 'POST', path: '/api/ucp/carts' });
    expect(created.duration_ms).toBeGreaterThan(0);
    expect(JSON.parse(created.request.body)).toEqual(CART);
    expect(JSON.parse(created.response.body).id).toBe(cart.body.id);
    expect(created.request.headers['idempotency-key']).toBe(k['idempotency-key']);
    expect(xs.map((x) => x.id)).toEqual([...xs.map((x) => x.id)].sort((a, b) => b - a));
  });
});

describe('hygiene notes', () => {
  it('a write without an idempotency key, over REST and MCP; reads never need one', async () => {
    const m = await mark();
    expect((await rest('POST', '/carts', CART, agent)).status).toBe(201);
    expect((await mcp('create_cart', { meta: meta(), cart: CART })).status).toBe(200);
    expect((await rest('POST', '/catalog/search', { query: 'tee' }, agent)).status).toBe(200);
    const [search, viaMcp, viaRest] = await since(m);
    expect(codes([search])).toEqual([]);
    expect(viaRest.notes).toEqual([{ code: 'idempotency_key_missing', message: expect.stringContaining('Idempotency-Key header') }]);
    expect(viaMcp.notes).toEqual([{ code: 'idempotency_key_missing', message: expect.stringContaining('arguments.meta["idempotency-key"]') }]);
  });

  it('a retry sooner than the Retry-After it was given; the same retry after waiting is clean', async () => {
    const m = await mark();
    const k = key();
    expect((await rest('POST', '/carts', CART, { ...agent, ...k, 'ucp-sandbox-fault': '429' })).status).toBe(429);
    expect((await rest('POST', '/carts', CART, { ...agent, ...k })).status).toBe(201);
    let xs = await since(m);
    expect(xs[0].notes).toEqual([{ code: 'retry_too_soon', message: expect.stringMatching(/^create_cart retried \d\.\d s after a 429 that said Retry-After: 1\./) }]);
    expect(xs[1]).toMatchObject({ status: 429, notes: [], response: { headers: { 'retry-after': '1' } } });

    const m2 = await mark();
    const search = { meta: meta(), catalog: { query: 'tee' } };
    expect((await mcp('search_catalog', search, { 'ucp-sandbox-fault': '503' })).status).toBe(503);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await mcp('search_catalog', search)).status).toBe(200);
    xs = await since(m2);
    expect(xs.map((x) => x.status)).toEqual([200, 503]);
    expect(codes(xs)).toEqual([]);
  });

  it('after a 503 and a prompt retry, later creates with other keys and bodies are not called retries (issue 39 point 11)', async () => {
    const m = await mark();
    const k = key();
    expect((await rest('POST', '/carts', CART, { ...agent, ...k, 'ucp-sandbox-fault': '503' })).status).toBe(503);
    expect((await rest('POST', '/carts', CART, { ...agent, ...k })).status).toBe(201); // too soon, but it got through
    for (const q of [2, 3, 4]) expect((await rest('POST', '/carts', { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: q }] }, { ...agent, ...key() })).status).toBe(201);
    const xs = await since(m);
    expect(xs.map((x) => x.status)).toEqual([201, 201, 201, 201, 503]);
    expect(xs[3].notes.map((n: any) => n.code)).toEqual(['retry_too_soon']);
    expect(codes(xs.slice(0, 3))).toEqual([]);

    // Another request (another key) sent inside a 503's Retry-After is not that request's retry either.
    const m2 = await mark();
    expect((await rest('POST', '/carts', CART, { ...agent, ...key(), 'ucp-sandbox-fault': '503' })).status).toBe(503);
    expect((await rest('POST', '/carts', { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 5 }] }, { ...agent, ...key() })).status).toBe(201);
    expect(codes(await since(m2))).toEqual([]);
  });

  it('the same idempotency key with another body (the server answers 409; the note says why)', async () => {
    const m = await mark();
    const k = key();
    expect((await rest('POST', '/carts', CART, { ...agent, ...k })).status).toBe(201);
    const other = await rest('POST', '/carts', { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 3 }] }, { ...agent, ...k });
    expect(other.status).toBe(409);
    const [second, first] = await since(m);
    expect(first.notes).toEqual([]);
    expect(second.notes).toEqual([{ code: 'idempotency_key_reused', message: expect.stringContaining(`first sent with a different request (exchange #${first.id})`) }]);
  });

  it('a missing UCP-Agent (REST header, MCP meta) and one the server refuses', async () => {
    const m = await mark();
    expect((await rest('POST', '/catalog/search', { query: 'tee' })).status).toBe(200);
    expect((await rest('POST', '/catalog/search', { query: 'tee' }, { 'ucp-agent': 'profile="ftp://example.com/profile"' })).status).toBe(400);
    expect((await mcp('search_catalog', { catalog: { query: 'tee' } })).status).toBe(400);
    const [viaMcp, refused, missing] = await since(m);
    expect(codes([missing])).toEqual(['ucp_agent_missing']);
    expect(missing.agent).toBeNull();
    expect(refused.notes).toEqual([{ code: 'ucp_agent_unsupported', message: expect.stringContaining('(invalid_profile_url)') }]);
    expect(refused.agent).toBe('ftp://example.com/profile');
    expect(viaMcp.notes).toEqual([{ code: 'ucp_agent_missing', message: expect.stringContaining('arguments.meta["ucp-agent"].profile') }]);
  });

  it("a product id where a cart line takes a variant id (an unknown id is not that mistake)", async () => {
    const m = await mark();
    const byProduct = await rest('POST', '/carts', { line_items: [{ item: { id: 'prod_engraved_flask' }, quantity: 1 }] }, { ...agent, ...key() });
    expect(JSON.stringify(byProduct.body)).toContain('is a product id');
    expect((await mcp('create_cart', { meta: meta({ 'idempotency-key': randomUUID() }), cart: { line_items: [{ item: { id: 'prod_engraved_flask' }, quantity: 1 }] } })).text).toContain('is a product id');
    expect(JSON.stringify((await rest('POST', '/carts', { line_items: [{ item: { id: 'var_no_such_thing' }, quantity: 1 }] }, { ...agent, ...key() })).body)).toContain('var_no_such_thing');
    const [unknown, viaMcp, viaRest] = await since(m);
    expect(codes([unknown])).toEqual([]);
    for (const x of [viaRest, viaMcp]) expect(x.notes).toEqual([{ code: 'product_id_for_variant', message: expect.stringContaining("'prod_engraved_flask' is a product id") }]);
  });
});

describe('what is kept', () => {
  it('secrets are redacted: credentials, signatures, cookies, channel keys, storefront tokens', async () => {
    const m = await mark();
    const secret = 'ucp_sk_' + 'A'.repeat(43);
    await rest('POST', '/catalog/search', { query: 'tee' }, { ...agent, authorization: `Bearer ${secret}`, cookie: 'session=cookie-secret-2', signature: 'sig1=:c2lnLXNlY3JldC0z:', 'signature-input': 'sig1=("@method");keyid="k-secret-4"', 'x-api-key': secret });
    await rest('POST', '/catalog/search', { query: 'tee', context: { token: 'tok-very-secret-1' } }, agent);
    const page = await s.req(SHOP, 'GET', '/');
    const sft = /<meta name="ucp-storefront-token" content="([^"]+)">/.exec(page.text)![1];
    expect((await rest('POST', '/catalog/search', { query: 'mug' }, { authorization: `Bearer ${sft}` })).status).toBe(200);
    const xs = await since(m);
    const text = JSON.stringify(xs);
    for (const leaked of [secret, 'tok-very-secret-1', 'cookie-secret-2', 'c2lnLXNlY3JldC0z', 'k-secret-4', sft]) expect(text).not.toContain(leaked);
    const [own, inBody, agentCall] = xs;
    expect(own).toMatchObject({ transport: 'page', notes: [], request: { headers: { authorization: 'Bearer [redacted]' } } });
    expect(agentCall.request.headers).toMatchObject({ authorization: 'Bearer [redacted]', cookie: '[redacted]', signature: '[redacted]', 'signature-input': '[redacted]', 'x-api-key': '[redacted]' });
    expect(JSON.parse(inBody.request.body)).toEqual({ query: 'tee', context: { token: '[redacted]' } });
  });

  it(`a ring of ${RING_SIZE} per shop, bodies cut at ${BODY_MAX_CHARS} characters; ?limit and ?since`, async () => {
    for (let i = 0; i < RING_SIZE + 5; i++) expect((await s.req('other.localhost', 'POST', '/api/ucp/catalog/search', { query: `q${i}` }, agent)).status).toBe(200);
    const all = await s.req('localhost', 'GET', '/dev/shops/other.localhost/requests');
    expect(all.body.exchanges).toHaveLength(RING_SIZE);
    expect(JSON.parse(all.body.exchanges[0].request.body)).toEqual({ query: `q${RING_SIZE + 4}` });
    expect(JSON.parse(all.body.exchanges.at(-1).request.body)).toEqual({ query: 'q5' }); // the 5 oldest are gone
    const two = await s.req('localhost', 'GET', '/dev/shops/shop_other/requests?limit=2');
    expect(two.body.exchanges.map((x: any) => x.id)).toEqual(all.body.exchanges.slice(0, 2).map((x: any) => x.id));
    expect((await s.req('localhost', 'GET', `/dev/shops/shop_other/requests?since=${all.body.since}`)).body).toMatchObject({ exchanges: [], since: all.body.since });

    const m = await mark();
    expect((await rest('POST', '/catalog/search', { query: 'black', pagination: { limit: 20 } }, agent)).status).toBe(200);
    const [big] = await since(m);
    expect(big.response).toMatchObject({ truncated: true });
    expect(big.response.body).toHaveLength(BODY_MAX_CHARS);
  });

  it(`at most ${MAX_SHOPS} shops are tracked: the least recently recorded is forgotten`, () => {
    const entry = (id: number) => ({ id, at: 0, transport: 'rest' as const, method: 'GET', path: '/', operation: 'x', status: 200, durationMs: 0, agent: null, idempotencyKey: null, requestHeaders: [], responseHeaders: [], requestBody: null, responseBody: null, notes: [] });
    for (let i = 0; i <= MAX_SHOPS; i++) logFor(`shop_bound_${i}`, `bound${i}.test`).add(entry(nextExchangeId()));
    expect(exchangesOf('shop_bound_0')).toEqual([]);
    expect(exchangesOf(`shop_bound_${MAX_SHOPS}`)).toHaveLength(1);
  });
});

describe('the routes', () => {
  it('bad queries and unknown shops are clear 4xx errors', async () => {
    for (const q of ['limit=0', `limit=${RING_SIZE + 1}`, 'limit=abc', 'since=-1']) {
      const r = await s.req('localhost', 'GET', `/dev/shops/shop_demo/requests?${q}`);
      expect(r.status).toBe(400);
      expect(r.body.messages[0].path).toBe(`$.query.${q.split('=')[0]}`);
    }
    const none = await s.req('localhost', 'GET', '/dev/shops/nowhere.localhost/requests');
    expect(none.status).toBe(404);
    expect(none.body.content).toContain("No shop with id or domain 'nowhere.localhost'");
  });

  it('reset takes a domain (with or without port) as well as an id, and still refuses what a web page could forge', async () => {
    const ok = await s.req('localhost', 'POST', `/dev/shops/demo.localhost:${s.port}/reset`, {}, JSON_TYPE);
    expect(ok.status).toBe(200);
    expect(ok.body.shop).toBe('shop_demo');
    expect((await s.req('localhost', 'POST', '/dev/shops/demo.localhost/reset', 'x', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await s.req('localhost', 'POST', '/dev/shops/demo.localhost/reset', {}, { ...JSON_TYPE, origin: 'http://evil.example' })).status).toBe(403);
    const none = await s.req('localhost', 'POST', '/dev/shops/nowhere.localhost/reset', {}, JSON_TYPE);
    expect(none.status).toBe(404);
  });

  it('the page at /dev/ names its script under a policy without inline scripts, and picks a shop', async () => {
    for (const path of ['/dev/', '/dev']) {
      const r = await s.req('localhost', 'GET', path);
      expect(r.status).toBe(200);
      expect(r.headers['content-security-policy']).toContain("script-src 'self'");
      expect(r.headers['content-security-policy']).not.toContain("'unsafe-inline'; script");
      expect(r.text).toContain('<script type="module" src="/dev/inspector.js"></script>');
      expect(r.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(r.text).toContain('<option value="shop_demo" selected>');
    }
    const js = await s.req('localhost', 'GET', '/dev/inspector.js');
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.text).toContain('/requests?since=');
  });

  it('UCP_INSPECTOR=off: a development server records nothing and says so', async () => {
    const off = await startTestServer({ inspector: false });
    try {
      const newest = () => exchangesOf('shop_other', { limit: 1 })[0]?.id;
      const before = newest();
      expect((await off.req('other.localhost', 'POST', '/api/ucp/catalog/search', { query: 'flask' })).status).toBe(200);
      expect(newest()).toBe(before);
      expect((await off.req('localhost', 'GET', '/dev/shops/shop_other/requests')).body).toMatchObject({ recording: false });
      expect((await s.req('localhost', 'GET', '/dev/shops/shop_other/requests?limit=1')).body).toMatchObject({ recording: true });
    } finally {
      await off.close();
    }
  });

  it('POST /dev/recording pauses and resumes recording (what was kept stays); only JSON, never from a web page', async () => {
    const newest = () => exchangesOf('shop_other', { limit: 1 })[0]?.id;
    expect((await s.req('other.localhost', 'POST', '/api/ucp/catalog/search', { query: 'flask' })).status).toBe(200);
    const kept = newest();
    try {
      const paused = await s.req('localhost', 'POST', '/dev/recording', { recording: false }, JSON_TYPE);
      expect(paused.status).toBe(200);
      expect(paused.body).toEqual({ recording: false });
      expect((await s.req('other.localhost', 'POST', '/api/ucp/catalog/search', { query: 'flask' })).status).toBe(200);
      expect(newest()).toBe(kept);
      expect((await s.req('localhost', 'GET', '/dev/shops/shop_other/requests')).body).toMatchObject({ recording: false, exchanges: [{ id: kept }] });
      // Bad input: named field, nothing changed; a web page cannot switch it (the dev routes' guard).
      const bad = await s.req('localhost', 'POST', '/dev/recording', { recording: 'yes' }, JSON_TYPE);
      expect(bad.status).toBe(400);
      expect(bad.body.messages?.[0]?.path ?? bad.body.path).toMatch(/recording/);
      expect((await s.req('localhost', 'POST', '/dev/recording', { recording: true }, { ...JSON_TYPE, origin: 'http://evil.example' })).status).toBe(403);
      expect((await s.req('localhost', 'POST', '/dev/recording', 'recording=true', { 'content-type': 'text/plain' })).status).toBe(415);
      expect(newest()).toBe(kept);
    } finally {
      expect((await s.req('localhost', 'POST', '/dev/recording', { recording: true }, JSON_TYPE)).body).toEqual({ recording: true });
    }
    expect((await s.req('other.localhost', 'POST', '/api/ucp/catalog/search', { query: 'flask' })).status).toBe(200);
    expect(newest()).toBeGreaterThan(kept!);
  });

  it('production: the routes are absent and nothing is recorded', async () => {
    const prod = await startTestServer({ mode: 'production', seedDemo: true });
    try {
      const newest = () => exchangesOf('shop_demo', { limit: 1 })[0]?.id;
      const before = newest();
      expect((await prod.req(SHOP, 'POST', '/api/ucp/catalog/search', { query: 'tee' })).status).toBe(200);
      expect(newest()).toBe(before);
      for (const path of ['/dev/', '/dev/inspector.js', '/dev/shops/shop_demo/requests']) expect((await prod.req('localhost', 'GET', path)).status).toBe(404);
      expect((await prod.req('localhost', 'POST', '/dev/shops/demo.localhost/reset', {}, JSON_TYPE)).status).toBe(404);
    } finally {
      await prod.close();
    }
  });
});
