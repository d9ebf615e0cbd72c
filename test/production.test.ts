/**
 * Production defaults (issue 29): a key encryption secret or no start; AUTH_URL for every platform
 * URL the server serves, whatever the Host header says; `Secure` cookies whenever the public
 * origin is https (also when TLS ends at a proxy and the request we see is plain http); no demo-only
 * page; `/admin/` works. The real start command (exit 2, the banner) is in test/shutdown.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { Browser, hidden } from './support/oauth.ts';
import { checkConfig, DEVELOPMENT_KEY_ENCRYPTION_SECRET, loadConfig } from '../server/config.ts';

const AUTH_URL = 'https://accounts.example.com';

/** Hosts and spellings of public/agent/ (issue 47: it was served on every host, fixtures included). */
const AGENT_PROBE_HOSTS = ['demo.localhost', 'other.localhost', 'localhost', '127.0.0.1', 'agent.localhost', 'evil.localhost', 'evil.example', 'platform.example'];
const AGENT_PROBE_PATHS = ['/agent/', '/agent/index.html', '/agent/agent.js', '/agent/forge.html', '/agent/forge.js', '/agent/frame.html', '/agent/frame.js', '/agent/agent.css', '/%61gent/forge.html', '/agent%2fforge.html', '/agent%252fforge.html', '/x/../agent/forge.html', '/Agent/forge.html', '/agent\\forge.html'];
/** Text of public/agent/'s files. */
const AGENT_FILE_TEXT = /Demo agent|test fixture|ucp:cart:|forgedCart|Framed cart/i;
const SECRET = 'k'.repeat(44);

describe('KEY_ENCRYPTION_SECRET', () => {
  it('production refuses to start without one, with a short one or with the development one; development runs on its own', async () => {
    const prod = { NODE_ENV: 'production', AUTH_URL };
    expect(() => checkConfig(loadConfig(prod))).toThrow(/KEY_ENCRYPTION_SECRET is required in production.*openssl rand -base64 32/);
    expect(() => checkConfig(loadConfig({ ...prod, KEY_ENCRYPTION_SECRET: 'x'.repeat(31) }))).toThrow(/at least 32 characters.*\(got 31 characters\)/);
    expect(() => checkConfig(loadConfig({ ...prod, KEY_ENCRYPTION_SECRET: DEVELOPMENT_KEY_ENCRYPTION_SECRET }))).toThrow(/not the development secret/);
    expect(() => checkConfig(loadConfig({ ...prod, KEY_ENCRYPTION_SECRET: SECRET }))).not.toThrow();
    expect(() => checkConfig(loadConfig({}))).not.toThrow();
    await expect(startTestServer({ mode: 'production', keyEncryptionSecret: undefined })).rejects.toThrow(/KEY_ENCRYPTION_SECRET is required in production/);
  });
});

describe('a production server behind a proxy that ends TLS (AUTH_URL https, plain http inside)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ mode: 'production', authUrl: AUTH_URL, keyEncryptionSecret: SECRET, seedDemo: true });
  });
  afterAll(() => s.close());

  it('the merchant OpenAPI names AUTH_URL for servers, authorizationUrl and tokenUrl, whatever Host says', async () => {
    expect((await s.req('evil.example', 'GET', '/merchants/shop_demo/3.0/openapi.json')).status).toBe(421); // a stranger's Host: test/platform-hosts.test.ts
    const r = await s.req('127.0.0.1', 'GET', '/merchants/shop_demo/3.0/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.servers[0].url).toBe(`${AUTH_URL}/merchants/shop_demo`);
    const flow = r.body.components.securitySchemes.oauth2.flows.authorizationCode;
    expect([flow.authorizationUrl, flow.tokenUrl, flow.refreshUrl]).toEqual([`${AUTH_URL}/oauth2/authorize`, `${AUTH_URL}/oauth2/access_token`, `${AUTH_URL}/oauth2/access_token`]);
    expect(r.text).not.toContain('evil.example');
  });

  it('the platform front page links AUTH_URL and the shops\' https domains, never the Host it was asked on', async () => {
    const r = await s.req('127.0.0.1', 'GET', '/');
    expect(r.status).toBe(200);
    expect(r.text).toContain(`${AUTH_URL}/merchants/shop_demo/3.0/openapi.json`);
    expect(r.text).toContain('https://demo.localhost/.well-known/ucp');
    expect(r.text).not.toMatch(/127\.0\.0\.1|agent\.localhost/);
  });

  it('the session cookie is Secure although the request came in over http', async () => {
    const r = await s.req('localhost', 'GET', '/admin');
    expect(r.status).toBe(200);
    const cookie = String(r.headers['set-cookie']);
    expect(cookie).toMatch(/^oauth_session=/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; HttpOnly/);
  });

  it('serves no demo-only page: the demo agent\'s origin is not served', async () => {
    const page = await s.req('agent.localhost', 'GET', '/');
    expect(page.text).not.toContain('Demo agent');
    const profile = await s.req('agent.localhost', 'GET', '/.well-known/ucp');
    expect(profile.status).toBe(404);
    const forge = await s.req('agent.localhost', 'GET', '/forge.html');
    expect(forge.status).toBe(421); // names no shop, and is not a host the platform answers on
  });

  it('public/agent/* is served on no host, however the path is spelled (issue 47)', async () => {
    expect((await s.req('demo.localhost', 'GET', '/storefront.css')).status).toBe(200); // public/ itself still is
    for (const host of AGENT_PROBE_HOSTS) {
      for (const path of AGENT_PROBE_PATHS) {
        const r = await s.req(host, 'GET', path);
        expect(r.status, `${host}${path}`).not.toBe(200);
        expect(r.text, `${host}${path}`).not.toMatch(AGENT_FILE_TEXT);
      }
    }
  });

  it('no header names an origin derived from the Host header', async () => {
    for (const host of ['evil.example', 'www.evil.example', 'agent.evil.example', 'evil.localhost', 'agent.localhost']) {
      for (const path of ['/', '/agent/', '/agent/index.html', '/index.html', '/storefront.css', '/cart/x', '/.well-known/ucp']) {
        const r = await s.req(host, 'GET', path);
        expect(JSON.stringify(r.headers), `${host}${path}`).not.toMatch(/demo\.(evil\.)?example/);
      }
    }
    // A shop on a sibling name (other.localhost): nothing of demo.localhost in its answers' headers.
    for (const path of ['/', '/agent/', '/agent/index.html', '/agent/frame.html', '/storefront.css', '/products/x']) {
      const r = await s.req('other.localhost', 'GET', path);
      expect(JSON.stringify(r.headers), path).not.toContain('demo.localhost');
    }
  });

  it('/admin/ with a trailing slash goes to /admin (relative, so the proxy\'s scheme and host stay)', async () => {
    const r = await s.req('localhost', 'GET', '/admin/?from=bookmark');
    expect(r.status).toBe(301);
    expect(r.headers.location).toBe('/admin?from=bookmark');
  });
});

describe('development', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  it('public/agent/* only on agent.localhost and the fixtures\' evil.localhost; the agent pages\' origins are fixed names on the socket\'s port', async () => {
    for (const host of AGENT_PROBE_HOSTS.filter((h) => h !== 'agent.localhost' && h !== 'evil.localhost')) {
      for (const path of AGENT_PROBE_PATHS) {
        const r = await s.req(host, 'GET', path);
        expect(r.status, `${host}${path}`).not.toBe(200);
        expect(r.text, `${host}${path}`).not.toMatch(AGENT_FILE_TEXT);
      }
    }
    // Whatever port or name the Host header claims, the shop origin is demo.localhost on the port the server listens on.
    const page = await s.req('agent.localhost', 'GET', '/', undefined, { host: 'agent.localhost:9999' });
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain(`script-src 'self' 'nonce-`);
    expect(csp).toContain(`http://demo.localhost:${s.port}`);
    expect(csp).not.toContain('9999');
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toMatch(/frame-ancestors[^;]*http:/);
    // The fixtures' hostile origin may be framed by the agent page only.
    const forge = await s.req('evil.localhost', 'GET', '/forge.html');
    expect(forge.status).toBe(200);
    expect(String(forge.headers['content-security-policy'])).toContain(`frame-ancestors http://agent.localhost:${s.port}`);
    expect((await s.req('evil.localhost', 'GET', '/.well-known/ucp')).status).toBe(404); // the profile is the agent's only
  });

  it('plain http without AUTH_URL: no Secure flag (the browser would drop the cookie); the demo agent is served', async () => {
    const r = await s.req('localhost', 'GET', '/admin');
    expect(String(r.headers['set-cookie'])).not.toMatch(/Secure/);
    expect((await s.req('agent.localhost', 'GET', '/')).text).toContain('Demo agent');
    expect((await s.req('localhost', 'GET', '/admin/')).headers.location).toBe('/admin');
  });
});

describe('development with an https AUTH_URL (a tunnel or proxy in front)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ authUrl: AUTH_URL });
  });
  afterAll(() => s.close());

  it('cookies are Secure, and a sign-in posted from the public origin passes the Origin check', async () => {
    const b = new Browser(`http://127.0.0.1:${s.port}`, { host: `localhost:${s.port}` });
    const form = await b.fetch('/admin');
    expect(form.headers.getSetCookie().join()).toMatch(/; Secure/);
    const csrf = hidden(await form.text(), 'csrf');
    const signIn = await b.fetch('/admin/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: AUTH_URL },
      body: new URLSearchParams({ csrf, username: 'owner@demo.localhost', password: 'demo' }).toString(),
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/admin/shop_demo');
    // Another origin is still refused.
    const foreign = await b.fetch('/admin/logout', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' }, body: new URLSearchParams({ csrf }).toString() });
    expect(foreign.status).not.toBe(303);
  });
});
