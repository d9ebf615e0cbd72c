/**
 * No client can spend another client's budget (docs/security.md). Each client here is its own
 * loopback source address, seen by the server as its socket peer (no proxy, TRUST_PROXY off): the
 * account service is a nested app, and it must still see the real address rather than one shared
 * "unknown".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { formBody, requestFrom } from './support/from-address.ts';
import { REDIRECT } from './support/oauth.ts';
import { LOGIN_FAILURES, LOGIN_FAILURES_PER_ADDRESS, TOKEN_FAILURES_PER_ADDRESS } from '../server/oauth/routes.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)![1];

/** The authorization flow's login form, fetched and posted from one address (session cookie kept). */
async function signInFrom(from: string, username: string, password: string) {
  const q = new URLSearchParams({ response_type: 'code', client_id: 'demo-app', redirect_uri: REDIRECT, scope: 'products_read', state: 'st' });
  const page = await requestFrom({ port: s.port, from, host: 'localhost', method: 'GET', path: `/oauth2/authorize?${q}` });
  const cookie = String(page.headers['set-cookie'] ?? '').split(';')[0];
  const f = formBody({ csrf: hidden(page.text, 'csrf'), request: hidden(page.text, 'request'), username, password });
  return requestFrom({ port: s.port, from, host: 'localhost', method: 'POST', path: '/oauth2/login', body: f.body, headers: { ...f.headers, cookie } });
}

async function authorizationCode(from: string): Promise<string> {
  const ok = await signInFrom(from, 'owner@demo.localhost', 'demo');
  expect(ok.status).toBe(303);
  const cookie = String(ok.headers['set-cookie'] ?? '').split(';')[0];
  const consent = await requestFrom({ port: s.port, from, host: 'localhost', method: 'GET', path: String(ok.headers.location), headers: { cookie } });
  const f = formBody({ csrf: hidden(consent.text, 'csrf'), request: hidden(consent.text, 'request'), decision: 'allow' });
  const done = await requestFrom({ port: s.port, from, host: 'localhost', method: 'POST', path: '/oauth2/consent', body: f.body, headers: { ...f.headers, cookie } });
  return new URL(String(done.headers.location)).searchParams.get('code')!;
}

const token = (from: string, form: Record<string, string>) => {
  const f = formBody(form);
  return requestFrom({ port: s.port, from, host: 'localhost', method: 'POST', path: '/oauth2/access_token', ...f });
};

describe('failure budgets are per client address', () => {
  it('token endpoint: bogus codes from one address never refuse a valid code from another', async () => {
    for (let i = 0; i <= TOKEN_FAILURES_PER_ADDRESS.capacity; i++) {
      await token('127.0.2.1', { grant_type: 'authorization_code', code: `bogus-${i}`, redirect_uri: REDIRECT, client_id: 'demo-app', client_secret: 'demo-secret' });
    }
    const throttled = await token('127.0.2.1', { grant_type: 'authorization_code', code: 'bogus', redirect_uri: REDIRECT, client_id: 'demo-app', client_secret: 'demo-secret' });
    expect(throttled.status).toBe(429);
    const code = await authorizationCode('127.0.3.1');
    const honest = await token('127.0.3.1', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'demo-app', client_secret: 'demo-secret' });
    expect(honest.status).toBe(200);
    expect(honest.body.access_token).toEqual(expect.any(String));
  });

  it('sign-in: wrong passwords for the owner from one address never lock the owner out elsewhere', async () => {
    const attacks = Math.max(LOGIN_FAILURES.capacity, LOGIN_FAILURES_PER_ADDRESS.capacity);
    let last = 0;
    for (let i = 0; i < attacks; i++) last = (await signInFrom('127.0.4.1', 'owner@demo.localhost', `guess-${i}`)).status;
    expect(last).toBe(429); // throttled where the guesses come from
    const owner = await signInFrom('127.0.5.1', 'owner@demo.localhost', 'demo');
    expect(owner.status).toBe(303);
  });
});
