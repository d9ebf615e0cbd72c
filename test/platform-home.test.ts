/**
 * What a newcomer meets first (README): the platform's front page with links instead of a JSON 404,
 * and a favicon on every host instead of a 404 in every page's console.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('platform front page', () => {
  it('http://localhost/ is an HTML page linking admin, OAuth metadata and the OpenAPI documents', async () => {
    const r = await s.req('localhost', 'GET', '/');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/text\/html/);
    expect(r.headers['content-security-policy']).toMatch(/default-src 'none'/);
    for (const href of ['/admin', '/.well-known/oauth-authorization-server', `http://localhost:${s.port}/merchants/shop_demo/3.0/openapi.json`, `http://demo.localhost:${s.port}/api/ucp/openapi.json`, `http://agent.localhost:${s.port}/.well-known/ucp`]) {
      expect(r.text).toContain(`href="${href}"`);
    }
    // Each linked document answers.
    expect((await s.req('localhost', 'GET', '/merchants/shop_demo/3.0/openapi.json')).status).toBe(200);
    expect((await s.req('localhost', 'GET', '/.well-known/oauth-authorization-server')).status).toBe(200);
  });

  it('unknown platform paths are still 404', async () => {
    expect((await s.req('localhost', 'GET', '/nothing-here')).status).toBe(404);
  });
});

describe('favicon', () => {
  it.each(['localhost', 'demo.localhost', 'agent.localhost', 'offline.localhost'])('%s answers /favicon.ico and /favicon.svg', async (host) => {
    for (const path of ['/favicon.ico', '/favicon.svg']) {
      const r = await s.req(host, 'GET', path);
      expect(r.status, `${host}${path}`).toBe(200);
      expect(r.headers['content-type']).toBe('image/svg+xml');
      expect(r.text).toMatch(/^<svg /);
    }
  });

  it('pages link it', async () => {
    expect((await s.req('localhost', 'GET', '/admin')).text).toContain('rel="icon" href="/favicon.svg"');
    expect((await s.req('demo.localhost', 'GET', '/')).text).toContain('rel="icon" href="/favicon.svg"');
  });
});
