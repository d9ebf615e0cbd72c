/**
 * Access tiers and agent identity (docs/access.md) on both transports: channel API keys, RFC 9421
 * signed requests, the anonymous tier, identity binding, UCP-Agent negotiation and its errors.
 * Platform profiles come from an in-memory network (test/support/platform.ts) and, in the last
 * block, from a real https server on loopback with a throwaway CA.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { request as httpsRequest } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { expectUcpValid } from './support/ucp-schemas.ts';
import { makeKey, platformProfile, serveProfiles, signRequest, type TestKey } from './support/platform.ts';
import { makeLocalhostCert } from './support/tls-localhost.ts';
import { tokensFor } from './support/oauth.ts';
import { issueChannelKey, revokeChannelKey } from '../server/core/access/channel-keys.ts';
import { configurePlatformProfiles, type FetchLike } from '../server/core/access/platform-profiles.ts';

const A = 'https://agent-a.example/.well-known/ucp';
const B = 'https://agent-b.example/ucp.json';
const NO_DISCOUNT = 'https://lean.example/.well-known/ucp';
const CATALOG_ONLY = 'https://browse.example/.well-known/ucp';
const MALFORMED = 'https://broken.example/.well-known/ucp';
const OLD = 'https://old.example/.well-known/ucp';
const ROTATING = 'https://rotating.example/.well-known/ucp';
const EDDSA = 'https://eddsa.example/.well-known/ucp';
const UNREACHABLE = 'https://unreachable.example/.well-known/ucp';

const k1 = makeKey('k1');
const k2 = makeKey('k2');
const k3 = makeKey('k3-new');
const rotatingKeys: TestKey[] = [k2];

let s: TestServer;
let net: ReturnType<typeof serveProfiles>;
let keyA: string;
let keyRevoked: string;
let keyDemo: string;

beforeAll(async () => {
  s = await startTestServer();
  net = serveProfiles({
    [A]: platformProfile({ keys: [k1] }),
    [B]: platformProfile({ keys: [k2] }),
    [NO_DISCOUNT]: platformProfile({ caps: ['dev.ucp.shopping.catalog.search', 'dev.ucp.shopping.catalog.lookup', 'dev.ucp.shopping.cart'] }),
    [CATALOG_ONLY]: platformProfile({ caps: ['dev.ucp.shopping.catalog.search', 'dev.ucp.shopping.catalog.lookup'] }),
    [MALFORMED]: { ucp: { version: '2026-04-08' } },
    [OLD]: platformProfile({ version: '2026-01-11' }),
    [ROTATING]: () => new Response(JSON.stringify(platformProfile({ keys: rotatingKeys })), { status: 200, headers: { 'cache-control': 'public, max-age=3600' } }),
    [EDDSA]: { ...platformProfile(), signing_keys: [{ kid: 'ed', kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }] },
  });
  keyA = (await issueChannelKey(s.db, 'shop_strict', { profileUrl: A, label: 'agent A' })).key;
  keyDemo = (await issueChannelKey(s.db, 'shop_demo', { profileUrl: A })).key;
  const revoked = await issueChannelKey(s.db, 'shop_strict', { profileUrl: A });
  keyRevoked = revoked.key;
  await revokeChannelKey(s.db, 'shop_strict', revoked.record.id);
});
afterAll(() => s.close());

const agent = (profile: string) => ({ 'ucp-agent': `profile="${profile}"` });
const CART = { line_items: [{ item: { id: 'strict_var_padlock' }, quantity: 1 }] };
const DEMO_CART = { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] };
const rest = (host: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  s.req(host, method, `/api/ucp${path}`, body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body), { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers });

/** A signed REST request (headers from signRequest; `tamper` changes what is sent after signing). */
async function signedRest(host: string, method: string, path: string, body: unknown, opts: { key?: TestKey; profile?: string; extra?: Parameters<typeof signRequest>[0] extends infer P ? Partial<P> : never; sentBody?: string } = {}) {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers = signRequest({
    key: opts.key ?? k1,
    method,
    url: `http://${host}:${s.port}/api/ucp${path}`,
    headers: { ...agent(opts.profile ?? A), ...(method !== 'GET' ? { 'idempotency-key': randomUUID() } : {}) },
    ...(text !== undefined ? { body: text } : {}),
    ...(opts.extra ?? {}),
  });
  return s.req(host, method, `/api/ucp${path}`, opts.sentBody ?? text, headers);
}

const capsOf = (body: any) => Object.keys(body?.ucp?.capabilities ?? {}).sort();

describe('anonymous tier', () => {
  it('demo.localhost: no UCP-Agent, search and carts work with every capability listed', async () => {
    const search = await rest('demo.localhost', 'POST', '/catalog/search', { query: 'mug' });
    expect(search.status).toBe(200);
    expect(capsOf(search.body)).toEqual(['dev.ucp.shopping.catalog.search']);
    const cart = await rest('demo.localhost', 'POST', '/carts', DEMO_CART);
    expect(cart.status).toBe(201);
    expect(capsOf(cart.body)).toEqual(['dev.ucp.shopping.cart', 'dev.ucp.shopping.discount']);
  });

  it('strict.localhost: search allowed; carts → 401 identity_required with WWW-Authenticate', async () => {
    expect((await rest('strict.localhost', 'POST', '/catalog/search', { query: 'padlock' })).status).toBe(200);
    for (const [m, p, b] of [['POST', '/carts', CART], ['GET', '/carts/c_x', undefined], ['PUT', '/carts/c_x', CART], ['POST', '/carts/c_x/cancel', {}], ['POST', '/catalog/lookup', { ids: ['x'] }]] as const) {
      const r = await rest('strict.localhost', m, p, b);
      expect(r.status, `${m} ${p}`).toBe(401);
      expect(r.body.code).toBe('identity_required');
      expect(r.headers['www-authenticate']).toMatch(/^Bearer realm="http:\/\/strict\.localhost:\d+"/);
    }
  });

  it('an anonymous caller naming a profile gets it fetched: unreachable 424, malformed 422, old version 422, bad URL 400', async () => {
    const cases: Array<[string, number, string]> = [
      [`profile="${UNREACHABLE}"`, 424, 'profile_unreachable'],
      [`profile="${MALFORMED}"`, 422, 'profile_malformed'],
      [`profile="${OLD}"`, 422, 'version_unsupported'],
      ['profile="http://agent.example/p.json"', 400, 'invalid_profile_url'],
      ['profile="not a url"', 400, 'invalid_profile_url'],
      ['profile=unquoted', 400, 'invalid_profile_url'],
      ['agent="x"', 400, 'invalid_profile_url'],
    ];
    for (const [header, status, code] of cases) {
      const r = await rest('demo.localhost', 'POST', '/catalog/search', { query: 'mug' }, { 'ucp-agent': header });
      expect([r.status, r.body.code], header).toEqual([status, code]);
      const c = await rest('demo.localhost', 'POST', '/carts', DEMO_CART, { 'ucp-agent': header });
      expect([c.status, c.body.code], header).toEqual([status, code]);
    }
  });
});

describe('negotiated capabilities in the ucp block', () => {
  it('a platform without discount gets carts listing only cart', async () => {
    const r = await rest('demo.localhost', 'POST', '/carts', DEMO_CART, agent(NO_DISCOUNT));
    expect(r.status).toBe(201);
    expect(capsOf(r.body)).toEqual(['dev.ucp.shopping.cart']);
    const g = await rest('demo.localhost', 'GET', `/carts/${r.body.id}`, undefined, agent(NO_DISCOUNT));
    expect(capsOf(g.body)).toEqual(['dev.ucp.shopping.cart']);
    const miss = await rest('demo.localhost', 'GET', '/carts/nope', undefined, agent(NO_DISCOUNT));
    expect(capsOf(miss.body)).toEqual(['dev.ucp.shopping.cart']);
    const all = await rest('demo.localhost', 'POST', '/carts', DEMO_CART, agent(A));
    expect(capsOf(all.body)).toEqual(['dev.ucp.shopping.cart', 'dev.ucp.shopping.discount']);
  });

  it('a platform without discount cannot apply codes: they are ignored with a warning, prices unchanged', async () => {
    const withCode = { ...DEMO_CART, discounts: { codes: ['WELCOME10'] } };
    const r = await rest('demo.localhost', 'POST', '/carts', withCode, agent(NO_DISCOUNT));
    expect(r.status).toBe(201);
    expectUcpValid('shopping/cart.json', r.body);
    expect(r.body.discounts).toBeUndefined();
    expect(r.body.totals.some((t: any) => t.type === 'discount' || t.type === 'items_discount')).toBe(false);
    expect(r.body.messages).toContainEqual(expect.objectContaining({ type: 'warning', code: 'capability_not_negotiated', path: '$.discounts' }));
    const negotiated = await rest('demo.localhost', 'POST', '/carts', withCode, agent(A));
    expect(negotiated.body.discounts.applied).toHaveLength(1);
    const total = (b: any) => b.totals.find((t: any) => t.type === 'total').amount;
    expect(total(negotiated.body)).toBeLessThan(total(r.body));
  });

  it('a platform without cart: capabilities_incompatible as a 200 UCP error envelope; catalog still works', async () => {
    const r = await rest('demo.localhost', 'POST', '/carts', DEMO_CART, agent(CATALOG_ONLY));
    expect(r.status).toBe(200);
    expect(r.body.ucp.status).toBe('error');
    expect(r.body.messages[0].code).toBe('capabilities_incompatible');
    expect(capsOf(r.body)).toEqual([]);
    expectUcpValid('shopping/types/error_response.json', r.body);
    const s1 = await rest('demo.localhost', 'POST', '/catalog/search', { query: 'mug' }, agent(CATALOG_ONLY));
    expect(s1.status).toBe(200);
    expect(capsOf(s1.body)).toEqual(['dev.ucp.shopping.catalog.search']);
  });

  it('the profile is cached: many requests, one fetch', async () => {
    const before = net.hits.get(NO_DISCOUNT) ?? 0;
    for (let i = 0; i < 3; i++) await rest('demo.localhost', 'POST', '/catalog/search', { query: 'mug' }, agent(NO_DISCOUNT));
    expect(net.hits.get(NO_DISCOUNT)).toBe(before);
  });
});

describe('token tier (channel API keys)', () => {
  it('Bearer or X-API-Key with the bound profile opens carts on strict.localhost', async () => {
    const r = await rest('strict.localhost', 'POST', '/carts', CART, { authorization: `Bearer ${keyA}`, ...agent(A) });
    expect(r.status).toBe(201);
    const g = await rest('strict.localhost', 'GET', `/carts/${r.body.id}`, undefined, { 'x-api-key': keyA, ...agent(A) });
    expect(g.status).toBe(200);
    expect(g.body.id).toBe(r.body.id);
  });

  it('bad, revoked, another shop\'s or malformed credentials → 401 with WWW-Authenticate', async () => {
    for (const h of [
      { authorization: 'Bearer ucp_sk_nope' } as Record<string, string>,
      { authorization: `Bearer ${keyRevoked}` },
      { 'x-api-key': keyRevoked },
      { authorization: `Bearer ${keyDemo}` },
      { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
    ]) {
      const r = await rest('strict.localhost', 'POST', '/carts', CART, { ...h, ...agent(A) });
      expect(r.status, JSON.stringify(h)).toBe(401);
      expect(r.body.code).toBe('invalid_credentials');
      expect(r.headers['www-authenticate']).toMatch(/^Bearer realm=/);
    }
    // Also for an operation anonymous callers may use: a presented key is never downgraded.
    const s1 = await rest('strict.localhost', 'POST', '/catalog/search', { query: 'x' }, { 'x-api-key': 'ucp_sk_nope', ...agent(A) });
    expect(s1.status).toBe(401);
  });

  it('identity binding: a key used for another profile → 403 profile_not_trusted; without UCP-Agent → 400', async () => {
    const r = await rest('strict.localhost', 'POST', '/carts', CART, { authorization: `Bearer ${keyA}`, ...agent(B) });
    expect([r.status, r.body.code]).toEqual([403, 'profile_not_trusted']);
    const n = await rest('strict.localhost', 'POST', '/carts', CART, { authorization: `Bearer ${keyA}` });
    expect([n.status, n.body.code]).toEqual([400, 'invalid_profile_url']);
  });

  it('merchant API: issue (shown once), list (no key), revoke → the key stops working', async () => {
    const token = (await tokensFor(s, 'sales_channel_read sales_channel_write')).access_token;
    const api = (method: string, path: string, body?: unknown) => s.req('localhost', method, `/merchants/shop_demo/3.0${path}`, body, { authorization: `Bearer ${token}` });
    const bad = await api('POST', '/channel_keys', { profile_url: 'http://agent.example/p' });
    expect(bad.status).toBe(422);
    const extra = await api('POST', '/channel_keys', { profile_url: A, labl: 'typo' });
    expect(extra.status).toBe(422);
    expect(extra.body.error.details).toEqual([expect.objectContaining({ path: '$.labl' })]);
    expect((await api('GET', '/channel_keys')).body.channel_keys.some((k: any) => k.label === 'typo')).toBe(false);
    const created = await api('POST', '/channel_keys', { profile_url: A, label: 'Agent A' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^ucp_sk_[A-Za-z0-9_-]{43}$/);
    expect(created.body.profile_url).toBe(A);
    const list = await api('GET', '/channel_keys');
    const mine = list.body.channel_keys.find((k: any) => k.id === created.body.id);
    expect(mine).toBeTruthy();
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);
    const ok = await rest('demo.localhost', 'POST', '/carts', DEMO_CART, { 'x-api-key': created.body.key, ...agent(A) });
    expect(ok.status).toBe(201);
    const del = await api('DELETE', `/channel_keys/${created.body.id}`);
    expect(del.status).toBe(200);
    expect(del.body.revoked_at).toBeTruthy();
    expect((await api('DELETE', '/channel_keys/ck_nope')).status).toBe(404);
    const after = await rest('demo.localhost', 'POST', '/carts', DEMO_CART, { 'x-api-key': created.body.key, ...agent(A) });
    expect(after.status).toBe(401);
    const noScope = (await tokensFor(s, 'sales_channel_read')).access_token;
    const forbidden = await s.req('localhost', 'POST', '/merchants/shop_demo/3.0/channel_keys', { profile_url: A }, { authorization: `Bearer ${noScope}` });
    expect(forbidden.status).toBe(403);
  });
});

describe('signed tier (RFC 9421 + RFC 9530)', () => {
  it('a signed create / get / cancel on strict.localhost succeeds', async () => {
    const r = await signedRest('strict.localhost', 'POST', '/carts', CART);
    expect(r.status, r.text).toBe(201);
    const g = await signedRest('strict.localhost', 'GET', `/carts/${r.body.id}`, undefined);
    expect(g.status, g.text).toBe(200);
    const q = await signedRest('strict.localhost', 'GET', `/carts/${r.body.id}?x=1`, undefined);
    expect(q.status, q.text).toBe(200);
    const c = await signedRest('strict.localhost', 'POST', `/carts/${r.body.id}/cancel`, {});
    expect(c.status, c.text).toBe(200);
  });

  it('the negative matrix', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, () => Promise<{ status: number; body: any; headers: any }>, number, string]> = [
      ['Signature-Input without Signature', async () => {
        const h = signRequest({ key: k1, method: 'POST', url: `http://strict.localhost:${s.port}/api/ucp/carts`, headers: agent(A), body: JSON.stringify(CART) });
        delete (h as any).signature;
        return s.req('strict.localhost', 'POST', '/api/ucp/carts', JSON.stringify(CART), h);
      }, 401, 'signature_missing'],
      ['garbled Signature', async () => {
        const h = signRequest({ key: k1, method: 'POST', url: `http://strict.localhost:${s.port}/api/ucp/carts`, headers: agent(A), body: JSON.stringify(CART) });
        h.signature = 'sig1=:!!!not base64';
        return s.req('strict.localhost', 'POST', '/api/ucp/carts', JSON.stringify(CART), h);
      }, 401, 'signature_invalid'],
      ['wrong key for the kid', () => signedRest('strict.localhost', 'POST', '/carts', CART, { key: { ...k2, kid: 'k1' } }), 401, 'signature_invalid'],
      ['DER-length signature', async () => {
        const h = signRequest({ key: k1, method: 'POST', url: `http://strict.localhost:${s.port}/api/ucp/carts`, headers: agent(A), body: JSON.stringify(CART) });
        h.signature = `sig1=:${Buffer.alloc(70, 1).toString('base64')}:`;
        return s.req('strict.localhost', 'POST', '/api/ucp/carts', JSON.stringify(CART), h);
      }, 401, 'signature_invalid'],
      ['created outside ±300 s', () => signedRest('strict.localhost', 'POST', '/carts', CART, { extra: { created: now - 1000 } }), 401, 'signature_invalid'],
      ['content-digest not covered', () => signedRest('strict.localhost', 'POST', '/carts', CART, { extra: { components: ['@method', '@authority', '@path', 'ucp-agent', 'idempotency-key'] } }), 401, 'signature_invalid'],
      ['ucp-agent not covered', () => signedRest('strict.localhost', 'POST', '/carts', CART, { extra: { components: ['@method', '@authority', '@path', 'idempotency-key', 'content-digest', 'content-type'] } }), 401, 'signature_invalid'],
      ['signed for another path', () => signedRest('strict.localhost', 'POST', '/carts', CART, { extra: { url: `http://strict.localhost:${s.port}/api/ucp/catalog/search` } }), 401, 'signature_invalid'],
      ['body tampered after signing', () => signedRest('strict.localhost', 'POST', '/carts', CART, { sentBody: JSON.stringify({ ...CART, line_items: [{ ...CART.line_items[0], quantity: 9 }] }) }), 400, 'digest_mismatch'],
      ['digest of another body', () => signedRest('strict.localhost', 'POST', '/carts', CART, { extra: { digestOf: '{}' } }), 400, 'digest_mismatch'],
      ['unsupported alg parameter', () => signedRest('strict.localhost', 'POST', '/carts', CART, { extra: { alg: 'rsa-pss-sha512' } }), 400, 'algorithm_unsupported'],
      ['Ed25519 key in the profile', () => signedRest('strict.localhost', 'POST', '/carts', CART, { key: { ...k1, kid: 'ed' }, profile: EDDSA }), 400, 'algorithm_unsupported'],
      ['signed without UCP-Agent', async () => {
        const h = signRequest({ key: k1, method: 'POST', url: `http://strict.localhost:${s.port}/api/ucp/carts`, body: JSON.stringify(CART) });
        return s.req('strict.localhost', 'POST', '/api/ucp/carts', JSON.stringify(CART), h);
      }, 400, 'invalid_profile_url'],
      ['profile unreachable', () => signedRest('strict.localhost', 'POST', '/carts', CART, { profile: UNREACHABLE }), 424, 'profile_unreachable'],
      ['profile malformed', () => signedRest('strict.localhost', 'POST', '/carts', CART, { profile: MALFORMED }), 422, 'profile_malformed'],
      ['profile version unsupported', () => signedRest('strict.localhost', 'POST', '/carts', CART, { profile: OLD }), 422, 'version_unsupported'],
      ['key of another profile (identity)', () => signedRest('strict.localhost', 'POST', '/carts', CART, { key: k1, profile: B }), 401, 'key_not_found'],
    ];
    for (const [name, send, status, code] of cases) {
      const r = await send();
      expect([r.status, r.body?.code], name).toEqual([status, code]);
      if (status === 401) expect(r.headers['www-authenticate'], name).toMatch(/^Bearer realm=/);
    }
  });

  it('unknown kid: one forced refresh per origin per minute, then key_not_found', async () => {
    const before = net.hits.get(A) ?? 0;
    const r1 = await signedRest('strict.localhost', 'POST', '/carts', CART, { key: makeKey('k-unknown') });
    expect([r1.status, r1.body.code]).toEqual([401, 'key_not_found']);
    expect(net.hits.get(A)).toBe(before + 1);
    const r2 = await signedRest('strict.localhost', 'POST', '/carts', CART, { key: makeKey('k-unknown-2') });
    expect([r2.status, r2.body.code]).toEqual([401, 'key_not_found']);
    expect(net.hits.get(A)).toBe(before + 1);
  });

  it('key rotation: a new kid is found by the forced refresh', async () => {
    expect((await signedRest('strict.localhost', 'POST', '/carts', CART, { key: k2, profile: ROTATING })).status).toBe(201);
    rotatingKeys.push(k3);
    const r = await signedRest('strict.localhost', 'POST', '/carts', CART, { key: k3, profile: ROTATING });
    expect(r.status, r.text).toBe(201);
  });
});

describe('MCP transport', () => {
  let id = 1;
  async function mcp(host: string, tool: string, args: Record<string, unknown>, headers: Record<string, string> = {}, sign?: { key?: TestKey; tamper?: boolean; alg?: string }) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: tool, arguments: args } });
    let h: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json', ...headers };
    if (sign) h = signRequest({ key: sign.key ?? k1, method: 'POST', url: `http://${host}:${s.port}/mcp`, headers: h, body, ...(sign.alg ? { alg: sign.alg } : {}) });
    return s.req(host, 'POST', '/mcp', sign?.tamper ? body.replace('"quantity":1', '"quantity":2') : body, h);
  }
  const meta = (profile: string, extra: Record<string, unknown> = {}) => ({ 'ucp-agent': { profile }, ...extra });

  it('anonymous: search on strict, carts refused (-32000, HTTP 401, WWW-Authenticate)', async () => {
    const ok = await mcp('strict.localhost', 'search_catalog', { meta: meta(A), catalog: { query: 'padlock' } });
    expect(ok.status).toBe(200);
    expect(ok.body.result.structuredContent.products.length).toBeGreaterThan(0);
    const r = await mcp('strict.localhost', 'create_cart', { meta: meta(A), cart: CART });
    expect([r.status, r.body.error.code, r.body.error.data.code]).toEqual([401, -32000, 'identity_required']);
    expect(r.headers['www-authenticate']).toMatch(/^Bearer realm=/);
    const bad = await mcp('strict.localhost', 'create_cart', { meta: meta(A), cart: CART }, { authorization: 'Bearer ucp_sk_nope' });
    expect([bad.status, bad.body.error.data.code]).toEqual([401, 'invalid_credentials']);
    expect(bad.headers['www-authenticate']).toMatch(/^Bearer realm="[^"]+", error="invalid_token"$/);
  });

  it('token and signed tiers create carts; negotiated capabilities narrow structuredContent', async () => {
    const t = await mcp('strict.localhost', 'create_cart', { meta: meta(A), cart: CART }, { authorization: `Bearer ${keyA}` });
    expect(t.status, t.text).toBe(200);
    expect(t.body.result.structuredContent.id).toBeTruthy();
    const sg = await mcp('strict.localhost', 'create_cart', { meta: meta(A), cart: CART }, {}, {});
    expect(sg.status, sg.text).toBe(200);
    expect(capsOf(sg.body.result.structuredContent)).toEqual(['dev.ucp.shopping.cart', 'dev.ucp.shopping.discount']);
    const lean = await mcp('demo.localhost', 'create_cart', { meta: meta(NO_DISCOUNT), cart: DEMO_CART });
    expect(capsOf(lean.body.result.structuredContent)).toEqual(['dev.ucp.shopping.cart']);
  });

  it('capabilities_incompatible is a result, not an error', async () => {
    const r = await mcp('demo.localhost', 'create_cart', { meta: meta(CATALOG_ONLY), cart: DEMO_CART });
    expect(r.status).toBe(200);
    expect(r.body.error).toBeUndefined();
    expect(r.body.result.structuredContent.ucp.status).toBe('error');
    expect(r.body.result.structuredContent.messages[0].code).toBe('capabilities_incompatible');
  });

  it('the negative matrix maps to -32001 / -32000 / -32600 with the REST status', async () => {
    const cases: Array<[string, () => ReturnType<typeof mcp>, number, number, string]> = [
      ['bad URL', () => mcp('demo.localhost', 'search_catalog', { meta: meta('http://agent.example/p'), catalog: { query: 'x' } }), 400, -32001, 'invalid_profile_url'],
      ['unreachable', () => mcp('demo.localhost', 'search_catalog', { meta: meta(UNREACHABLE), catalog: { query: 'x' } }), 424, -32001, 'profile_unreachable'],
      ['malformed', () => mcp('demo.localhost', 'search_catalog', { meta: meta(MALFORMED), catalog: { query: 'x' } }), 422, -32001, 'profile_malformed'],
      ['version', () => mcp('demo.localhost', 'search_catalog', { meta: meta(OLD), catalog: { query: 'x' } }), 422, -32001, 'version_unsupported'],
      ['bad key', () => mcp('strict.localhost', 'create_cart', { meta: meta(A), cart: CART }, { 'x-api-key': 'ucp_sk_nope' }), 401, -32000, 'invalid_credentials'],
      ['revoked key', () => mcp('strict.localhost', 'create_cart', { meta: meta(A), cart: CART }, { 'x-api-key': keyRevoked }), 401, -32000, 'invalid_credentials'],
      ['identity mismatch', () => mcp('strict.localhost', 'create_cart', { meta: meta(B), cart: CART }, { authorization: `Bearer ${keyA}` }), 403, -32000, 'profile_not_trusted'],
      ['signature missing', () => mcp('strict.localhost', 'create_cart', { meta: meta(A), cart: CART }, { 'signature-input': 'sig1=("@method");keyid="k1"' }), 401, -32000, 'signature_missing'],
      ['wrong key', () => mcp('strict.localhost', 'create_cart', { meta: meta(A), cart: CART }, {}, { key: { ...k2, kid: 'k1' } }), 401, -32000, 'signature_invalid'],
      ['unknown kid', () => mcp('strict.localhost', 'create_cart', { meta: meta(A), cart: CART }, {}, { key: makeKey('nobody') }), 401, -32000, 'key_not_found'],
      ['body tampered', () => mcp('strict.localhost', 'create_cart', { meta: meta(A), cart: CART }, {}, { tamper: true }), 400, -32600, 'digest_mismatch'],
      ['unsupported alg', () => mcp('strict.localhost', 'create_cart', { meta: meta(A), cart: CART }, {}, { alg: 'hmac-sha256' }), 400, -32600, 'algorithm_unsupported'],
    ];
    for (const [name, send, status, rpc, code] of cases) {
      const r = await send();
      expect([r.status, r.body?.error?.code, r.body?.error?.data?.code], name).toEqual([status, rpc, code]);
    }
  });
});

describe('platform profile over https on loopback', () => {
  let dir: string;
  let close: () => Promise<void>;
  let base: string;
  let ca: Buffer;

  /** fetch over node:https trusting the throwaway CA (undici's global fetch ignores NODE_EXTRA_CA_CERTS set at run time). */
  const httpsFetch: FetchLike = (url, init) =>
    new Promise((resolve, reject) => {
      const req = httpsRequest(url, { method: 'GET', ca, headers: init.headers as Record<string, string>, signal: init.signal ?? undefined }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d) => chunks.push(d));
        res.on('end', () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 502, headers }));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'access-tls-'));
    const { keyFile, certFile } = makeLocalhostCert(dir, ['platform.localhost']);
    ca = readFileSync(certFile);
    const server = createHttpsServer({ key: readFileSync(keyFile), cert: ca }, (req, res) => {
      if (req.url === '/.well-known/ucp') {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=60' });
        res.end(JSON.stringify(platformProfile({ keys: [k1] })));
      } else if (req.url === '/moved') {
        res.writeHead(301, { location: '/.well-known/ucp' });
        res.end();
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `https://localhost:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((r) => server.close(() => r()));
    configurePlatformProfiles({ fetch: httpsFetch });
  });
  afterAll(async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fetches the profile over TLS and verifies a signed request against its keys', async () => {
    const r = await signedRest('strict.localhost', 'POST', '/carts', CART, { profile: `${base}/.well-known/ucp` });
    expect(r.status, r.text).toBe(201);
  });

  it('a redirect is not followed (424); a 404 is 424', async () => {
    const moved = await rest('demo.localhost', 'POST', '/catalog/search', { query: 'x' }, agent(`${base}/moved`));
    expect([moved.status, moved.body.code]).toEqual([424, 'profile_unreachable']);
    const missing = await rest('demo.localhost', 'POST', '/catalog/search', { query: 'x' }, agent(`${base}/nothing`));
    expect([missing.status, missing.body.code]).toEqual([424, 'profile_unreachable']);
  });

  it('plain http on loopback passes the URL check in development by default; UCP_ALLOW_INSECURE_PROFILE_URLS=0 and production refuse it, saying what to do', async () => {
    const url = `http://127.0.0.1:${s.port}/.well-known/ucp`;
    // Accepted, then fetched (this block's fetch speaks TLS only, so the fetch itself fails: 424).
    const dev = await rest('demo.localhost', 'POST', '/catalog/search', { query: 'x' }, agent(url));
    expect([dev.status, dev.body.code]).toEqual([424, 'profile_unreachable']);
    expect(dev.body.content).toContain(`http://agent.localhost:${s.port}/.well-known/ucp`);
    const off = await startTestServer({ allowInsecureProfileUrls: false });
    const prod = await startTestServer({ mode: 'production', seedDemo: true });
    try {
      const r = await off.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'x' }, agent(url));
      expect([r.status, r.body.code]).toEqual([400, 'invalid_profile_url']);
      expect(r.body.content).toMatch(/UCP_ALLOW_INSECURE_PROFILE_URLS=0/);
      expect(r.body.content).toContain(`http://agent.localhost:${off.port}/.well-known/ucp`);
      const p = await prod.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'x' }, agent(url));
      expect([p.status, p.body.code]).toEqual([400, 'invalid_profile_url']);
      expect(p.body.content).toMatch(/https URL on a public address/);
      expect(p.body.content).not.toContain('agent.localhost');
    } finally {
      await off.close();
      await prod.close();
    }
  });
});
