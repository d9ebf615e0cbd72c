/**
 * GET /metrics (server/http/metrics.ts) on the real server: after real requests through each
 * transport the series are there with bounded labels, histograms move, 429s are counted, the
 * gauges answer; only the platform's address serves it, and the token rule holds.
 */
import { METHODS, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { has, parseMetrics, valueOf, type Sample } from './support/metrics.ts';
import { demoAgentProfileUrl } from '../server/core/shops/ucp-profile.ts';
import { sql } from 'kysely';
import { forgetCachedShops } from '../server/core/shops/shops.ts';
import { checkConfig, loadConfig } from '../server/config.ts';
import { requestFrom } from './support/from-address.ts';

const SHOP = 'demo.localhost';
const CART = { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] };

async function scrape(s: TestServer, headers: Record<string, string> = {}): Promise<Sample[]> {
  const r = await s.req('localhost', 'GET', '/metrics', undefined, headers);
  expect(r.status, r.text).toBe(200);
  expect(r.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(r.headers['cache-control']).toBe('no-store');
  return parseMetrics(r.text);
}

describe('metrics in development (no token: open)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s?.close());

  it('every transport is counted and timed under its operation, never a raw path or id', async () => {
    const before = await scrape(s);
    const search = { transport: 'rest', operation: 'POST /api/ucp/catalog/search' };
    expect((await s.req(SHOP, 'POST', '/api/ucp/catalog/search', { query: 'flask' })).status).toBe(200);
    expect((await s.req(SHOP, 'POST', '/api/ucp/catalog/search', { query: 'mug' })).status).toBe(200);
    const cart = await s.req(SHOP, 'POST', '/api/ucp/carts', CART);
    expect(cart.status).toBe(201);
    expect((await s.req(SHOP, 'GET', `/api/ucp/carts/${cart.body.id}`)).status).toBe(200);
    expect((await s.req(SHOP, 'GET', '/api/ucp/no/such/thing-12345')).status).toBe(404);
    expect((await s.req(SHOP, 'GET', '/.well-known/ucp')).status).toBe(200);
    const meta = { 'ucp-agent': { profile: demoAgentProfileUrl(s.port) } };
    const mcp = (body: unknown) => s.req(SHOP, 'POST', '/mcp', body, { accept: 'application/json' });
    expect((await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta, catalog: { query: 'flask' } } } })).status).toBe(200);
    expect((await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(200);
    expect((await mcp({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'no_such_tool_98765', arguments: { meta } } })).status).toBe(200);
    expect((await s.req(SHOP, 'POST', '/graphql/3.0', { query: '{ apiVersion }' })).status).toBe(200);
    expect((await s.req('localhost', 'GET', '/merchants/shop_demo/3.0/products/prod_engraved_flask')).status).toBe(401);
    const token = await s.req('localhost', 'POST', '/oauth2/access_token', 'grant_type=client_credentials&client_id=nobody&client_secret=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(token.status).toBeGreaterThanOrEqual(400);
    expect((await s.req('localhost', 'GET', '/.well-known/oauth-authorization-server')).status).toBe(200);

    const after = await scrape(s);
    const requests = (labels: Record<string, string>) => valueOf(after, 'ucp_requests_total', labels) - valueOf(before, 'ucp_requests_total', labels);
    expect(requests({ ...search, status: '200' })).toBe(2);
    expect(requests({ transport: 'rest', operation: 'POST /api/ucp/carts', status: '201' })).toBe(1);
    expect(requests({ transport: 'rest', operation: 'GET /api/ucp/carts/:id', status: '200' })).toBe(1);
    expect(requests({ transport: 'rest', operation: 'GET /.well-known/ucp', status: '200' })).toBe(1);
    expect(requests({ transport: 'mcp', operation: 'tools/call search_catalog', status: '200' })).toBe(1);
    expect(requests({ transport: 'mcp', operation: 'tools/list', status: '200' })).toBe(1);
    expect(requests({ transport: 'mcp', operation: 'tools/call unknown', status: '200' })).toBe(1);
    expect(requests({ transport: 'graphql', operation: 'POST /graphql/:version', status: '200' })).toBe(1);
    expect(requests({ transport: 'merchant', status: '401' })).toBe(1);
    expect(requests({ transport: 'oauth', operation: 'POST /oauth2/access_token', status: String(token.status) })).toBe(1);
    expect(requests({ transport: 'oauth', operation: 'GET /.well-known/oauth-authorization-server', status: '200' })).toBe(1);
    expect(requests({ transport: 'rest', status: '404' })).toBe(1);
    // The merchant route is its template; the raw path and ids never become labels.
    const merchant = after.find((x) => x.name === 'ucp_requests_total' && x.labels.transport === 'merchant')!;
    expect(merchant.labels.operation).toMatch(/^GET \/merchants\/:merchantId\//);
    const text = JSON.stringify(after.map((x) => x.labels));
    for (const raw of ['12345', '98765', cart.body.id, 'prod_engraved_flask', 'shop_demo']) expect(text).not.toContain(raw);

    // The histogram moved by the same count, and its buckets add up to it.
    const count = (m: Sample[]) => valueOf(m, 'ucp_request_duration_seconds_count', search);
    expect(count(after) - count(before)).toBe(2);
    expect(valueOf(after, 'ucp_request_duration_seconds_bucket', { ...search, le: '+Inf' })).toBe(count(after));
    expect(valueOf(after, 'ucp_request_duration_seconds_sum', search)).toBeGreaterThan(valueOf(before, 'ucp_request_duration_seconds_sum', search));
    // Probes and the scrape itself are not traffic.
    await s.req('localhost', 'GET', '/livez');
    expect(has(await scrape(s), 'ucp_requests_total', { operation: 'GET /livez' })).toBe(false);
  });

  it('429s are counted per transport (the GraphQL budget and a sandbox fault on REST)', async () => {
    const before = await scrape(s);
    // 60 tokens, 10 a second (GRAPHQL_RATE_LIMIT): bursts until some are refused.
    let refused = 0;
    for (let burst = 0; burst < 10 && refused === 0; burst++) {
      const replies = await Promise.all(Array.from({ length: 80 }, () => s.req(SHOP, 'POST', '/graphql/3.0', { query: '{ apiVersion }' })));
      refused += replies.filter((r) => r.status === 429).length;
    }
    expect(refused).toBeGreaterThan(0);
    expect((await s.req(SHOP, 'POST', '/api/ucp/catalog/search', { query: 'x' }, { 'ucp-sandbox-fault': '429' })).status).toBe(429);
    const after = await scrape(s);
    const limited = (t: string) => valueOf(after, 'ucp_rate_limited_total', { transport: t }) - valueOf(before, 'ucp_rate_limited_total', { transport: t });
    expect(limited('graphql')).toBe(refused);
    expect(limited('rest')).toBe(1);
    expect(has(after, 'ucp_rate_limited_total', { transport: 'mcp' })).toBe(true); // present at 0 for alerts
  });

  it('default process metrics and the gauges: pool, group inserts, search indexes, webhooks', async () => {
    await Promise.all(Array.from({ length: 20 }, () => s.req(SHOP, 'POST', '/api/ucp/carts', CART)));
    const m = await scrape(s);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) expect(has(m, name), name).toBe(true);
    for (const name of ['ucp_db_pool_in_use', 'ucp_db_pool_waiting', 'ucp_webhook_deliveries_pending', 'ucp_search_index_evictions_total']) {
      expect(has(m, name), name).toBe(true);
      expect(valueOf(m, name)).toBeGreaterThanOrEqual(0);
    }
    // 21+ cart rows went through the group insert; the histogram counts statements, the sum rows.
    expect(valueOf(m, 'ucp_db_group_insert_rows_sum', { table: 'carts' })).toBeGreaterThanOrEqual(21);
    expect(valueOf(m, 'ucp_db_group_insert_rows_count', { table: 'carts' })).toBeGreaterThanOrEqual(1);
    // The demo shop was searched: its index is in memory and has a size.
    expect(valueOf(m, 'ucp_search_index_shops')).toBeGreaterThanOrEqual(1);
    expect(valueOf(m, 'ucp_search_index_bytes')).toBeGreaterThan(1000);
    expect(has(m, 'ucp_webhook_attempts_total', { result: 'failed' })).toBe(true);
    expect(has(m, 'ucp_db_group_commit_size_count')).toBe(true);
  });

  it('a sweep of every method Node parses adds a bounded number of series: anything but the standard methods is `other`', async () => {
    const operations = (m: Sample[]) => new Set(m.filter((x) => x.name === 'ucp_requests_total').map((x) => `${x.labels.transport} ${x.labels.operation} ${x.labels.status}`));
    const before = operations(await scrape(s));
    const send = (method: string, path: string) =>
      new Promise<number>((resolve, reject) => {
        const r = request({ port: s.port, host: '127.0.0.1', method, path, headers: { host: `${SHOP}:${s.port}`, connection: 'close' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        r.on('error', reject);
        r.end();
      });
    // CONNECT is not a request to this server (Node's 'connect' event): the socket just closes.
    const swept = METHODS.filter((m) => m !== 'CONNECT');
    expect(swept.length).toBeGreaterThan(30);
    for (const method of swept) for (const path of ['/some/page-1', '/api/ucp/carts/cart_nope']) expect(await send(method, path), `${method} ${path}`).toBeLessThan(500);
    const added = [...operations(await scrape(s))].filter((o) => !before.has(o));
    const methods = new Set(added.map((o) => o.split(' ')[1]));
    for (const m of methods) expect(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'other', 'unmatched'], m).toContain(m);
    expect(methods.has('other')).toBe(true);
    // 2 paths × (7 methods + other) × a few statuses at most, not 2 × 33.
    expect(added.length).toBeLessThanOrEqual(2 * 8 * 2);
  });

  it('only the platform address serves /metrics: a shop\'s /metrics is a 404 that shows nothing', async () => {
    for (const host of [SHOP, 'other.localhost']) {
      const r = await s.req(host, 'GET', '/metrics');
      expect(r.status, host).toBe(404);
      expect(r.text).not.toContain('ucp_requests_total');
      expect(r.text).not.toContain('process_cpu');
    }
  });
});

describe('refusals inside an MCP batch', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ transportRateLimits: true });
    // Two anonymous reads, then (almost) nothing more for a long while.
    const limits = JSON.stringify({ anonymous: { read: { burst: 2, per_second: 0.001 } } });
    await sql`update shops set settings = jsonb_set(settings::jsonb, '{rate_limits}', ${limits}::jsonb) where domain = ${SHOP}`.execute(s.db);
    forgetCachedShops(s.db);
  });
  afterAll(() => s?.close());

  it('each refused call is counted, though the batch itself answers 200', async () => {
    const before = await scrape(s);
    const meta = { 'ucp-agent': { profile: demoAgentProfileUrl(s.port) } };
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta, catalog: { query: 'flask' } } } });
    const r = await s.req(SHOP, 'POST', '/mcp', [1, 2, 3, 4, 5].map(call), { accept: 'application/json' });
    const refused = (r.body as Array<{ error?: { data?: { code?: string } } }>).filter((m) => m.error?.data?.code === 'rate_limited').length;
    expect(refused).toBe(3);
    const after = await scrape(s);
    const limited = valueOf(after, 'ucp_rate_limited_total', { transport: 'mcp' }) - valueOf(before, 'ucp_rate_limited_total', { transport: 'mcp' });
    expect({ status: r.status, limited }).toEqual({ status: r.status, limited: 3 });
    // A lone refused call answers 429 and is counted once, not twice (answer and call).
    const lone = await s.req(SHOP, 'POST', '/mcp', call(6), { accept: 'application/json' });
    expect(lone.status).toBe(429);
    const last = await scrape(s);
    expect(valueOf(last, 'ucp_rate_limited_total', { transport: 'mcp' }) - valueOf(after, 'ucp_rate_limited_total', { transport: 'mcp' })).toBe(1);
  });
});

describe('the token rule', () => {
  it('production without METRICS_TOKEN: 404, as any path that does not exist', async () => {
    const s = await startTestServer({ mode: 'production' });
    try {
      const r = await s.req('localhost', 'GET', '/metrics', undefined, { authorization: 'Bearer anything' });
      expect(r.status).toBe(404);
      expect(r.text).not.toContain('ucp_');
    } finally {
      await s.close();
    }
  });

  it('production with METRICS_TOKEN: 401 + WWW-Authenticate without or with a wrong token, 200 with it', async () => {
    const token = 'm3trics-t0ken-for-tests-0123456789abcdef';
    const s = await startTestServer({ mode: 'production', metricsToken: token, seedDemo: true });
    try {
      const none = await s.req('localhost', 'GET', '/metrics');
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(none.text).not.toContain('ucp_');
      for (const authorization of [`Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, `Basic ${Buffer.from(`u:${token}`).toString('base64')}`, token]) {
        const wrong = await s.req('localhost', 'GET', '/metrics', undefined, { authorization });
        expect(wrong.status, authorization).toBe(401);
        expect(wrong.headers['www-authenticate']).toMatch(/^Bearer realm="metrics"/);
        expect(wrong.text).not.toContain('ucp_');
      }
      const m = await scrape(s, { authorization: `Bearer ${token}` });
      expect(has(m, 'ucp_requests_total')).toBe(true); // the 401s above were counted
      // A shop cannot be used to reach it, token or not.
      expect((await s.req(SHOP, 'GET', '/metrics', undefined, { authorization: `Bearer ${token}` })).status).toBe(404);
    } finally {
      await s.close();
    }
  });

  it('production refuses a METRICS_TOKEN shorter than 32 characters, by name; development takes any (issue 39 point 8)', async () => {
    await expect(startTestServer({ mode: 'production', metricsToken: 'x'.repeat(31) })).rejects.toThrow(/^METRICS_TOKEN must be at least 32 characters in production \(got 31\).*openssl rand -hex 32/);
    expect(() => checkConfig(loadConfig({ NODE_ENV: 'production', AUTH_URL: 'https://a.example', KEY_ENCRYPTION_SECRET: 'k'.repeat(44), METRICS_TOKEN: 'm'.repeat(32) }))).not.toThrow();
    expect(() => checkConfig(loadConfig({ METRICS_TOKEN: 'short' }))).not.toThrow();
  });

  it('wrong tokens spend a failure budget per address: after 20, 429 + Retry-After even for the right token; another address is unaffected (issue 39 point 8)', async () => {
    const token = 'm'.repeat(40);
    const s = await startTestServer({ mode: 'production', metricsToken: token });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 25; i++) statuses.push((await s.req('localhost', 'GET', '/metrics', undefined, { authorization: `Bearer guess-${i}` })).status);
      expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
      expect(statuses.slice(20)).toEqual(Array(5).fill(429));
      const right = await s.req('localhost', 'GET', '/metrics', undefined, { authorization: `Bearer ${token}` });
      expect(right.status).toBe(429);
      expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
      expect(right.text).not.toContain('ucp_');
      // Another address (Prometheus) is not refused for those guesses; a missing token is a
      // misconfigured scraper, not a guess: it spends nothing.
      const from = (headers: Record<string, string> = {}) => requestFrom({ port: s.port, from: '127.0.3.1', host: 'localhost', method: 'GET', path: '/metrics', headers });
      for (let i = 0; i < 25; i++) expect((await from()).status).toBe(401);
      expect((await from({ authorization: `Bearer ${token}` })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
