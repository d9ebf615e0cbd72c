/**
 * `ucp-storefront/client` (src/client/ucp-client.ts) against the real server, over REST and over MCP
 * (the official SDK underneath): the same calls give the same bodies, UCP-Agent and idempotency keys
 * are sent, UCP errors come back as values on both transports, and 429/503 are retried as
 * `Retry-After` says (the retry rules themselves on a scripted fetch standing in for the network).
 */
import './support/localhost-dns.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUcpClient, retryAfterMs, type UcpClient } from '../src/client/index.ts';
import { retryingFetch } from '../src/client/retry.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';

const PROFILE = 'https://platform.example/.well-known/ucp';
serveProfiles({ [PROFILE]: platformProfile() });
const VARIANT = 'var_tee_m_navy';

let s: TestServer;
let business: string;
beforeAll(async () => {
  s = await startTestServer();
  business = `http://demo.localhost:${s.port}`;
});
afterAll(() => s.close());

interface Sent {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}
/** The global fetch, recording what the client sent. */
function recording() {
  const sent: Sent[] = [];
  const f: typeof fetch = async (input, init) => {
    sent.push({ method: init?.method ?? 'GET', url: String(input), headers: new Headers(init?.headers), body: typeof init?.body === 'string' ? init.body : '' });
    return fetch(input, init);
  };
  return { sent, fetch: f };
}

const clients: UcpClient[] = [];
const make = (transport: 'rest' | 'mcp', f?: typeof fetch, extra: Partial<Parameters<typeof createUcpClient>[0]> = {}) => {
  const c = createUcpClient({ business, profile: PROFILE, transport, ...(f ? { fetch: f } : {}), ...extra });
  clients.push(c);
  return c;
};
afterAll(async () => {
  for (const c of clients) await c.close();
});

describe.each(['rest', 'mcp'] as const)('over %s', (transport) => {
  it('searches, looks up, gets a product and runs a cart from create to cancel', async () => {
    const shop = make(transport);
    const search = await shop.searchCatalog({ query: 'tee' });
    if (!search.ok) throw new Error(JSON.stringify(search.messages));
    const rest = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' });
    expect(search.data).toEqual(rest.body);

    const lookup = await shop.lookupCatalog({ ids: [VARIANT] });
    expect(lookup.ok && lookup.data.products[0].variants.some((v) => v.id === VARIANT)).toBe(true);
    const product = await shop.getProduct({ id: search.data.products[0].id });
    expect(product.ok && product.data.product.id).toBe(search.data.products[0].id);

    const created = await shop.createCart({ line_items: [{ item: { id: VARIANT }, quantity: 1 }] });
    if (!created.ok) throw new Error(JSON.stringify(created.messages));
    expect(created.data.line_items[0].item.id).toBe(VARIANT);
    const got = await shop.getCart(created.data.id);
    expect(got.ok && got.data.id).toBe(created.data.id);
    const updated = await shop.updateCart(created.data.id, { line_items: [{ item: { id: VARIANT }, quantity: 3 }] });
    expect(updated.ok && updated.data.line_items[0].quantity).toBe(3);
    // Cancel answers the cart as it stood and empties it (docs/carts.md).
    const cancelled = await shop.cancelCart(created.data.id);
    expect(cancelled.ok && cancelled.data.line_items[0].quantity).toBe(3);
    const after = await shop.getCart(created.data.id);
    expect(after.ok && after.data.line_items).toEqual([]);
  });

  it('returns UCP errors as values: a business outcome and an invalid request', async () => {
    const shop = make(transport);
    const miss = await shop.getProduct({ id: 'prod_nope' });
    expect(miss.ok).toBe(false);
    if (!miss.ok) expect(miss.messages[0].code).toBe('not_found');

    const bad = await shop.createCart({ line_items: [{ item: { id: VARIANT }, quantity: 0 }] });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.status).toBe(400);
      expect(bad.messages.some((m) => m.path?.includes('line_items[0].quantity'))).toBe(true);
    }
  });

  it('repeats a create with the same idempotency key: one cart', async () => {
    const shop = make(transport);
    const key = crypto.randomUUID();
    const a = await shop.createCart({ line_items: [{ item: { id: VARIANT }, quantity: 2 }] }, { idempotencyKey: key });
    const b = await shop.createCart({ line_items: [{ item: { id: VARIANT }, quantity: 2 }] }, { idempotencyKey: key });
    expect(a.ok && b.ok).toBe(true);
    if (a.ok && b.ok) expect(b.data.id).toBe(a.data.id);
    const c = await shop.createCart({ line_items: [{ item: { id: VARIANT }, quantity: 2 }] });
    expect(c.ok && a.ok && c.data.id !== a.data.id).toBe(true);
  });

  it('retries a 503 with Retry-After and gets the answer', async () => {
    let injected = 0;
    const flaky: typeof fetch = async (input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      if (injected === 0 && (body.includes('"tools/call"') || String(input).endsWith('/catalog/search'))) {
        injected++;
        const rpc = body ? JSON.parse(body) : {};
        const payload = transport === 'mcp'
          ? { jsonrpc: '2.0', id: rpc.id, error: { code: -32000, message: 'unavailable', data: { code: 'service_unavailable', content: 'Try again.' } } }
          : { code: 'service_unavailable', content: 'Try again.' };
        return new Response(JSON.stringify(payload), { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '1' } });
      }
      return fetch(input, init);
    };
    const shop = make(transport, flaky);
    const t0 = Date.now();
    const r = await shop.searchCatalog({ query: 'flask' });
    expect(injected).toBe(1);
    expect(r.ok).toBe(true);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
  });

  it('with retries off, a 503 comes back as a typed failure with its status', async () => {
    const down: typeof fetch = async (input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      if (body.includes('"tools/call"') || String(input).endsWith('/catalog/search')) {
        const rpc = body ? JSON.parse(body) : {};
        const payload = transport === 'mcp'
          ? { jsonrpc: '2.0', id: rpc.id, error: { code: -32000, message: 'unavailable', data: { code: 'service_unavailable', content: 'Try again.' } } }
          : { code: 'service_unavailable', content: 'Try again.' };
        return new Response(JSON.stringify(payload), { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '1' } });
      }
      return fetch(input, init);
    };
    const r = await make(transport, down, { retry: false }).searchCatalog({ query: 'flask' });
    expect(r).toMatchObject({ ok: false, status: 503, messages: [{ code: 'service_unavailable', content: 'Try again.' }] });
  });
});

describe('what goes on the wire', () => {
  it('REST: UCP-Agent on every call, a fresh Idempotency-Key on every write (update included), none on reads or when told not to', async () => {
    const rec = recording();
    const shop = make('rest', rec.fetch);
    const cart = await shop.createCart({ line_items: [{ item: { id: VARIANT }, quantity: 1 }] });
    if (!cart.ok) throw new Error('create failed');
    await shop.getCart(cart.data.id);
    expect((await shop.updateCart(cart.data.id, { line_items: [{ item: { id: VARIANT }, quantity: 2 }] })).ok).toBe(true);
    expect((await shop.updateCart(cart.data.id, { line_items: [{ item: { id: VARIANT }, quantity: 3 }] }, { idempotencyKey: false })).ok).toBe(true);
    await shop.cancelCart(cart.data.id);
    const calls = rec.sent.filter((x) => x.url.includes('/api/ucp/'));
    expect(calls.map((c) => `${c.method} ${new URL(c.url).pathname}`)).toEqual([
      'POST /api/ucp/carts',
      `GET /api/ucp/carts/${cart.data.id}`,
      `PUT /api/ucp/carts/${cart.data.id}`,
      `PUT /api/ucp/carts/${cart.data.id}`,
      `POST /api/ucp/carts/${cart.data.id}/cancel`,
    ]);
    for (const c of calls) expect(c.headers.get('ucp-agent')).toBe(`profile="${PROFILE}"`);
    const [create, get, update, unkeyed, cancel] = calls.map((c) => c.headers.get('idempotency-key'));
    for (const k of [create, update, cancel]) expect(k).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set([create, update, cancel]).size).toBe(3);
    expect(get).toBeNull();
    expect(unkeyed).toBeNull();
    // Endpoints came from the shop's discovery profile.
    expect(rec.sent[0].url).toBe(`${business}/.well-known/ucp`);
  });

  it('MCP: the profile and the idempotency key travel in arguments.meta', async () => {
    const rec = recording();
    const shop = make('mcp', rec.fetch);
    const cart = await shop.createCart({ line_items: [{ item: { id: VARIANT }, quantity: 1 }] });
    if (!cart.ok) throw new Error(JSON.stringify(cart.messages));
    await shop.updateCart(cart.data.id, { line_items: [{ item: { id: VARIANT }, quantity: 2 }] });
    await shop.cancelCart(cart.data.id);
    const calls = rec.sent.map((c) => (c.body ? JSON.parse(c.body) : null)).filter((b) => b?.method === 'tools/call');
    expect(calls.map((c) => c.params.name)).toEqual(['create_cart', 'update_cart', 'cancel_cart']);
    for (const c of calls) {
      expect(c.params.arguments.meta['ucp-agent']).toEqual({ profile: PROFILE });
      expect(c.params.arguments.meta['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(calls[1].params.arguments.id).toBe(cart.data.id);
    expect(calls[2].params.arguments.id).toBe(cart.data.id);
    // Negotiation `auto` (v2 SDK): server/discover, then 2026-07-28 with no initialize (docs/client.md).
    const posts = rec.sent.filter((c) => c.method === 'POST' && c.body).map((c) => ({ method: JSON.parse(c.body).method, version: c.headers.get('mcp-protocol-version') }));
    expect(posts[0]).toEqual({ method: 'server/discover', version: '2026-07-28' });
    expect(posts.map((p) => p.method)).not.toContain('initialize');
    expect(new Set(posts.map((p) => p.version))).toEqual(new Set(['2026-07-28']));
  });

  it('a shop that cannot be reached is a network_error value, not an exception', async () => {
    const shop = createUcpClient({ business: 'http://127.0.0.1:9', profile: PROFILE, retry: false });
    const r = await shop.searchCatalog({ query: 'x' });
    expect(r).toMatchObject({ ok: false, status: 0, messages: [{ code: 'network_error' }] });
  });

  it('refuses bad options at once', () => {
    expect(() => createUcpClient({ business, profile: PROFILE, transport: 'grpc' as never })).toThrow(/rest' or 'mcp/);
    expect(() => createUcpClient({ business, profile: '' })).toThrow(/profile/);
  });
});

describe('retry rules', () => {
  const scripted = (answers: Array<[number, Record<string, string>?]>) => {
    const calls: number[] = [];
    const f: typeof fetch = async () => {
      calls.push(Date.now());
      const [status, headers] = answers[Math.min(calls.length - 1, answers.length - 1)];
      return new Response('{}', { status, headers });
    };
    return { calls, f };
  };

  it('waits Retry-After seconds, or an HTTP date, and retries 429 and 503 only', async () => {
    const a = scripted([[429, { 'retry-after': '0' }], [503, { 'retry-after': new Date(Date.now() - 1000).toUTCString() }], [200]]);
    expect((await retryingFetch(a.f)('http://x/', { method: 'POST', body: '{}' })).status).toBe(200);
    expect(a.calls).toHaveLength(3);
    const b = scripted([[500], [200]]);
    expect((await retryingFetch(b.f)('http://x/')).status).toBe(500);
    expect(b.calls).toHaveLength(1);
  });

  it('backs off without Retry-After, and gives up after `retries`', async () => {
    const a = scripted([[503]]);
    const res = await retryingFetch(a.f, { retries: 2, baseDelayMs: 20 })('http://x/');
    expect(res.status).toBe(503);
    expect(a.calls).toHaveLength(3);
    expect(a.calls[2] - a.calls[1]).toBeGreaterThanOrEqual(35); // 20 ms, then 40 ms
  });

  it('does not wait longer than maxDelayMs: the 429 comes back at once', async () => {
    const a = scripted([[429, { 'retry-after': '120' }], [200]]);
    const res = await retryingFetch(a.f, { maxDelayMs: 5000 })('http://x/');
    expect(res.status).toBe(429);
    expect(a.calls).toHaveLength(1);
  });

  it('reads Retry-After as RFC 9110 says', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});
