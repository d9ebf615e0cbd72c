import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { authorizeInBrowser, Browser, hidden, REDIRECT } from './support/oauth.ts';
import { LOGIN_FAILURES, LOGIN_FAILURES_PER_ADDRESS, TOKEN_FAILURES_PER_ADDRESS } from '../server/oauth/routes.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

async function loginForm(b: Browser) {
  const q = new URLSearchParams({ response_type: 'code', client_id: 'demo-app', redirect_uri: REDIRECT, scope: 'products_read', state: 'st' });
  const html = await (await b.fetch(`/oauth2/authorize?${q}`)).text();
  return { csrf: hidden(html, 'csrf'), request: hidden(html, 'request') };
}

describe('password guessing on the login form', () => {
  it('throttles an account after repeated wrong passwords, even with the right one, and names the wait', async () => {
    const b = new Browser(s.url);
    const form = await loginForm(b);
    for (let i = 0; i < LOGIN_FAILURES.capacity; i++) {
      const r = await b.post('/oauth2/login', { ...form, username: 'owner@demo.localhost', password: `guess-${i}` });
      expect(r.status, `attempt ${i + 1}`).toBe(401);
    }
    const locked = await b.post('/oauth2/login', { ...form, username: 'OWNER@demo.localhost', password: 'demo' });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await locked.text()).toContain('Too many failed sign-ins');
  });

  it('does not lock out other accounts, and successful sign-ins cost nothing', async () => {
    for (let i = 0; i < LOGIN_FAILURES.capacity + 3; i++) {
      const b = new Browser(s.url);
      const r = await b.post('/oauth2/login', { ...(await loginForm(b)), username: 'owner@other.localhost', password: 'other' });
      expect(r.status, `sign-in ${i + 1}`).toBe(303);
      expect(r.headers.get('location')).toMatch(/^\/oauth2\/consent\?request=/);
    }
  });
});

/** Behind a trusted proxy, so the tests can speak from several client addresses. */
describe('guessing from one address (password spraying, token guessing)', () => {
  let p: TestServer;
  beforeAll(async () => {
    p = await startTestServer({ trustProxy: true });
  });
  afterAll(() => p.close());
  const from = (ip: string) => new Browser(p.url, { 'x-forwarded-for': ip });
  const attempt = async (ip: string, username: string, password: string) => {
    const b = from(ip);
    const q = new URLSearchParams({ response_type: 'code', client_id: 'demo-app', redirect_uri: REDIRECT, scope: 'products_read', state: 'st' });
    const html = await (await b.fetch(`/oauth2/authorize?${q}`)).text();
    return b.post('/oauth2/login', { csrf: hidden(html, 'csrf'), request: hidden(html, 'request'), username, password });
  };

  it('one password tried on many accounts from one address is throttled there, not elsewhere', async () => {
    // Every attempt names another account, so no per-account budget is touched twice.
    for (let i = 0; i < LOGIN_FAILURES_PER_ADDRESS.capacity; i++) {
      const r = await attempt('203.0.113.7', `user${i}@example.com`, 'Summer2026!');
      expect(r.status, `attempt ${i + 1}`).toBe(401);
    }
    const blocked = await attempt('203.0.113.7', 'owner@demo.localhost', 'demo'); // even the right password
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBe(Math.ceil(1 / LOGIN_FAILURES_PER_ADDRESS.refillPerSecond));
    expect(await blocked.text()).toContain('Too many failed sign-ins');
    const elsewhere = await attempt('198.51.100.20', 'owner@demo.localhost', 'demo');
    expect(elsewhere.status).toBe(303);
  });

  const tokenRequest = (ip: string, form: Record<string, string>) =>
    fetch(new URL('/oauth2/access_token', p.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
      body: new URLSearchParams(form).toString(),
    });

  it('failed token requests (wrong codes, wrong secrets) are throttled per address; successful ones cost nothing', async () => {
    const ip = '203.0.113.9';
    for (let i = 0; i < TOKEN_FAILURES_PER_ADDRESS.capacity; i++) {
      const form: Record<string, string> =
        i % 2
          ? { grant_type: 'authorization_code', code: `guess-${i}`, redirect_uri: REDIRECT, client_id: 'demo-app', client_secret: 'demo-secret' }
          : { grant_type: 'refresh_token', refresh_token: `guess-${i}`, client_id: 'demo-app', client_secret: `wrong-${i}` };
      const r = await tokenRequest(ip, form);
      expect(r.status, `attempt ${i + 1}`).toBeGreaterThanOrEqual(400);
      expect(['invalid_grant', 'invalid_client']).toContain((await r.json()).error);
    }
    const blocked = await tokenRequest(ip, { grant_type: 'refresh_token', refresh_token: 'guess', client_id: 'demo-app', client_secret: 'demo-secret' });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('cache-control')).toBe('no-store');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await blocked.json()).toMatchObject({ error: 'temporarily_unavailable' });
    // Another address is not affected.
    const other = await tokenRequest('198.51.100.21', { grant_type: 'refresh_token', refresh_token: 'guess', client_id: 'demo-app', client_secret: 'demo-secret' });
    expect(other.status).toBe(400);
  });

  it('an honest client refreshing many times from one address is never throttled', async () => {
    // A real code from the browser flow (at a fresh address), then a chain of rotations.
    const cb = await authorizeInBrowser(p, { client_id: 'demo-app', scope: 'products_read', state: 's' }, { browser: from('192.0.2.50') });
    let r = await tokenRequest('192.0.2.51', { grant_type: 'authorization_code', code: cb.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: 'demo-app', client_secret: 'demo-secret' });
    expect(r.status).toBe(200);
    let refresh = (await r.json()).refresh_token as string;
    for (let i = 0; i < TOKEN_FAILURES_PER_ADDRESS.capacity + 5; i++) {
      r = await tokenRequest('192.0.2.51', { grant_type: 'refresh_token', refresh_token: refresh, client_id: 'demo-app', client_secret: 'demo-secret' });
      expect(r.status, `refresh ${i + 1}`).toBe(200);
      refresh = (await r.json()).refresh_token;
    }
  });
});
