/**
 * Per-client budgets on the UCP transports (server/http/transport-limits.ts, docs/security.md):
 * an anonymous address that floods cart writes meets 429 + Retry-After (REST: the flat UCP error
 * body; MCP: -32000 with retry_after), while other addresses, keyed callers and reads carry on.
 */
import './support/localhost-dns.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from './support/server.ts';
import { requestFrom } from './support/from-address.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';
import { DEFAULT_TRANSPORT_LIMITS, transportLimits } from '../server/http/transport-limits.ts';
import { issueChannelKey } from '../server/core/access/channel-keys.ts';
import { issueStorefrontToken } from '../server/core/access/storefront-tokens.ts';
import { findShopByDomain, forgetCachedShops } from '../server/core/shops/shops.ts';

const PROFILE = 'https://platform.example/.well-known/ucp';
serveProfiles({ [PROFILE]: platformProfile() });

let s: TestServer;
/**
 * The demo shop's anonymous write budget, tightened for this file: with the default refill (10/s) a
 * slow machine or database refills the bucket while a flood is still being sent, and whether the
 * flood meets a 429 would depend on timing. Other budgets keep their defaults.
 */
const WRITE = { capacity: 20, refillPerSecond: 0.2 };
beforeAll(async () => {
  s = await startTestServer({ transportRateLimits: true });
  const limits = JSON.stringify({ anonymous: { write: { burst: WRITE.capacity, per_second: WRITE.refillPerSecond } } });
  await sql`update shops set settings = jsonb_set(settings::jsonb, '{rate_limits}', ${limits}::jsonb) where domain = 'demo.localhost'`.execute(s.db);
  forgetCachedShops(s.db);
});
afterAll(() => s?.close());

const LINE = { item: { id: 'var_tee_s_white' }, quantity: 1 };
const createFrom = (from: string, headers: Record<string, string> = {}) =>
  requestFrom({ port: s.port, from, host: 'demo.localhost', method: 'POST', path: '/api/ucp/carts', body: { line_items: [LINE] }, headers });

describe('anonymous budgets are per address', () => {
  it('a flood of cart writes from one address meets 429 with Retry-After; another address and reads are untouched', async () => {
    const statuses: number[] = [];
    // Well past the burst: at most burst + refill during the loop succeed.
    const attempts = WRITE.capacity + 40;
    const results = await Promise.all(Array.from({ length: attempts }, () => createFrom('127.0.6.1')));
    for (const r of results) statuses.push(r.status);
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(statuses.filter((x) => x === 201).length).toBeLessThan(attempts);
    const one = limited[0];
    expect(Number(one.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(one.body).toMatchObject({ code: 'rate_limited' });
    expect(one.body.content).toMatch(/Too many cart writes from this address.*Retry after \d+ second/);

    expect((await createFrom('127.0.6.2')).status).toBe(201); // another address: its own budget
    const read = await requestFrom({ port: s.port, from: '127.0.6.1', host: 'demo.localhost', method: 'POST', path: '/api/ucp/catalog/search', body: { query: 'tee' } });
    expect(read.status).toBe(200); // reads are a separate budget
  });

  it('MCP: the same budget, refused as -32000 with retry_after', async () => {
    const call = () =>
      requestFrom({
        port: s.port,
        from: '127.0.7.1',
        host: 'demo.localhost',
        method: 'POST',
        path: '/mcp',
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_cart', arguments: { meta: { 'ucp-agent': { profile: PROFILE }, 'idempotency-key': crypto.randomUUID() }, cart: { line_items: [LINE] } } } },
      });
    let refused: any;
    for (let i = 0; i < WRITE.capacity + 40 && !refused; i++) {
      const r = await call();
      if (r.body?.error) refused = r;
    }
    expect(refused, 'no refusal').toBeDefined();
    expect(refused.body.error.code).toBe(-32000);
    expect(refused.body.error.data).toMatchObject({ code: 'rate_limited', retry_after: expect.any(Number) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('the storefront token (public, in every page) spends its caller\'s address budget', async () => {
    const token = issueStorefrontToken('shop_demo');
    const results = await Promise.all(Array.from({ length: WRITE.capacity + 40 }, () => createFrom('127.0.11.1', { authorization: `Bearer ${token}` })));
    expect(results.some((r) => r.status === 429)).toBe(true);
    expect((await createFrom('127.0.11.2', { authorization: `Bearer ${token}` })).status).toBe(201);
  });

  it('failed credentials spend the address budget: guessing API keys or storefront tokens meets 429, another address does not', async () => {
    const guess = (from: string, authorization: string) => createFrom(from, { authorization, 'ucp-agent': `profile="${PROFILE}"` });
    const keys = await Promise.all(Array.from({ length: WRITE.capacity + 20 }, (_, i) => guess('127.0.12.1', `Bearer ucp_sk_guess${i}`)));
    expect(keys.filter((r) => r.status === 401).length).toBeGreaterThan(0);
    const limited = keys.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0].body).toMatchObject({ code: 'rate_limited' });
    const tokens = await Promise.all(Array.from({ length: WRITE.capacity + 20 }, () => guess('127.0.12.2', 'Bearer sft_forged.token')));
    expect(tokens.some((r) => r.status === 429)).toBe(true);
    // Another address still gets the plain answer: its own budget.
    expect((await guess('127.0.12.3', 'Bearer ucp_sk_other')).status).toBe(401);
  });

  it('a keyed caller spends its key\'s budget, not its address\'s', async () => {
    const { key } = await issueChannelKey(s.db, 'shop_demo', { profileUrl: PROFILE });
    // This address has used up its anonymous writes...
    await Promise.all(Array.from({ length: WRITE.capacity + 20 }, () => createFrom('127.0.8.1')));
    expect((await createFrom('127.0.8.1')).status).toBe(429);
    // ...yet with the key it is another client.
    const keyed = await createFrom('127.0.8.1', { authorization: `Bearer ${key}`, 'ucp-agent': `profile="${PROFILE}"` });
    expect(keyed.status).toBe(201);
  });
});

describe('the switch', () => {
  it('UCP_RATE_LIMITS takes exactly on/1/true and off/0/false (any case); anything else refuses to start (docs/security.md)', async () => {
    const { checkConfig, loadConfig } = await import('../server/config.ts');
    expect(loadConfig({}).transportRateLimits).toBe(true);
    expect(loadConfig({ UCP_RATE_LIMITS: '' }).transportRateLimits).toBe(true);
    for (const v of ['off', '0', 'false', 'OFF', ' Off ']) expect(loadConfig({ UCP_RATE_LIMITS: v }).transportRateLimits, v).toBe(false);
    for (const v of ['on', '1', 'true', 'TRUE']) expect(loadConfig({ UCP_RATE_LIMITS: v }).transportRateLimits, v).toBe(true);
    for (const v of ['no', 'disabled', '00', 'of']) {
      expect(() => checkConfig(loadConfig({ UCP_RATE_LIMITS: v })), v).toThrow(new RegExp(`UCP_RATE_LIMITS must be one of 1, true, on \\(on\\) or 0, false, off \\(off\\); got "${v}"`));
    }
    // Every on/off setting reads the same way.
    for (const name of ['TRUST_PROXY', 'ACCESS_LOG', 'SEED_DEMO', 'UCP_DURABLE_COMMITS', 'UCP_ALLOW_INSECURE_PROFILE_URLS']) {
      expect(() => checkConfig(loadConfig({ [name]: 'yes' })), name).toThrow(new RegExp(`${name} must be one of`));
    }
    expect(loadConfig({ TRUST_PROXY: 'on' }).trustProxy).toBe(true);
    expect(() => checkConfig(loadConfig({ PORT: 'eighty' }))).toThrow(/PORT must be a port number/);
    expect(() => checkConfig(loadConfig({ PORT: '' }))).not.toThrow();
    expect(loadConfig({ NODE_ENV: 'production', UCP_ALLOW_INSECURE_PROFILE_URLS: '1' }).allowInsecureProfileUrls).toBe(false);
  });

  it('off turns every transport budget off, and only those: the GraphQL and failed-token budgets stay on', async () => {
    const off = await startTestServer({ transportRateLimits: false });
    try {
      const all = await Promise.all(Array.from({ length: DEFAULT_TRANSPORT_LIMITS.anonymous.write!.capacity + 10 }, () => requestFrom({ port: off.port, from: '127.0.9.1', host: 'demo.localhost', method: 'POST', path: '/api/ucp/carts', body: { line_items: [LINE] } })));
      expect(all.every((r) => r.status === 201)).toBe(true);
      // All at once: at 10 refills a second, one by one on a loaded machine would never run dry.
      const graphql = await Promise.all(Array.from({ length: 100 }, () => requestFrom({ port: off.port, from: '127.0.9.2', host: 'demo.localhost', method: 'POST', path: '/graphql/3.0', body: { query: '{ apiVersion }' } })));
      expect(graphql.map((r) => r.status)).toContain(429);
      const token = [];
      for (let i = 0; i < 21; i++) {
        const r = await requestFrom({ port: off.port, from: '127.0.9.3', host: 'localhost', method: 'POST', path: '/oauth2/access_token', body: 'grant_type=refresh_token&refresh_token=guess&client_id=demo-app&client_secret=demo-secret', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
        token.push(r.body?.error);
      }
      expect(token.at(-1)).toBe('temporarily_unavailable');
    } finally {
      await off.close();
    }
  });
});

describe('per-shop settings', () => {
  it('a shop sets its own budgets (settings.rate_limits), or turns one off', async () => {
    const shop = (await findShopByDomain(s.db, 'strict.localhost'))!;
    const own = { ...shop, settings: { ...shop.settings, rate_limits: { anonymous: { read: { burst: 3, per_second: 0.01 }, write: false as const } } } };
    const limits = transportLimits(own);
    expect(limits.anonymous).toEqual({ read: { capacity: 3, refillPerSecond: 0.01 }, write: null });
    expect(limits.keyed).toEqual(DEFAULT_TRANSPORT_LIMITS.keyed);
    // Live: the shop's row changes, the server follows.
    await s.db.updateTable('shops').set({ settings: JSON.stringify(own.settings) as never }).where('id', '=', shop.id).execute();
    forgetCachedShops(s.db);
    const search = () => requestFrom({ port: s.port, from: '127.0.10.1', host: 'strict.localhost', method: 'POST', path: '/api/ucp/catalog/search', body: { query: 'a' } });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await search()).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});
