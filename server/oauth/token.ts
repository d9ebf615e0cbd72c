/**
 * The token endpoint (both grants through @node-oauth/oauth2-server, failures budgeted per client
 * address) and RFC 7009 revocation.
 */
import type { Context, Hono } from 'hono';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { BucketPolicy } from '../http/rate-limit.ts';
import type { AppEnv } from '../http/env.ts';
import type { DB } from '../db/index.ts';
import { authenticateApp } from '../core/accounts/accounts.ts';
import { ACCESS_TOKEN_LIFETIME, GRANTS, REFRESH_TOKEN_LIFETIME, createModel, heldRefreshScope, revokeIssuedToken } from './model.ts';
import { issuerOf } from './bearer.ts';
import { readForm } from './web.ts';
import { TOKEN_FAILURES_PER_ADDRESS, addressOf, failures } from './budgets.ts';
import { log } from '../lib/log.ts';

function oauthError(c: Context<AppEnv>, status: 400 | 401 | 429, error: string, description: string, headers: Record<string, string> = {}) {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  return c.json({ error, error_description: description }, status);
}

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1, form-encoded parts) or the body. */
function clientCredentials(c: Context<AppEnv>, form: Record<string, string>): { id?: string; secret?: string; basic: boolean } | null {
  const h = c.req.header('authorization');
  if (h && /^Basic /i.test(h)) {
    let decoded: string;
    try {
      decoded = Buffer.from(h.slice(6).trim(), 'base64').toString('utf8');
    } catch {
      return null;
    }
    const i = decoded.indexOf(':');
    if (i < 0) return null;
    const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    try {
      return { id: dec(decoded.slice(0, i)), secret: dec(decoded.slice(i + 1)), basic: true };
    } catch {
      return null;
    }
  }
  return { id: form.client_id, secret: form.client_secret, basic: false };
}

/** One @node-oauth/oauth2-server per database (the library holds its model). */
const servers = new WeakMap<DB, OAuth2Server>();
function libraryFor(db: DB): OAuth2Server {
  let s = servers.get(db);
  if (!s) {
    s = new OAuth2Server({
      model: createModel(db),
      accessTokenLifetime: ACCESS_TOKEN_LIFETIME,
      refreshTokenLifetime: REFRESH_TOKEN_LIFETIME,
      // Public clients authenticate with PKCE only; the model still demands the secret of confidential ones.
      requireClientAuthentication: { authorization_code: false, refresh_token: false },
      alwaysIssueNewRefreshToken: true,
      allowBearerTokensInQueryString: false,
    });
    servers.set(db, s);
  }
  return s;
}

/**
 * The token request's client authentication: HTTP Basic credentials are form-encoded (RFC 6749
 * §2.3.1), so they are decoded here and handed to the library as body parameters (it does not
 * decode). An error answer, or whether Basic was used (a failure is then 401 + challenge).
 */
function basicIntoForm(c: Context<AppEnv>, form: Record<string, string>): Response | { basic: boolean } {
  const creds = clientCredentials(c, form);
  if (!creds) return oauthError(c, 401, 'invalid_client', 'Malformed HTTP Basic credentials.', { 'WWW-Authenticate': `Basic realm="${issuerOf(c)}"` });
  if (creds.basic) {
    if (form.client_secret !== undefined || (form.client_id !== undefined && form.client_id !== creds.id)) {
      return oauthError(c, 400, 'invalid_request', 'Use one client authentication method, not several.');
    }
    form.client_id = creds.id ?? '';
    form.client_secret = creds.secret ?? '';
  }
  return { basic: creds.basic };
}

/**
 * The library rotates a refresh token before it checks the requested scope; a request for more
 * than was granted is refused here first (400 invalid_scope), so the refused refresh leaves the grant untouched.
 */
async function widerRefreshScope(c: Context<AppEnv>, form: Record<string, string>): Promise<Response | null> {
  if (form.grant_type !== 'refresh_token' || !form.scope || !form.refresh_token) return null;
  const app = await authenticateApp(c.get('db'), form.client_id ?? '', form.client_secret);
  const held = app ? await heldRefreshScope(c.get('db'), app.id, form.refresh_token) : null;
  const asked = form.scope.split(' ').filter(Boolean);
  if (!held || asked.every((s) => held.includes(s))) return null;
  return oauthError(c, 400, 'invalid_scope', `A refresh may narrow the scope, never widen it: this grant holds "${held.join(' ')}".`);
}

/** Runs the grant through the library; its RFC 6749 §5.1/§5.2 answer is in the returned response. */
async function libraryToken(c: Context<AppEnv>, form: Record<string, string>): Promise<OAuth2Server.Response> {
  const headers: Record<string, string> = {};
  c.req.raw.headers.forEach((v, k) => (k === 'authorization' ? undefined : (headers[k] = v)));
  headers['content-length'] = String(Buffer.byteLength(new URLSearchParams(form).toString()));
  const request = new OAuth2Server.Request({ method: 'POST', headers, query: {}, body: form });
  const response = new OAuth2Server.Response({ headers: {} });
  try {
    await libraryFor(c.get('db')).token(request, response);
  } catch {
    // The library has put the RFC 6749 §5.2 error into `response`.
  }
  return response;
}

/** POST /oauth2/access_token: both grants (codes and refresh tokens), failures budgeted per client address. */
async function tokenEndpoint(c: Context<AppEnv>) {
  const { form, duplicate } = await readForm(c);
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(c.req.header('content-type') ?? '')) {
    return oauthError(c, 400, 'invalid_request', 'Send the token request as application/x-www-form-urlencoded.');
  }
  if (duplicate) return oauthError(c, 400, 'invalid_request', `The parameter ${duplicate} was sent more than once.`);
  if (form.grant_type && !GRANTS.includes(form.grant_type)) {
    return oauthError(c, 400, 'unsupported_grant_type', 'Supported grants: authorization_code, refresh_token.');
  }
  const auth = basicIntoForm(c, form);
  if (auth instanceof Response) return auth;
  // Guessing codes, refresh tokens or client secrets: failures are budgeted per client address.
  const budgets: Array<[string, BucketPolicy]> = [[`token-from:${addressOf(c)}`, TOKEN_FAILURES_PER_ADDRESS]];
  const wait = await failures.wait(c.get('db'), budgets);
  if (wait) return oauthError(c, 429, 'temporarily_unavailable', `Too many failed token requests from this address. Retry after ${wait} seconds.`, { 'Retry-After': String(wait) });
  const wider = await widerRefreshScope(c, form);
  if (wider) return wider;
  const response = await libraryToken(c, form);
  const body = (response.body ?? {}) as Record<string, unknown>;
  if (body.access_token) body.expires_in = ACCESS_TOKEN_LIFETIME;
  for (const [k, v] of Object.entries(response.headers ?? {})) c.header(k, String(v));
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  let status = (response.status ?? 500) as 200 | 400 | 401 | 500 | 503;
  if (auth.basic && body.error === 'invalid_client') {
    status = 401;
    c.header('WWW-Authenticate', `Basic realm="${issuerOf(c)}"`);
  }
  if (body.error === 'invalid_client' || body.error === 'invalid_grant') await failures.fail(c.get('db'), budgets);
  if (status === 503) c.header('Retry-After', '2'); // the library's server_error (database unreachable)
  if (status >= 500) log.error('oauth', 'token endpoint failure', { body });
  return c.json(body, status);
}

/** The token endpoint and RFC 7009 revocation. */
export function tokenRoutes(r: Hono<AppEnv>): void {
  r.post('/oauth2/access_token', tokenEndpoint);

  r.post('/oauth2/revoke', async (c) => {
    const { form } = await readForm(c);
    const creds = clientCredentials(c, form);
    const app = creds?.id ? await authenticateApp(c.get('db'), creds.id, creds.secret) : null;
    if (!app) {
      return oauthError(c, 401, 'invalid_client', 'Client authentication failed.', creds?.basic ? { 'WWW-Authenticate': `Basic realm="${issuerOf(c)}"` } : {});
    }
    if (!form.token) return oauthError(c, 400, 'invalid_request', 'The token parameter is missing.');
    await revokeIssuedToken(c.get('db'), app.id, form.token, form.token_type_hint);
    c.header('Cache-Control', 'no-store');
    return c.body(null, 200);
  });
}
