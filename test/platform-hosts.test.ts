/**
 * Issue 39 points 2 and 4: the platform (account service, admin, merchant API, /metrics, /dev)
 * answers only on the hosts it is configured for, so a DNS-rebinding page (its own name as Host,
 * its Origin built from that name) reaches none of it; and a Host the URL parser refuses (`a.1`)
 * is a 400, never a 500. Both modes (docs/security.md "Which hosts the platform answers").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { loadConfig } from '../server/config.ts';

const AUTH_URL = 'https://accounts.test.example';
const METRICS_TOKEN = 'metrics-token-for-the-host-tests-0123456789';

/** Every platform route, with a body where it takes one. */
const ROUTES: Array<[string, string, unknown?]> = [
  ['GET', '/'],
  ['GET', '/metrics'],
  ['GET', '/admin'],
  ['GET', '/admin/'],
  ['POST', '/admin/login', {}],
  ['GET', '/oauth2/authorize?client_id=demo-app&response_type=code'],
  ['POST', '/oauth2/access_token', {}],
  ['POST', '/oauth2/revoke', {}],
  ['GET', '/.well-known/oauth-authorization-server'],
  ['GET', '/merchants/shop_demo/3.0/products'],
  ['GET', '/merchants/shop_demo/3.0/openapi.json'],
  ['POST', '/merchants/shop_demo/3.0/products', {}],
  ['GET', '/dev/'],
  ['GET', '/dev'],
  ['GET', '/dev/inspector.js'],
  ['GET', '/dev/shops/shop_demo/requests'],
  ['POST', '/dev/shops/shop_other/clone', {}],
  ['POST', '/dev/shops/shop_demo/reset', {}],
  ['GET', '/no-such-page'],
];

const FOREIGN = ['rebind.attacker.example', 'localhost.attacker.example', 'no-shop.localhost', 'evil.example', 'xn--80ak6aa92e.com'];

function modes() {
  return [
    ['development', () => startTestServer({ metricsToken: METRICS_TOKEN })],
    ['production', () => startTestServer({ mode: 'production', authUrl: AUTH_URL, metricsToken: METRICS_TOKEN, seedDemo: true })],
  ] as const;
}

for (const [mode, start] of modes()) {
  describe(`${mode}: the platform answers only on its configured hosts`, () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await start();
    });
    afterAll(() => s.close());

    it('a foreign Host gets 421 host_not_allowed on every platform route, Origin matching it or not', async () => {
      for (const host of FOREIGN) {
        for (const [method, path, body] of ROUTES) {
          const headers = { host: `${host}:${s.port}`, origin: `http://${host}:${s.port}`, authorization: `Bearer ${METRICS_TOKEN}` };
          const r = await s.req(host, method, path, body, headers);
          expect({ host, method, path, status: r.status, code: r.body?.code }).toEqual({ host, method, path, status: 421, code: 'host_not_allowed' });
          expect(r.body.content).toMatch(/Blocked request/);
        }
      }
    });

    it('the rebinding reproduction from the issue clones nothing', async () => {
      const before = (await s.req('127.0.0.1', 'GET', '/')).text;
      const host = `rebind.attacker.example:${s.port}`;
      const r = await s.req('x', 'POST', '/dev/shops/shop_other/clone', {}, { host, origin: `http://${host}` });
      expect(r.status).toBe(421);
      expect((await s.req('127.0.0.1', 'GET', '/')).text).toBe(before);
    });

    it('the configured hosts still reach the platform (loopback names with any port, IP addresses)', async () => {
      const allowed = ['localhost', '127.0.0.1', '[::1]', '127.0.0.2', ...(mode === 'production' ? ['accounts.test.example'] : [])];
      for (const host of allowed) {
        const r = await s.req(host, 'GET', '/.well-known/oauth-authorization-server');
        expect({ host, status: r.status }).toEqual({ host, status: 200 });
        const m = await s.req(host, 'GET', '/metrics', undefined, { authorization: `Bearer ${METRICS_TOKEN}` });
        expect({ host, status: m.status }).toEqual({ host, status: 200 });
      }
      const dev = await s.req('localhost', 'GET', '/dev/');
      expect(dev.status).toBe(mode === 'development' ? 200 : 404);
    });

    it('a Host the URL parser refuses (last label a number) is a 400 invalid_host on every kind of route', async () => {
      for (const host of ['a.1', '1.2.3.4.5', 'demo.localhost.9', 'x.0x10']) {
        for (const [method, path, body] of [...ROUTES, ['GET', '/.well-known/ucp'], ['POST', '/api/ucp/catalog/search', { query: 'tee' }], ['POST', '/mcp', {}], ['GET', '/products/tee']] as Array<[string, string, unknown?]>) {
          const r = await s.req(host, method, path, body, { host });
          expect({ host, method, path, status: r.status, code: r.body?.code }).toEqual({ host, method, path, status: 400, code: 'invalid_host' });
        }
      }
    });

    it('shops still answer on their own domains', async () => {
      expect((await s.req('demo.localhost', 'GET', '/.well-known/ucp')).status).toBe(200);
      expect((await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'tee' })).status).toBe(200);
    });
  });
}

describe('PLATFORM_HOSTS', () => {
  it('adds names the platform answers on; anything but host names is refused by name', async () => {
    expect(loadConfig({ PLATFORM_HOSTS: 'Storefront.Internal, metrics.example.com' }).platformHosts).toEqual(['storefront.internal', 'metrics.example.com']);
    expect(loadConfig({ PLATFORM_HOSTS: 'http://x.example:80' }).settingProblems?.[0]).toMatch(/PLATFORM_HOSTS takes host names/);
    const s = await startTestServer({ platformHosts: ['storefront.internal'] });
    try {
      expect((await s.req('storefront.internal', 'GET', '/metrics')).status).toBe(200);
      expect((await s.req('storefront.internal.attacker.example', 'GET', '/metrics')).status).toBe(421);
    } finally {
      await s.close();
    }
  });
});
