/**
 * Every HTML page leaves with `X-Content-Type-Options: nosniff` and a Content-Security-Policy that
 * allows no eval and no inline script (docs/security.md): account service and admin pages (error
 * and 413 pages included), storefront pages, and the demo agent's static pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { FORM_MAX_BYTES } from '../server/platform.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

const authorize = new URLSearchParams({ response_type: 'code', client_id: 'demo-app', redirect_uri: 'http://127.0.0.1:5555/callback', scope: 'products_read', state: 's' });
const PAGES: Array<[host: string, method: string, path: string, body?: string]> = [
  ['localhost', 'GET', '/admin'],
  ['localhost', 'GET', `/oauth2/authorize?${authorize}`],
  ['localhost', 'GET', '/oauth2/authorize?client_id=nobody'], // error page
  ['localhost', 'GET', '/oauth2/consent?request=nope'],
  ['localhost', 'POST', '/admin/login', `username=${'x'.repeat(FORM_MAX_BYTES)}`], // 413 page
  ['demo.localhost', 'GET', '/'],
  ['demo.localhost', 'GET', '/products/engraved-flask'],
  ['demo.localhost', 'GET', '/cart/none'],
  ['agent.localhost', 'GET', '/'],
  ['agent.localhost', 'GET', '/index.html'],
  ['agent.localhost', 'GET', '/frame.html'],
  ['evil.localhost', 'GET', '/frame.html'],
  ['evil.localhost', 'GET', '/forge.html'],
];

describe('HTML responses carry nosniff and a CSP', () => {
  it.each(PAGES)('%s %s %s', async (host, method, path, body) => {
    const r = await s.req(host, method, path, body, body ? { 'content-type': 'application/x-www-form-urlencoded' } : {});
    expect(String(r.headers['content-type'])).toMatch(/^text\/html/);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(r.headers['content-security-policy'] ?? '');
    expect(csp).toMatch(/default-src/);
    expect(csp).not.toContain('unsafe-eval');
    const scripts = /script-src ([^;]*)/.exec(csp)?.[1] ?? /default-src ([^;]*)/.exec(csp)![1];
    expect(scripts).not.toContain("'unsafe-inline'");
  });

  it('a static page gets a fresh nonce on its scripts, matching its policy', async () => {
    const a = await s.req('agent.localhost', 'GET', '/');
    const b = await s.req('agent.localhost', 'GET', '/');
    const nonce = /nonce="([^"]+)"/.exec(a.text)![1];
    expect(String(a.headers['content-security-policy'])).toContain(`'nonce-${nonce}'`);
    expect(b.text).not.toContain(nonce);
    expect(a.headers['cache-control']).toBe('no-store');
  });
});
