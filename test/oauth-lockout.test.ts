import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { Browser, hidden, REDIRECT } from './oauth-helpers.ts';
import { LOGIN_FAILURES } from '../server/oauth/routes.ts';

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
