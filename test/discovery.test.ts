import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startTestServer, type TestServer } from './support/server.ts';
import { discoveryFastPath } from '../server/ucp/discovery.ts';
import { expectUcpValid, PROFILE_ID } from './support/ucp-schemas.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('GET /.well-known/ucp', () => {
  it('publishes a valid business profile with origin-based endpoints (the 2026-04-08 leaf)', async () => {
    // Since issue 37 /.well-known/ucp is the 2026-08-25 profile (test/ucp-versions.test.ts); the
    // 2026-04-08 profile it names in supported_versions is the one served here before, unchanged.
    const r = await s.req('demo.localhost', 'GET', '/.well-known/ucp/2026-04-08');
    expect(r.status).toBe(200);
    expectUcpValid(`${PROFILE_ID}#/$defs/business_profile`, r.body);
    expect(r.body.ucp.version).toBe('2026-04-08');
    const bindings = r.body.ucp.services['dev.ucp.shopping'];
    const origin = `http://demo.localhost:${s.port}`;
    expect(bindings.find((b: any) => b.transport === 'rest').endpoint).toBe(`${origin}/api/ucp`);
    expect(bindings.find((b: any) => b.transport === 'mcp').endpoint).toBe(`${origin}/mcp`);
    const embedded = bindings.find((b: any) => b.transport === 'embedded');
    expect(embedded.schema).toMatch(/embedded\.openrpc\.json$/);
    expect(embedded.endpoint).toBeUndefined();
    for (const b of bindings) {
      expect(b.spec).toMatch(/^https:\/\/ucp\.dev\//);
      expect(b.schema).toMatch(/^https:\/\/ucp\.dev\/2026-04-08\//);
    }
    expect(Object.keys(r.body.ucp.capabilities).sort()).toEqual([
      'dev.ucp.shopping.cart',
      'dev.ucp.shopping.catalog.lookup',
      'dev.ucp.shopping.catalog.search',
      'dev.ucp.shopping.discount',
    ]);
    expect(r.body.ucp.capabilities['dev.ucp.shopping.discount'][0].extends).toEqual(['dev.ucp.shopping.cart']);
    expect(r.body.ucp.payment_handlers).toEqual({});
    expect(r.body.signing_keys).toBeUndefined();
  });

  it('is publicly cacheable with an ETag that revalidates to 304', async () => {
    const r = await s.req('demo.localhost', 'GET', '/.well-known/ucp');
    const cc = String(r.headers['cache-control']);
    expect(cc).toMatch(/\bpublic\b/);
    expect(Number(/max-age=(\d+)/.exec(cc)?.[1])).toBeGreaterThanOrEqual(60);
    expect(cc).not.toMatch(/private|no-store|no-cache/);
    const etag = String(r.headers.etag);
    expect(etag).toMatch(/^"/);
    const again = await s.req('demo.localhost', 'GET', '/.well-known/ucp', undefined, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('omits the MCP binding for a shop with MCP off', async () => {
    const r = await s.req('other.localhost', 'GET', '/.well-known/ucp');
    expect(r.status).toBe(200);
    expectUcpValid(`${PROFILE_ID}#/$defs/business_profile`, r.body);
    const transports = r.body.ucp.services['dev.ucp.shopping'].map((b: any) => b.transport);
    expect(transports).toContain('rest');
    expect(transports).not.toContain('mcp');
    expect(r.body.ucp.services['dev.ucp.shopping'][0].endpoint).toBe(`http://other.localhost:${s.port}/api/ucp`);
  });

  it('answers 404 on a domain without the protocol and on unknown domains, never a redirect', async () => {
    for (const host of ['offline.localhost', 'nowhere.localhost']) {
      for (const [method, path] of [
        ['GET', '/.well-known/ucp'],
        ['GET', '/api/ucp'],
        ['POST', '/api/ucp/catalog/search'],
      ] as const) {
        const r = await s.req(host, method, path, method === 'POST' ? { query: 'mug' } : undefined);
        expect(r.status, `${host} ${method} ${path}`).toBe(404);
        expect(r.body.code).toBe('not_found');
      }
    }
  });

  it('a domain without the protocol answers CORS preflights 404, with no CORS grant', async () => {
    for (const host of ['offline.localhost', 'nowhere.localhost']) {
      for (const path of ['/.well-known/ucp', '/api/ucp', '/api/ucp/carts', '/api/ucp/catalog/search', '/mcp']) {
        const r = await s.req(host, 'OPTIONS', path, undefined, { origin: 'https://agent.example', 'access-control-request-method': 'POST' });
        expect(r.status, `${host} OPTIONS ${path}`).toBe(404);
        expect(r.headers['access-control-allow-origin'], `${host} ${path}`).toBeUndefined();
      }
    }
  });

  it('answers CORS preflight with the UCP request headers allowed', async () => {
    const r = await s.req('demo.localhost', 'OPTIONS', '/.well-known/ucp', undefined, {
      origin: 'https://agent.example',
      'access-control-request-method': 'GET',
    });
    expect(r.status).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    const allowed = String(r.headers['access-control-allow-headers']).split(/,\s*/).map((h) => h.toLowerCase());
    for (const h of ['Authorization', 'Content-Type', 'UCP-Agent', 'Idempotency-Key', 'Request-Id', 'Signature', 'Signature-Input', 'Content-Digest', 'X-API-Key']) {
      expect(allowed, h).toContain(h.toLowerCase());
    }
    const api = await s.req('demo.localhost', 'OPTIONS', '/api/ucp/carts', undefined, {
      origin: 'https://agent.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, idempotency-key',
    });
    expect(api.status).toBe(204);
    expect(String(api.headers['access-control-allow-methods'])).toContain('PUT');
    const get = await s.req('demo.localhost', 'GET', '/.well-known/ucp', undefined, { origin: 'https://agent.example' });
    expect(get.headers['access-control-allow-origin']).toBe('*');
    expect(String(get.headers['access-control-expose-headers'])).toContain('ETag');
  });

  it('ignores X-Forwarded-* unless the proxy is trusted', async () => {
    const r = await s.req('demo.localhost', 'GET', '/.well-known/ucp', undefined, {
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
    });
    expect(r.body.ucp.services['dev.ucp.shopping'][0].endpoint).toBe(`http://demo.localhost:${s.port}/api/ucp`);
  });
});

describe('behind a trusted proxy', () => {
  let p: TestServer;
  beforeAll(async () => {
    p = await startTestServer({ trustProxy: true });
  });
  afterAll(() => p.close());

  it('builds absolute URLs from X-Forwarded-Proto/Host', async () => {
    const r = await p.req('internal', 'GET', '/.well-known/ucp', undefined, {
      'x-forwarded-host': 'demo.localhost',
      'x-forwarded-proto': 'https',
    });
    expect(r.status).toBe(200);
    expect(r.body.ucp.services['dev.ucp.shopping'][0].endpoint).toBe('https://demo.localhost/api/ucp');
    // Once cached, the fast path answers: it must read the forwarded headers the same way.
    for (const [proto, origin] of [['https', 'https://demo.localhost'], ['http', 'http://demo.localhost']]) {
      const again = await p.req('internal', 'GET', '/.well-known/ucp', undefined, { 'x-forwarded-host': 'demo.localhost', 'x-forwarded-proto': proto });
      expect(again.body.ucp.services['dev.ucp.shopping'][0].endpoint).toBe(`${origin}/api/ucp`);
    }
  });
});

describe('discovery fast path (server/ucp/discovery.ts)', () => {
  /** A minimal stand-in for Node's ServerResponse that records what the fast path writes. */
  function recorder() {
    const out = { status: 0, headers: {} as Record<string, string | number>, body: undefined as string | undefined, ended: false };
    const res = {
      writeHead(status: number, headers: Record<string, string | number> | string[]) {
        out.status = status;
        // Node takes headers as an object or as a flat [name, value, ...] list.
        out.headers = Array.isArray(headers) ? Object.fromEntries(headers.flatMap((v, i) => (i % 2 ? [] : [[v, headers[i + 1]]]))) : headers;
      },
      end(body?: string) {
        out.body = body;
        out.ended = true;
      },
    };
    return { out, res: res as unknown as ServerResponse };
  }
  const fast = () => discoveryFastPath({ db: s.db, config: { trustProxy: false, host: '127.0.0.1', port: s.port }, corsHeaders: { 'Access-Control-Allow-Origin': '*' } });
  const call = (headers: Record<string, string>, url = '/.well-known/ucp', method = 'GET') => {
    const { out, res } = recorder();
    const handled = fast()({ url, method, headers } as IncomingMessage, res);
    return { handled, out };
  };

  it('answers from the caches once the Hono route has filled them, with the same bytes', async () => {
    const host = `demo.localhost:${s.port}`;
    const viaHono = await s.req('demo.localhost', 'GET', '/.well-known/ucp?warm=1');
    const { handled, out } = call({ host });
    expect(handled).toBe(true);
    expect(out.status).toBe(200);
    expect(out.body).toBe(viaHono.text);
    expect(out.headers.ETag).toBe(viaHono.headers.etag);
    expect(Number(out.headers['Content-Length'])).toBe(Buffer.byteLength(viaHono.text));
    const revalidated = call({ host, 'if-none-match': `W/${viaHono.headers.etag}` });
    expect(revalidated.out.status).toBe(304);
    expect(revalidated.out.body).toBeUndefined();
  });

  it('lets everything else through to Hono, untouched', async () => {
    const host = `demo.localhost:${s.port}`;
    await s.req('demo.localhost', 'GET', '/.well-known/ucp');
    await s.req('offline.localhost', 'GET', '/.well-known/ucp');
    for (const [headers, url, method] of [
      [{ host }, '/.well-known/ucp?x=1', 'GET'],
      [{ host }, '/.well-known/ucp', 'HEAD'],
      [{ host }, '/.well-known/ucp/', 'GET'],
      [{ host: `offline.localhost:${s.port}` }, '/.well-known/ucp', 'GET'],
      [{ host: `nowhere.localhost:${s.port}` }, '/.well-known/ucp', 'GET'],
      [{ host: 'demo.localhost:1' }, '/.well-known/ucp', 'GET'], // no profile rendered for that origin yet
      [{ host: 'bad host!' }, '/.well-known/ucp', 'GET'],
    ] as const) {
      const r = call(headers, url, method);
      expect(r.handled, `${method} ${url} ${headers.host}`).toBe(false);
      expect(r.out.ended).toBe(false);
    }
  });

  it('answers through the server exactly as the Hono route does', async () => {
    await s.req('demo.localhost', 'GET', '/.well-known/ucp');
    const fastR = await s.req('demo.localhost', 'GET', '/.well-known/ucp');
    const honoR = await s.req('demo.localhost', 'GET', '/.well-known/ucp?via=hono');
    expect(fastR.text).toBe(honoR.text);
    const names = (h: Record<string, unknown>) => Object.keys(h).filter((k) => k !== 'date').sort();
    expect(names(fastR.headers)).toEqual(names(honoR.headers));
    for (const k of names(honoR.headers)) expect(fastR.headers[k], k).toEqual(honoR.headers[k]);
  });
});

describe('GET /api/ucp', () => {
  it('is the service root with protocol metadata', async () => {
    const r = await s.req('demo.localhost', 'GET', '/api/ucp');
    expect(r.status).toBe(200);
    expect(r.body.ucp.version).toBe('2026-04-08');
    expect(r.body.status).toBe('ok');
    const withOrigin = await s.req('demo.localhost', 'GET', '/api/ucp', undefined, { origin: 'https://shop.example' });
    expect(withOrigin.headers['access-control-allow-origin']).toBe('*');
  });
});
