/**
 * Operations endpoints and the access log (server/http/ops.ts), on the real server.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer } from 'node:http';
import { startTestServer, type TestServer } from './support/server.ts';
import { healthProbes } from '../server/http/ops.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ accessLog: true });
});
afterAll(async () => {
  await s?.close();
});

describe('health probes', () => {
  it('/livez and /readyz answer 200 on any Host, uncached', async () => {
    for (const host of ['demo.localhost', 'localhost', '10.0.0.7', 'no-such-shop.example']) {
      for (const path of ['/livez', '/readyz']) {
        const r = await s.req(host, 'GET', path);
        expect(r.status, `${host}${path}`).toBe(200);
        expect(r.body).toEqual({ status: 'ok' });
        expect(r.headers['cache-control']).toBe('no-store');
      }
    }
  });

  it('only GET and HEAD, only the exact paths', async () => {
    expect((await s.req('localhost', 'HEAD', '/readyz')).status).toBe(200);
    expect((await s.req('localhost', 'POST', '/livez', {})).status).toBe(404);
    expect((await s.req('demo.localhost', 'GET', '/livez/x')).status).toBe(404);
  });
});

describe('access log', () => {
  it('one JSON line per request, for the discovery fast path too, without the query string', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      await s.req('demo.localhost', 'GET', '/.well-known/ucp');
      await s.req('demo.localhost', 'GET', '/.well-known/ucp'); // cached: the fast path
      await s.req('demo.localhost', 'GET', '/cart/c_1?ep_version=2026-04-08&ep_auth=secret-token');
      await s.req('demo.localhost', 'POST', '/api/ucp/carts', '{bad json', { 'request-id': '7d1f0c2e-5b8a-4c1e-9f3a-2b6d8e0a1c4f' });
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      spy.mockRestore();
    }
    const entries = lines.filter((l) => l.startsWith('{"t":')).map((l) => JSON.parse(l));
    expect(entries.map((e) => [e.method, e.path, e.status])).toEqual([
      ['GET', '/.well-known/ucp', 200],
      ['GET', '/.well-known/ucp', 200],
      ['GET', '/cart/c_1', 200],
      ['POST', '/api/ucp/carts', 400],
    ]);
    for (const e of entries) {
      expect(e.host).toMatch(/^demo\.localhost:\d+$/);
      expect(e.ms).toBeGreaterThanOrEqual(0);
      expect(Date.parse(e.t)).not.toBeNaN();
    }
    expect(lines.join('')).not.toContain('secret-token');
    expect(entries[3].request_id).toBe('7d1f0c2e-5b8a-4c1e-9f3a-2b6d8e0a1c4f'); // UCP's tracing header
    expect(entries[0].request_id).toBeUndefined();
  });
});

describe('readiness follows the database and shutdown', () => {
  it('503 stopping + Retry-After once shutdown has begun (liveness stays 200)', async () => {
    const probes = healthProbes(s.db, () => true);
    const server = createServer((req, res) => {
      if (!probes(req, res)) res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'stopping' });
      expect(ready.headers.get('retry-after')).toBe('5');
      expect((await fetch(`${base}/livez`)).status).toBe(200);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('503 database_unavailable when the database is gone', async () => {
    const t = await startTestServer();
    const destroy = t.db.destroy.bind(t.db);
    try {
      await destroy(); // the database stops under a running server
      const r = await t.req('localhost', 'GET', '/readyz');
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ status: 'database_unavailable', cause: 'database_unavailable' });
      expect(r.headers['retry-after']).toBe('2');
      expect((await t.req('localhost', 'GET', '/livez')).status).toBe(200);
      // The transports too: a stopped database is an outage (503 + Retry-After), never a 500
      // (kysely's "driver has already been destroyed" was not known as one).
      const cart = await t.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] });
      expect(cart.status).toBe(503);
      expect(cart.body.code).toBe('service_unavailable');
      expect(cart.headers['retry-after']).toBeDefined();
      const merchant = await t.req('localhost', 'GET', '/merchants/shop_demo/3.0/products', undefined, { authorization: 'Bearer nope' });
      expect(merchant.status).toBe(503);
    } finally {
      t.db.destroy = async () => {};
      await t.close().catch(() => {});
    }
  });
});
