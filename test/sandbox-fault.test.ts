/**
 * UCP-Sandbox-Fault (docs/access.md "Sandbox faults"): in development a REST or MCP request answers
 * as under that fault, nothing runs, and a retry with the same Idempotency-Key then succeeds once;
 * in production the header is ignored and the response says so.
 */
import './support/localhost-dns.mjs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from './support/server.ts';

let dev: TestServer;
let prod: TestServer;
beforeAll(async () => {
  [dev, prod] = await Promise.all([startTestServer(), startTestServer({ mode: 'production', seedDemo: true })]);
});
afterAll(async () => {
  await dev.close();
  await prod.close();
});

const CART = { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] };
const fault = (f: string) => ({ 'ucp-sandbox-fault': f });
const mcpCall = (s: TestServer, f: string) =>
  s.req('demo.localhost', 'POST', '/mcp', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: { 'ucp-agent': { profile: `http://agent.localhost:${s.port}/.well-known/ucp` } }, catalog: { query: 'tee' } } } }, { accept: 'application/json', ...fault(f) });

describe('development', () => {
  it.each([
    ['429', 429, 'rate_limited'],
    ['503', 503, 'service_unavailable'],
  ])('REST %s → the UCP envelope with Retry-After, and nothing was written', async (f, status, code) => {
    const key = randomUUID();
    const r = await dev.req('demo.localhost', 'POST', '/api/ucp/carts', CART, { 'idempotency-key': key, ...fault(f) });
    expect(r.status).toBe(status);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.body).toMatchObject({ code, content: expect.stringContaining('Sandbox fault') });
    const retry = await dev.req('demo.localhost', 'POST', '/api/ucp/carts', CART, { 'idempotency-key': key });
    expect(retry.status).toBe(201);
    const again = await dev.req('demo.localhost', 'POST', '/api/ucp/carts', CART, { 'idempotency-key': key });
    expect(again.body.id).toBe(retry.body.id);
  });

  it('MCP 503 → -32000 with data.retry_after and the HTTP status; the SDK client sees the status', async () => {
    const r = await mcpCall(dev, '503');
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 5, error: { code: -32000, data: { code: 'service_unavailable', retry_after: 1 } } });
    // Every request of this transport carries the fault: the SDK client reports HTTP 429.
    const faulty = new Client({ name: 'sandbox', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`http://demo.localhost:${dev.port}/mcp`), { requestInit: { headers: fault('429') } });
    const e = await faulty.connect(transport).then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(SdkHttpError);
    expect((e as SdkHttpError).status).toBe(429);
    await faulty.close().catch(() => {});
  });

  it('timeout holds the response past the client\'s timeout', async () => {
    const started = Date.now();
    await expect(
      fetch(`http://demo.localhost:${dev.port}/api/ucp/catalog/search`, { method: 'POST', headers: { 'content-type': 'application/json', ...fault('timeout') }, body: JSON.stringify({ query: 'tee' }), signal: AbortSignal.timeout(800) }),
    ).rejects.toThrow(/timeout|aborted/i);
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    // The server is not stuck.
    expect((await dev.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' })).status).toBe(200);
  });

  it('an unknown fault is a 400 naming the allowed ones', async () => {
    const r = await dev.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' }, fault('500'));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_sandbox_fault', content: expect.stringContaining('429, 503, timeout') });
  });
});

describe('production', () => {
  it('ignores the header and says so (REST and MCP)', async () => {
    const r = await prod.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' }, fault('503'));
    expect(r.status).toBe(200);
    expect(r.headers['ucp-sandbox-fault-ignored']).toMatch(/production/);
    const m = await prod.req('demo.localhost', 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json', ...fault('429') });
    expect(m.status).toBe(200);
    expect(m.headers['ucp-sandbox-fault-ignored']).toMatch(/production/);
  });
});
