/**
 * The platform admin pages (/admin): sign-in with the login form's failure budgets, the own
 * merchant only, registering OAuth apps (the shown secret and redirect URI really work) and deleting
 * them (which revokes what was issued to them), CSRF and Origin checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { Browser, authorizeInBrowser, hidden, tokensFor } from './support/oauth.ts';
import { LOGIN_FAILURES } from '../server/oauth/routes.ts';
import { APP_LIMITS, createUser, registerApp } from '../server/core/accounts/accounts.ts';
import { sha256 } from '../server/lib/crypto.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  // A second user of the demo merchant (same shop, another person) and one to lock out.
  await createUser(s.db, { username: 'second@demo.localhost', name: 'Second Owner', password: 'second', merchantId: 'shop_demo' });
  await createUser(s.db, { username: 'locked@demo.localhost', name: 'Locked Out', password: 'locked', merchantId: 'shop_demo' });
  await createUser(s.db, { username: 'busy@other.localhost', name: 'Busy Developer', password: 'busy', merchantId: 'shop_other' });
});
afterAll(() => s.close());

const DEMO = { username: 'owner@demo.localhost', password: 'demo' };
const OTHER = { username: 'owner@other.localhost', password: 'other' };
const SECOND = { username: 'second@demo.localhost', password: 'second' };

async function signInForm(b: Browser) {
  const res = await b.fetch('/admin');
  expect(res.status).toBe(200);
  return hidden(await res.text(), 'csrf');
}

async function signedIn(user: { username: string; password: string }): Promise<Browser> {
  const b = new Browser(s.url);
  const res = await b.post('/admin/login', { csrf: await signInForm(b), ...user });
  expect(res.status).toBe(303);
  return b;
}

async function adminPage(b: Browser, merchant = 'shop_demo') {
  const res = await b.fetch(`/admin/${merchant}`);
  const html = await res.text();
  return { status: res.status, html, csrf: res.status === 200 ? hidden(html, 'csrf') : '' };
}

async function register(b: Browser, fields: Record<string, string>, merchant = 'shop_demo') {
  const { csrf } = await adminPage(b, merchant);
  const res = await b.post(`/admin/${merchant}/apps`, { csrf, ...fields });
  return { res, html: await res.text() };
}

const codeText = (html: string, id: string) => new RegExp(`<code id="${id}">([^<]*)</code>`).exec(html)?.[1];
const countApps = async () => Number((await s.db.selectFrom('oauth_clients').select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const findRow = (id: string) => s.db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
const resource = (token: string) => fetch(`${s.url}/oauth2/resource`, { headers: { authorization: `Bearer ${token}` } });

/** Registers a confidential app as the demo owner with a redirect URI of its own; returns what the page showed. */
async function confidentialApp(b: Browser, redirectUri = 'https://app.example/callback') {
  const { res, html } = await register(b, { name: 'Reporting', redirect_uris: `${redirectUri}\nhttp://localhost:7777/cb`, type: 'confidential' });
  expect(res.status).toBe(200);
  const id = codeText(html, 'client_id')!;
  const secret = codeText(html, 'client_secret')!;
  expect(id).toMatch(/^app_/);
  expect(secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
  return { id, secret, redirectUri };
}

describe('signing in at /admin', () => {
  it('shows a sign-in form, refuses a wrong password (401) and sends the user to their own merchant', async () => {
    const b = new Browser(s.url);
    const form = await b.fetch('/admin');
    expect(form.headers.get('cache-control')).toBe('no-store');
    const html = await form.text();
    expect(html).toContain('action="/admin/login"');
    expect(html).toContain('name="password"');

    const wrong = await b.post('/admin/login', { csrf: hidden(html, 'csrf'), username: DEMO.username, password: 'nope' });
    expect(wrong.status).toBe(401);
    const again = await wrong.text();
    expect(again).toContain('Wrong e-mail or password.');
    expect(again).toContain('value="owner@demo.localhost"');

    const cookieBefore = b.cookie;
    const ok = await b.post('/admin/login', { csrf: hidden(html, 'csrf'), ...DEMO });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/admin/shop_demo');
    expect(b.cookie).not.toBe(cookieBefore); // a fresh session id at sign-in

    const redirect = await b.fetch('/admin');
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('location')).toBe('/admin/shop_demo');
    const own = await adminPage(b);
    expect(own.status).toBe(200);
    expect(own.html).toContain('Register an app');
    expect(own.html).toContain('owner@demo.localhost');
    // The platform address only, never a storefront domain.
    expect((await s.req('demo.localhost', 'GET', '/admin')).status).toBe(404);
  });

  it('is throttled after the per-account failure budget, even with the right password (429 + Retry-After)', async () => {
    const b = new Browser(s.url);
    const csrf = await signInForm(b);
    for (let i = 0; i < LOGIN_FAILURES.capacity; i++) {
      const r = await b.post('/admin/login', { csrf, username: 'locked@demo.localhost', password: `guess-${i}` });
      expect(r.status, `attempt ${i + 1}`).toBe(401);
    }
    const locked = await b.post('/admin/login', { csrf, username: 'LOCKED@demo.localhost', password: 'locked' });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await locked.text()).toContain('Too many failed sign-ins');
    // The authorization flow's login form shares the budget.
    await expect(authorizeInBrowser(s, { client_id: 'demo-app', scope: 'profile', state: 'st' }, { username: 'locked@demo.localhost', password: 'locked' })).rejects.toThrow('login: 429');
  });

  it("another merchant's admin page is 404; without a session the page asks to sign in (401)", async () => {
    const b = await signedIn(DEMO);
    const other = await adminPage(b, 'shop_other');
    expect(other.status).toBe(404);
    expect(other.html).not.toContain('Other');
    const anonymous = await new Browser(s.url).fetch('/admin/shop_demo');
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain('action="/admin/login"');
  });

  it('signing out ends the session', async () => {
    const b = await signedIn(DEMO);
    const { csrf } = await adminPage(b);
    const stale = b.cookie;
    const out = await b.post('/admin/logout', { csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/admin');
    expect((await b.fetch('/admin/shop_demo')).status).toBe(401);
    b.cookie = stale; // the old cookie does not come back to life
    expect((await b.fetch('/admin/shop_demo')).status).toBe(401);
  });

  it('refuses a sign-in without the form token or from a foreign Origin (403)', async () => {
    const b = new Browser(s.url);
    const csrf = await signInForm(b);
    expect((await b.post('/admin/login', { ...DEMO })).status).toBe(403);
    expect((await b.post('/admin/login', { csrf: 'x', ...DEMO })).status).toBe(403);
    const foreign = await b.fetch('/admin/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ csrf, ...DEMO }).toString(),
    });
    expect(foreign.status).toBe(403);
    expect((await b.fetch('/admin')).status).toBe(200); // still not signed in
  });
});

describe('registering apps', () => {
  it('a confidential app: the secret is shown once, and it and the redirect URI work in a real authorization-code flow', async () => {
    const b = await signedIn(DEMO);
    const app = await confidentialApp(b);
    const row = await findRow(app.id);
    expect(row).toMatchObject({ name: 'Reporting', owner_user_id: 'usr_demo_owner', secret_hash: sha256(app.secret) });
    expect(row!.redirect_uris).toEqual([app.redirectUri, 'http://localhost:7777/cb']);

    const { html } = await adminPage(b);
    expect(html).toContain(app.id);
    expect(html).toContain('https://app.example/callback');
    expect(html).toContain('confidential');
    expect(html).not.toContain(app.secret);

    const tokens = await tokensFor(s, 'products_read', DEMO, app);
    const me = await resource(tokens.access_token);
    expect(me.status).toBe(200);
    expect(((await me.json()) as any).merchant.id).toBe('shop_demo');
  });

  it('the answer page says the secret is shown once and is not cached', async () => {
    const b = await signedIn(DEMO);
    const { csrf } = await adminPage(b);
    const res = await b.post('/admin/shop_demo/apps', { csrf, name: 'Once', redirect_uris: 'https://once.example/cb', type: 'confidential' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toContain('shown once; only its digest is stored');
  });

  it('a public app gets no secret', async () => {
    const b = await signedIn(DEMO);
    const { res, html } = await register(b, { name: 'My SPA', redirect_uris: 'http://127.0.0.1:5555/callback', type: 'public' });
    expect(res.status).toBe(200);
    const id = codeText(html, 'client_id')!;
    expect(codeText(html, 'client_secret')).toBeUndefined();
    expect(html).toContain('PKCE');
    expect(await findRow(id)).toMatchObject({ secret_hash: null, owner_user_id: 'usr_demo_owner' });
    expect((await adminPage(b)).html).toContain('public (PKCE)');
  });

  it('invalid input is answered 422 with the errors and the values sent, and nothing is written', async () => {
    const b = await signedIn(DEMO);
    const before = await countApps();
    const uris = 'http://example.com/cb\nhttps://app.example/cb#frag\nnot a url\nftp://files.example/cb';
    const { res, html } = await register(b, { name: 'Bad <app>', redirect_uris: uris, type: 'confidential' });
    expect(res.status).toBe(422);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(html).toContain("&#39;http://example.com/cb&#39; must use https (http is allowed for loopback hosts only)");
    expect(html).toContain('must not contain a fragment');
    expect(html).toContain('is not an absolute URL');
    expect(html).toContain('uses an unsupported scheme');
    expect(html).toContain('value="Bad &lt;app&gt;"');
    expect(html).toContain('http://example.com/cb\nhttps://app.example/cb#frag');
    expect(html).not.toContain('<app>');

    for (const fields of [
      { name: '', redirect_uris: 'https://app.example/cb', type: 'confidential' },
      { name: 'No URIs', redirect_uris: '\n  \n', type: 'public' },
      { name: 'Odd type', redirect_uris: 'https://app.example/cb', type: 'hybrid' },
      { name: 'x'.repeat(101), redirect_uris: 'https://app.example/cb', type: 'public' },
    ]) {
      const r = await register(b, fields);
      expect(r.res.status, JSON.stringify(fields).slice(0, 80)).toBe(422);
    }
    expect(await countApps()).toBe(before);
  });

  it(`one account registers at most ${APP_LIMITS.perOwner} apps here (422 after that, nothing written)`, async () => {
    // A user of its own (other tests register apps as the owners): fill up directly.
    const b = await signedIn({ username: 'busy@other.localhost', password: 'busy' });
    const owner = (await s.db.selectFrom('users').select('id').where('username', '=', 'busy@other.localhost').executeTakeFirstOrThrow()).id;
    const have = (await s.db.selectFrom('oauth_clients').select('id').where('owner_user_id', '=', owner).execute()).length;
    for (let i = have; i < APP_LIMITS.perOwner; i++) {
      await registerApp(s.db, { name: `Filler ${i}`, redirectUris: ['https://app.example/cb'], confidential: false, ownerUserId: owner });
    }
    const before = await countApps();
    const { res, html } = await register(b, { name: 'One too many', redirect_uris: 'https://app.example/cb', type: 'public' }, 'shop_other');
    expect(res.status).toBe(422);
    expect(html).toContain('the most one account may register');
    expect(await countApps()).toBe(before);
    await expect(registerApp(s.db, { name: 'Direct', redirectUris: ['https://app.example/cb'], confidential: false, ownerUserId: owner })).rejects.toThrow(/the most one account/);
  });

  it('refuses a POST without or with a wrong CSRF token, or from a foreign Origin (403), and writes nothing', async () => {
    const b = await signedIn(DEMO);
    const { csrf } = await adminPage(b);
    const before = await countApps();
    const fields = { name: 'Forged', redirect_uris: 'https://evil.example/cb', type: 'confidential' };
    expect((await b.post('/admin/shop_demo/apps', fields)).status).toBe(403);
    expect((await b.post('/admin/shop_demo/apps', { ...fields, csrf: `${csrf}x` })).status).toBe(403);
    const foreign = await b.fetch('/admin/shop_demo/apps', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ ...fields, csrf }).toString(),
    });
    expect(foreign.status).toBe(403);
    // Another session's token does not fit this session.
    const other = await adminPage(await signedIn(DEMO));
    expect((await b.post('/admin/shop_demo/apps', { ...fields, csrf: other.csrf })).status).toBe(403);
    expect(await countApps()).toBe(before);
  });

  it("cannot register on another merchant's page (404)", async () => {
    const b = await signedIn(DEMO);
    const { csrf } = await adminPage(b);
    const before = await countApps();
    const r = await b.post('/admin/shop_other/apps', { csrf, name: 'Elsewhere', redirect_uris: 'https://app.example/cb', type: 'public' });
    expect(r.status).toBe(404);
    expect(await countApps()).toBe(before);
  });
});

describe('deleting apps', () => {
  it('deletes an own app and revokes its tokens; a second delete is 404', async () => {
    const b = await signedIn(DEMO);
    const app = await confidentialApp(b);
    const tokens = await tokensFor(s, 'products_read', DEMO, app);
    expect((await resource(tokens.access_token)).status).toBe(200);

    const { csrf } = await adminPage(b);
    const del = await b.post(`/admin/shop_demo/apps/${app.id}/delete`, { csrf });
    expect(del.status).toBe(303);
    expect(del.headers.get('location')).toBe('/admin/shop_demo');
    expect((await resource(tokens.access_token)).status).toBe(401);
    expect(await findRow(app.id)).toBeUndefined();
    expect(await s.db.selectFrom('oauth_tokens').select('id').where('client_id', '=', app.id).execute()).toEqual([]);
    expect(await s.db.selectFrom('oauth_codes').select('id').where('client_id', '=', app.id).execute()).toEqual([]);
    expect((await adminPage(b)).html).not.toContain(app.id);
    const refresh = await fetch(`${s.url}/oauth2/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: app.id, client_secret: app.secret }).toString(),
    });
    expect(refresh.status).toBe(400);

    const again = await b.post(`/admin/shop_demo/apps/${app.id}/delete`, { csrf });
    expect(again.status).toBe(404);
  });

  it("another user's app and apps without an owner cannot be deleted here (404); nothing is revoked", async () => {
    const owner = await signedIn(DEMO);
    const app = await confidentialApp(owner);
    const tokens = await tokensFor(s, 'products_read', DEMO, app);

    const other = await signedIn(OTHER);
    const otherCsrf = (await adminPage(other, 'shop_other')).csrf;
    expect((await other.post(`/admin/shop_other/apps/${app.id}/delete`, { csrf: otherCsrf })).status).toBe(404);
    expect((await other.post(`/admin/shop_demo/apps/${app.id}/delete`, { csrf: otherCsrf })).status).toBe(404);

    // Same merchant, another person: the app is not theirs either.
    const second = await signedIn(SECOND);
    const secondPage = await adminPage(second);
    expect(secondPage.html).not.toContain(app.id);
    expect((await second.post(`/admin/shop_demo/apps/${app.id}/delete`, { csrf: secondPage.csrf })).status).toBe(404);

    // The demo apps are listed for the demo owner (seeded ones included) but kept.
    const { csrf, html } = await adminPage(owner);
    expect(html).toContain('demo-app');
    expect(html).toContain('demo-public');
    expect(html).toContain('seeded demo app');
    expect((await owner.post('/admin/shop_demo/apps/demo-app/delete', { csrf })).status).toBe(403);
    expect(await findRow('demo-app')).toBeDefined();
    expect((await adminPage(other, 'shop_other')).html).not.toContain('demo-app');

    // Without the form token, not even the owner.
    expect((await owner.post(`/admin/shop_demo/apps/${app.id}/delete`, {})).status).toBe(403);

    expect(await findRow(app.id)).toBeDefined();
    expect((await resource(tokens.access_token)).status).toBe(200);
  });
});
