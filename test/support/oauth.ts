/** Drives the account service like a browser (login + consent forms), for the OAuth and merchant API tests. */
import * as oauth from 'oauth4webapi';
import type { TestServer } from './server.ts';

export const REDIRECT = 'http://127.0.0.1:5555/callback';
export const opts = { [oauth.allowInsecureRequests]: true } as const;

export class Browser {
  cookie = '';
  /** `headers` go with every request (e.g. X-Forwarded-For behind a trusted proxy). */
  constructor(
    readonly base: string,
    readonly headers: Record<string, string> = {},
  ) {}

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(new URL(path, this.base), {
      ...init,
      redirect: 'manual',
      headers: { ...this.headers, ...(init.headers as Record<string, string>), ...(this.cookie ? { cookie: this.cookie } : {}) },
    });
    const set = res.headers.getSetCookie();
    for (const c of set) if (c.startsWith('oauth_session=')) this.cookie = c.split(';')[0];
    return res;
  }

  async post(path: string, form: Record<string, string>): Promise<Response> {
    return this.fetch(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  }
}

export function hidden(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`no hidden field ${name} in ${html.slice(0, 300)}`);
  return m[1];
}

export interface AuthorizeParams {
  client_id: string;
  scope: string;
  state?: string;
  redirect_uri?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  response_type?: string;
}

/** Runs authorize -> login -> consent and returns the final redirect (Location) URL. */
export async function authorizeInBrowser(
  s: TestServer,
  p: AuthorizeParams,
  o: { username?: string; password?: string; decision?: 'allow' | 'deny'; browser?: Browser } = {},
): Promise<URL> {
  const b = o.browser ?? new Browser(s.url);
  const q = new URLSearchParams({ response_type: 'code', redirect_uri: REDIRECT, ...p } as Record<string, string>);
  let res = await b.fetch(`/oauth2/authorize?${q}`);
  if (res.status === 302) return new URL(res.headers.get('location')!);
  let html = await res.text();
  if (res.status !== 200) throw new Error(`authorize: ${res.status} ${html.slice(0, 200)}`);
  if (html.includes('name="password"')) {
    res = await b.post('/oauth2/login', {
      csrf: hidden(html, 'csrf'),
      request: hidden(html, 'request'),
      username: o.username ?? 'owner@demo.localhost',
      password: o.password ?? 'demo',
    });
    if (res.status !== 303) throw new Error(`login: ${res.status}`);
    res = await b.fetch(res.headers.get('location')!);
    html = await res.text();
  }
  res = await b.post('/oauth2/consent', { csrf: hidden(html, 'csrf'), request: hidden(html, 'request'), decision: o.decision ?? 'allow' });
  if (res.status !== 303) throw new Error(`consent: ${res.status} ${await res.text()}`);
  return new URL(res.headers.get('location')!);
}

export async function discover(s: TestServer): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(s.url);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...opts }));
}

/** A confidential app: the demo app unless the test registered its own. */
export interface ConfidentialApp {
  id: string;
  secret: string;
  redirectUri: string;
}
const DEMO_APP: ConfidentialApp = { id: 'demo-app', secret: 'demo-secret', redirectUri: REDIRECT };

/** A full confidential-client flow; returns the token response. */
export async function tokensFor(
  s: TestServer,
  scope: string,
  user: { username: string; password: string } = { username: 'owner@demo.localhost', password: 'demo' },
  app: ConfidentialApp = DEMO_APP,
) {
  const as = await discover(s);
  const client: oauth.Client = { client_id: app.id };
  const state = oauth.generateRandomState();
  const verifier = oauth.generateRandomCodeVerifier();
  const challenge = await oauth.calculatePKCECodeChallenge(verifier);
  const cb = await authorizeInBrowser(s, { client_id: app.id, redirect_uri: app.redirectUri, scope, state, code_challenge: challenge, code_challenge_method: 'S256' }, user);
  const params = oauth.validateAuthResponse(as, client, cb, state);
  const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretPost(app.secret), params, app.redirectUri, verifier, opts);
  return oauth.processAuthorizationCodeResponse(as, client, res);
}
