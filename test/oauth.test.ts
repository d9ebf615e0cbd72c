import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as oauth from 'oauth4webapi';
import { startTestServer, type TestServer } from './support/server.ts';
import { setClock } from '../server/oauth/clock.ts';
import { Browser, REDIRECT, authorizeInBrowser, discover, hidden, opts, tokensFor } from './support/oauth.ts';

let s: TestServer;
let as: oauth.AuthorizationServer;
beforeAll(async () => {
  s = await startTestServer();
  as = await discover(s);
});
afterAll(() => s.close());
afterEach(() => setClock());

const confidential: oauth.Client = { client_id: 'demo-app' };
const pub: oauth.Client = { client_id: 'demo-public' };

async function tokenRaw(form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}/oauth2/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

async function codeFor(client_id: string, extra: Record<string, string> = {}) {
  const cb = await authorizeInBrowser(s, { client_id, scope: 'products_read', state: 'st', ...extra });
  expect(cb.searchParams.get('state')).toBe('st');
  return cb.searchParams.get('code')!;
}

async function pkce() {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

const resource = (token: string) => fetch(`${s.url}/oauth2/resource`, { headers: { authorization: `Bearer ${token}` } });

describe('metadata (RFC 8414)', () => {
  it('publishes the endpoints, S256 only and the iss parameter', () => {
    expect(as.issuer).toBe(s.url);
    expect(as.authorization_endpoint).toBe(`${s.url}/oauth2/authorize`);
    expect(as.token_endpoint).toBe(`${s.url}/oauth2/access_token`);
    expect(as.revocation_endpoint).toBe(`${s.url}/oauth2/revoke`);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.scopes_supported).toContain('themes_extend_write');
    expect(as.scopes_supported).toContain('profile');
  });

  it('is only on the platform address, not on storefront domains', async () => {
    const r = await s.req('demo.localhost', 'GET', '/oauth2/resource');
    expect(r.status).toBe(404);
  });
});

describe('confidential client, driven by oauth4webapi', () => {
  it('code (Basic auth, no PKCE) -> token -> resource -> refresh (rotation) -> revocation', async () => {
    const state = oauth.generateRandomState();
    const cb = await authorizeInBrowser(s, { client_id: 'demo-app', scope: 'products_read sales_write', state });
    expect(cb.origin + cb.pathname).toBe(REDIRECT);
    expect(cb.searchParams.get('iss')).toBe(s.url);
    const params = oauth.validateAuthResponse(as, confidential, cb, state);
    const res = await oauth.authorizationCodeGrantRequest(as, confidential, oauth.ClientSecretBasic('demo-secret'), params, REDIRECT, oauth.nopkce, opts);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const tokens = await oauth.processAuthorizationCodeResponse(as, confidential, res);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(182 * 24 * 3600);
    expect(tokens.scope).toBe('products_read sales_write');
    expect(tokens.refresh_token).toBeTruthy();

    const me = await oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL(`${s.url}/oauth2/resource`), undefined, undefined, opts);
    expect(me.status).toBe(200);
    const record = await me.json();
    expect(record).toEqual({
      id: 'usr_demo_owner',
      username: 'owner@demo.localhost',
      name: 'Demo Owner',
      merchant: { id: 'shop_demo', name: expect.any(String), endpoints: { admin: `${s.url}/admin/shop_demo`, api: `${s.url}/merchants/shop_demo` } },
      merchant_name: record.merchant.name,
      admin_endpoint: `${s.url}/admin/shop_demo`,
      api_endpoint: `${s.url}/merchants/shop_demo`,
    });

    // Refresh rotates: new pair, old refresh token and old access token stop working.
    const r2 = await oauth.processRefreshTokenResponse(as, confidential,
      await oauth.refreshTokenGrantRequest(as, confidential, oauth.ClientSecretPost('demo-secret'), tokens.refresh_token!, opts));
    expect(r2.refresh_token).not.toBe(tokens.refresh_token);
    expect(r2.scope).toBe('products_read sales_write');
    expect((await resource(r2.access_token)).status).toBe(200);
    expect((await resource(tokens.access_token)).status).toBe(401);

    // Revocation of the refresh token takes the family with it.
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, confidential, oauth.ClientSecretPost('demo-secret'), r2.refresh_token!, opts));
    expect((await resource(r2.access_token)).status).toBe(401);
    const again = await tokenRaw({ grant_type: 'refresh_token', refresh_token: r2.refresh_token!, client_id: 'demo-app', client_secret: 'demo-secret' });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
  });

  it('accepts PKCE from a confidential client (client_secret_post)', async () => {
    const t = await tokensFor(s, 'customers_read');
    expect(t.scope).toBe('customers_read');
  });

  it('revoking an access token also ends its refresh token (same grant)', async () => {
    const t = await tokensFor(s, 'products_read');
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, confidential, oauth.ClientSecretBasic('demo-secret'), t.access_token, { ...opts, additionalParameters: { token_type_hint: 'access_token' } }));
    expect((await resource(t.access_token)).status).toBe(401);
    const r = await tokenRaw({ grant_type: 'refresh_token', refresh_token: t.refresh_token!, client_id: 'demo-app', client_secret: 'demo-secret' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
  });
});

describe('public client with PKCE, driven by oauth4webapi', () => {
  it('code + S256 verifier -> tokens -> refresh -> revoke, no secret anywhere', async () => {
    const { verifier, challenge } = await pkce();
    const state = oauth.generateRandomState();
    const cb = await authorizeInBrowser(s, { client_id: 'demo-public', scope: 'profile products_read', state, code_challenge: challenge, code_challenge_method: 'S256' });
    const params = oauth.validateAuthResponse(as, pub, cb, state);
    const tokens = await oauth.processAuthorizationCodeResponse(as, pub,
      await oauth.authorizationCodeGrantRequest(as, pub, oauth.None(), params, REDIRECT, verifier, opts));
    expect(tokens.scope).toBe('profile products_read');
    expect((await resource(tokens.access_token)).status).toBe(200);
    const r2 = await oauth.processRefreshTokenResponse(as, pub, await oauth.refreshTokenGrantRequest(as, pub, oauth.None(), tokens.refresh_token!, opts));
    expect((await resource(r2.access_token)).status).toBe(200);
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, pub, oauth.None(), r2.access_token, opts));
    expect((await resource(r2.access_token)).status).toBe(401);
  });
});

describe('authorization endpoint: negative matrix', () => {
  const base = { response_type: 'code', client_id: 'demo-app', redirect_uri: REDIRECT, scope: 'products_read', state: 'abc' };
  const authorize = (p: Record<string, string>) => fetch(`${s.url}/oauth2/authorize?${new URLSearchParams(p)}`, { redirect: 'manual' });
  const redirected = async (p: Record<string, string>) => {
    const r = await authorize(p);
    expect(r.status).toBe(302);
    return new URL(r.headers.get('location')!);
  };

  it('wrong redirect URI: error page, never a redirect', async () => {
    for (const redirect_uri of ['http://127.0.0.1:5555/callback/evil', 'https://evil.example/callback', '']) {
      const r = await authorize({ ...base, redirect_uri });
      expect(r.status).toBe(400);
      expect(r.headers.get('location')).toBeNull();
      expect(await r.text()).toContain('<!doctype html>');
    }
  });

  it('unknown client: error page, never a redirect', async () => {
    const r = await authorize({ ...base, client_id: 'nope' });
    expect(r.status).toBe(400);
    expect(r.headers.get('location')).toBeNull();
  });

  it('unknown scope -> invalid_scope with state and iss', async () => {
    const u = await redirected({ ...base, scope: 'products_read bogus_write' });
    expect(u.origin + u.pathname).toBe(REDIRECT);
    expect(u.searchParams.get('error')).toBe('invalid_scope');
    expect(u.searchParams.get('state')).toBe('abc');
    expect(u.searchParams.get('iss')).toBe(s.url);
  });

  it('wrong response_type -> unsupported_response_type', async () => {
    const u = await redirected({ ...base, response_type: 'token' });
    expect(u.searchParams.get('error')).toBe('unsupported_response_type');
    expect(u.searchParams.get('state')).toBe('abc');
  });

  it('public client without PKCE -> invalid_request', async () => {
    const u = await redirected({ ...base, client_id: 'demo-public' });
    expect(u.searchParams.get('error')).toBe('invalid_request');
    expect(u.searchParams.get('state')).toBe('abc');
  });

  it('plain PKCE is refused', async () => {
    const u = await redirected({ ...base, client_id: 'demo-public', code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' });
    expect(u.searchParams.get('error')).toBe('invalid_request');
    const u2 = await redirected({ ...base, client_id: 'demo-public', code_challenge: 'a'.repeat(43) });
    expect(u2.searchParams.get('error')).toBe('invalid_request');
  });

  it('denied consent -> access_denied with state', async () => {
    const cb = await authorizeInBrowser(s, { client_id: 'demo-app', scope: 'products_read', state: 'deny-me' }, { decision: 'deny' });
    expect(cb.searchParams.get('error')).toBe('access_denied');
    expect(cb.searchParams.get('state')).toBe('deny-me');
    expect(cb.searchParams.get('code')).toBeNull();
    expect(() => oauth.validateAuthResponse(as, confidential, cb, 'deny-me')).toThrow();
  });

  it('login page: real form, hashed passwords, wrong password refused, CSRF enforced, cookie flags', async () => {
    const b = new Browser(s.url);
    const r = await b.fetch(`/oauth2/authorize?${new URLSearchParams(base)}`);
    const html = await r.text();
    expect(html).toMatch(/name="username"[^>]*autocomplete="username"|autocomplete="username"[^>]*name="username"/);
    expect(html).toMatch(/name="password"[^>]*autocomplete="current-password"/);
    const cookie = r.headers.getSetCookie().find((c) => c.startsWith('oauth_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const bad = await b.post('/oauth2/login', { csrf: hidden(html, 'csrf'), request: hidden(html, 'request'), username: 'owner@demo.localhost', password: 'wrong' });
    expect(bad.status).toBe(401);
    const noCsrf = await b.post('/oauth2/login', { csrf: 'forged', request: hidden(html, 'request'), username: 'owner@demo.localhost', password: 'demo' });
    expect(noCsrf.status).toBe(403);
    const stored = await s.db.selectFrom('users').select('password_hash').where('username', '=', 'owner@demo.localhost').executeTakeFirstOrThrow();
    expect(stored.password_hash).toMatch(/^scrypt\$/);
    expect(stored.password_hash).not.toContain('demo');
  });

  it('consent page lists every requested scope in plain words', async () => {
    const b = new Browser(s.url);
    let r = await b.fetch(`/oauth2/authorize?${new URLSearchParams({ ...base, scope: 'products_write customers_read' })}`);
    const html = await r.text();
    r = await b.post('/oauth2/login', { csrf: hidden(html, 'csrf'), request: hidden(html, 'request'), username: 'owner@demo.localhost', password: 'demo' });
    r = await b.fetch(r.headers.get('location')!);
    const consent = await r.text();
    expect(consent).toContain('Create, change and delete products');
    expect(consent).toContain('See customers');
    expect(consent).toContain('name="decision" value="allow"');
    expect(consent).toContain('name="decision" value="deny"');
  });

  it('escapes what it renders', async () => {
    const b = new Browser(s.url);
    const r = await b.fetch(`/oauth2/authorize?${new URLSearchParams({ ...base, state: '"><script>x</script>' })}`);
    expect(await r.text()).not.toContain('<script>x');
  });
});

describe('token endpoint: negative matrix', () => {
  it('missing PKCE verifier -> invalid_grant', async () => {
    const { challenge } = await pkce();
    const code = await codeFor('demo-public', { code_challenge: challenge, code_challenge_method: 'S256' });
    const r = await tokenRaw({ grant_type: 'authorization_code', code, client_id: 'demo-public', redirect_uri: REDIRECT });
    expect(r.status).toBe(400);
    expect(['invalid_grant', 'invalid_client', 'invalid_request']).toContain(r.body.error);
  });

  it('wrong PKCE verifier -> invalid_grant', async () => {
    const { challenge } = await pkce();
    const code = await codeFor('demo-public', { code_challenge: challenge, code_challenge_method: 'S256' });
    const r = await tokenRaw({ grant_type: 'authorization_code', code, client_id: 'demo-public', redirect_uri: REDIRECT, code_verifier: oauth.generateRandomCodeVerifier() });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('wrong redirect URI at the token endpoint is refused', async () => {
    const code = await codeFor('demo-app');
    const r = await tokenRaw({ grant_type: 'authorization_code', code, client_id: 'demo-app', client_secret: 'demo-secret', redirect_uri: 'http://127.0.0.1:5555/other' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/invalid_(request|grant)/);
  });

  it('replayed code -> invalid_grant and revokes what it issued', async () => {
    const code = await codeFor('demo-app');
    const form = { grant_type: 'authorization_code', code, client_id: 'demo-app', client_secret: 'demo-secret', redirect_uri: REDIRECT };
    const first = await tokenRaw(form);
    expect(first.status).toBe(200);
    expect((await resource(first.body.access_token)).status).toBe(200);
    const second = await tokenRaw(form);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect((await resource(first.body.access_token)).status).toBe(401);
    const refreshed = await tokenRaw({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: 'demo-app', client_secret: 'demo-secret' });
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('expired code (injected clock) -> invalid_grant', async () => {
    const code = await codeFor('demo-app');
    const t0 = Date.now();
    setClock(() => t0 + 10 * 60 * 1000 + 1);
    const r = await tokenRaw({ grant_type: 'authorization_code', code, client_id: 'demo-app', client_secret: 'demo-secret', redirect_uri: REDIRECT });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
  });

  it('code bound to its client', async () => {
    const { verifier, challenge } = await pkce();
    const code = await codeFor('demo-app', { code_challenge: challenge, code_challenge_method: 'S256' });
    const r = await tokenRaw({ grant_type: 'authorization_code', code, client_id: 'demo-public', redirect_uri: REDIRECT, code_verifier: verifier });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
  });

  it('reused refresh token -> invalid_grant and the family is revoked', async () => {
    const t = await tokensFor(s, 'products_read');
    const form = { grant_type: 'refresh_token', refresh_token: t.refresh_token!, client_id: 'demo-app', client_secret: 'demo-secret' };
    const r1 = await tokenRaw(form);
    expect(r1.status).toBe(200);
    const reuse = await tokenRaw(form);
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    expect((await resource(r1.body.access_token)).status).toBe(401);
    const r3 = await tokenRaw({ ...form, refresh_token: r1.body.refresh_token });
    expect(r3.body.error).toBe('invalid_grant');
  });

  it('a refresh asking for a wider scope is invalid_scope and leaves the grant as it was', async () => {
    const t = await tokensFor(s, 'products_read');
    const form = { grant_type: 'refresh_token', refresh_token: t.refresh_token!, client_id: 'demo-app', client_secret: 'demo-secret' };
    const wider = await tokenRaw({ ...form, scope: 'products_read products_write' });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');
    expect(wider.body.error_description).toContain('products_read');
    expect((await resource(t.access_token)).status).toBe(200); // the access token still works
    const narrow = await tokenRaw({ ...form, scope: 'products_read' }); // and the refresh token too
    expect(narrow.status).toBe(200);
    expect(narrow.body.scope).toBe('products_read');
  });

  it('wrong client secret -> invalid_client (post 400/401, Basic 401 with WWW-Authenticate)', async () => {
    const code = await codeFor('demo-app');
    const post = await tokenRaw({ grant_type: 'authorization_code', code, client_id: 'demo-app', client_secret: 'wrong', redirect_uri: REDIRECT });
    expect([400, 401]).toContain(post.status);
    expect(post.body.error).toBe('invalid_client');
    const basic = await tokenRaw(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      { authorization: `Basic ${Buffer.from('demo-app:wrong').toString('base64')}` },
    );
    expect(basic.status).toBe(401);
    expect(basic.body.error).toBe('invalid_client');
    expect(basic.headers.get('www-authenticate')).toMatch(/^Basic/);
    // The code was never consumed by the failed attempts.
    const ok = await tokenRaw({ grant_type: 'authorization_code', code, client_id: 'demo-app', client_secret: 'demo-secret', redirect_uri: REDIRECT });
    expect(ok.status).toBe(200);
  });

  it('confidential client without its secret -> invalid_client', async () => {
    const code = await codeFor('demo-app');
    const r = await tokenRaw({ grant_type: 'authorization_code', code, client_id: 'demo-app', redirect_uri: REDIRECT });
    expect(r.body.error).toBe('invalid_client');
  });

  it('unsupported grant and wrong content type', async () => {
    const r = await tokenRaw({ grant_type: 'password', client_id: 'demo-app', client_secret: 'demo-secret' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('unsupported_grant_type');
    const j = await fetch(`${s.url}/oauth2/access_token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(j.status).toBe(400);
    expect((await j.json()).error).toBe('invalid_request');
  });

  it('tokens are stored hashed', async () => {
    const t = await tokensFor(s, 'products_read');
    const rows = await s.db.selectFrom('oauth_tokens').select(['access_hash', 'refresh_hash']).execute();
    expect(rows.some((r) => r.access_hash === t.access_token || r.refresh_hash === t.refresh_token)).toBe(false);
  });
});

describe('resource endpoint', () => {
  it('401 with WWW-Authenticate: Bearer', async () => {
    const none = await fetch(`${s.url}/oauth2/resource`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const bad = await resource('not-a-token');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('other user gets their own merchant', async () => {
    const t = await tokensFor(s, 'profile', { username: 'owner@other.localhost', password: 'other' });
    const r = await (await resource(t.access_token)).json();
    expect(r.merchant.id).toBe('shop_other');
    expect(r.api_endpoint).toBe(`${s.url}/merchants/shop_other`);
  });
});

describe('demo seeds', () => {
  it('are never created in production mode', async () => {
    const prod = await startTestServer({ mode: 'production' });
    try {
      expect(await prod.db.selectFrom('users').selectAll().execute()).toEqual([]);
      expect(await prod.db.selectFrom('oauth_clients').selectAll().execute()).toEqual([]);
    } finally {
      await prod.close();
    }
  });
});
