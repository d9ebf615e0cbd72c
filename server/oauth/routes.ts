/**
 * The account service on the platform address: authorization endpoint with login and consent pages,
 * token endpoint (the library, @node-oauth/oauth2-server, handles the grants), RFC 7009 revocation,
 * the resource endpoint (seed §2.1) and RFC 8414 metadata. The admin pages are in admin.ts; they share
 * this file's page helpers and the sign-in check with its failure budgets (`signIn`).
 */
import { Hono, type Context } from 'hono';
import { clientAddress, type BucketPolicy } from '../http/rate-limit.ts';
import { bucketStoreFor } from '../http/db-bucket-store.ts';
import OAuth2Server from '@node-oauth/oauth2-server';
import type { AppEnv } from '../http/env.ts';
import type { DB } from '../db/index.ts';
import { authenticateApp, findApp, findUser, verifyLogin, type OAuthApp, type User } from '../core/accounts/accounts.ts';
import { findShopById } from '../core/shops/shops.ts';
import { SCOPES, SCOPE_NAMES, parseScope } from '../core/accounts/scopes.ts';
import { nowMs } from './clock.ts';
import { textProblem } from '../../src/wire/input.ts';
import { DomainError, ERROR_CODES } from '../core/shared/errors.ts';
import { randomToken } from '../lib/crypto.ts';
import {
  ACCESS_TOKEN_LIFETIME,
  GRANTS,
  REFRESH_TOKEN_LIFETIME,
  createModel,
  heldRefreshScope,
  issueAuthorizationCode,
  revokeIssuedToken,
} from './model.ts';
import { consentPage, errorPage, loginPage } from './pages.ts';
import { authenticateBearer, issuerOf } from './bearer.ts';

export { issuerOf };
import { csrfOk, ensureSession, getSession, loginSession, type Session } from './session.ts';
import { log } from '../lib/log.ts';

const REQUEST_LIFETIME_MS = 30 * 60 * 1000;

/** The per-merchant addresses (documented in docs/oauth.md). */
export function merchantEndpoints(base: string, merchantId: string) {
  const id = encodeURIComponent(merchantId);
  return { admin: `${base}/admin/${id}`, api: `${base}/merchants/${id}` };
}

/** An HTML page of the account service: never cached, never framed, forms post only to http(s). */
export function page(c: Context<AppEnv>, html: string, status: 200 | 400 | 401 | 403 | 404 | 422 | 429 = 200) {
  c.header('Cache-Control', 'no-store');
  c.header('X-Frame-Options', 'DENY');
  c.header('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'");
  c.header('Referrer-Policy', 'no-referrer');
  return c.html(html, status);
}

function redirectWith(c: Context<AppEnv>, redirectUri: string, params: Record<string, string | null | undefined>, status: 302 | 303 = 302) {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) u.searchParams.set(k, v);
  u.searchParams.set('iss', issuerOf(c));
  c.header('Cache-Control', 'no-store');
  return c.redirect(u.href, status);
}

/** Form body as a map; a parameter sent twice is an error (RFC 6749 §3.1 / §3.2). */
export async function readForm(c: Context<AppEnv>): Promise<{ form: Record<string, string>; duplicate?: string }> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) return { form: {} };
  const params = new URLSearchParams(await c.req.text());
  // No prototype: the keys are the client's (`constructor` would look sent twice, `__proto__` would vanish).
  const form: Record<string, string> = Object.create(null);
  let duplicate: string | undefined;
  for (const [k, v] of params) {
    if (Object.hasOwn(form, k)) duplicate ??= k;
    const problem = textProblem(k) ?? textProblem(v);
    if (problem) throw new FormTextError(k, problem);
    form[k] = v;
  }
  return { form, duplicate };
}

/** A form field the store cannot accept (NUL); rendered by the platform as a 400 naming the field. */
export class FormTextError extends DomainError {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super('malformed', ERROR_CODES.invalidRequest, `The form field ${JSON.stringify(field.replace(/\0/g, '\\u0000'))} is not acceptable: ${problem}`);
  }
}

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

interface PendingRequest {
  id: string;
  clientId: string;
  redirectUri: string;
  scope: string[];
  state: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
}

async function loadPending(db: DB, id: unknown, session: Session): Promise<PendingRequest | null> {
  if (typeof id !== 'string' || !id) return null;
  const row = await db.selectFrom('oauth_requests').selectAll().where('id', '=', id).where('session_hash', '=', session.idHash).executeTakeFirst();
  if (!row || new Date(row.expires_at).getTime() <= nowMs()) return null;
  return {
    id: row.id,
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    scope: row.scope as unknown as string[],
    state: row.state,
    codeChallenge: row.code_challenge,
    codeChallengeMethod: row.code_challenge_method,
  };
}

async function renderConsent(c: Context<AppEnv>, session: Session, pending: PendingRequest) {
  const db = c.get('db');
  const [app, user] = await Promise.all([findApp(db, pending.clientId), findUser(db, session.userId!)]);
  if (!app || !user) return page(c, errorPage('Authorization failed', 'The application or account no longer exists.'), 400);
  const shop = await findShopById(db, user.merchantId);
  return page(
    c,
    consentPage({
      requestId: pending.id,
      csrf: session.csrf,
      appName: app.name,
      userName: `${user.name} (${user.username})`,
      merchantName: shop?.name ?? user.merchantId,
      scopes: pending.scope.map((s) => ({ name: s, description: SCOPES[s] })),
    }),
  );
}

const AUTHZ_PARAMS = ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method'];

/** Failed sign-ins allowed per account from one client address before throttling, and how fast the allowance returns. */
export const LOGIN_FAILURES = { capacity: 5, refillPerSecond: 1 / 60 };
/** Failed sign-ins allowed per client address (one password tried on many accounts). */
export const LOGIN_FAILURES_PER_ADDRESS = { capacity: 20, refillPerSecond: 1 / 30 };
/** Failed token requests (invalid_client, invalid_grant) allowed per client address. */
export const TOKEN_FAILURES_PER_ADDRESS = { capacity: 20, refillPerSecond: 1 / 6 };

/**
 * Failure budgets: token buckets that only failures drain, so honest traffic never pays. `wait`
 * is checked before the work (a throttled caller costs no password hashing) and answers the
 * seconds until the first exhausted budget has room again, or 0; `fail` charges one failure to
 * every budget. Buckets are shared by every process on one PostgreSQL database (bucketStoreFor).
 */
const failures = {
  async wait(db: DB, budgets: Array<[key: string, policy: BucketPolicy]>): Promise<number> {
    for (const [key, policy] of budgets) {
      const r = await bucketStoreFor(db).take(key, policy, Date.now(), 0);
      if (r.remaining < 1) return Math.ceil(1 / policy.refillPerSecond); // at most one refill period
    }
    return 0;
  },
  async fail(db: DB, budgets: Array<[key: string, policy: BucketPolicy]>): Promise<void> {
    for (const [key, policy] of budgets) await bucketStoreFor(db).take(key, policy, Date.now(), 1);
  },
};

const addressOf = (c: Context<AppEnv>) => clientAddress(c, c.get('config').trustProxy);


/**
 * The account check of every sign-in form (the authorization flow's login page and /admin).
 * Password guessing: after LOGIN_FAILURES.capacity wrong passwords for one account from one client
 * address, one more try per minute from there; password spraying: the same per client address, with
 * a larger allowance. Every budget includes the address, so nobody can lock an owner out from
 * elsewhere (docs/security.md). The budgets are checked before any password hashing; a throttled
 * answer has set Retry-After.
 */
export async function signIn(
  c: Context<AppEnv>,
  username: string,
  password: string,
): Promise<{ ok: true; user: User } | { ok: false; status: 401 | 429; error: string }> {
  const db = c.get('db');
  const budgets: Array<[string, BucketPolicy]> = [
    // Keyed by account *and* address: guessing one account is throttled where the guesses come
    // from, and the owner signing in from anywhere else is never refused because of them.
    [`login:${addressOf(c)}:${username.trim().toLowerCase()}`, LOGIN_FAILURES],
    [`login-from:${addressOf(c)}`, LOGIN_FAILURES_PER_ADDRESS],
  ];
  const wait = await failures.wait(db, budgets);
  if (wait) {
    c.header('Retry-After', String(wait));
    return { ok: false, status: 429, error: `Too many failed sign-ins. Try again in ${wait} seconds.` };
  }
  const user = await verifyLogin(db, username, password);
  if (!user) {
    await failures.fail(db, budgets);
    return { ok: false, status: 401, error: 'Wrong e-mail or password.' };
  }
  return { ok: true, user };
}

/** The account service's routes, one group per job (each below). */
export function oauthRoutes() {
  const r = new Hono<AppEnv>();
  metadataRoute(r);
  authorizationRoutes(r);
  tokenRoutes(r);
  userinfoRoute(r);
  return r;
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

/** RFC 8414 authorization server metadata. */
function metadataRoute(r: Hono<AppEnv>): void {
  r.get('/.well-known/oauth-authorization-server', (c) => {
    const iss = issuerOf(c);
    // A configured issuer is the same for everyone; one that follows Host is nobody else's to cache.
    c.header('Cache-Control', c.get('config').authUrl ? 'public, max-age=300' : 'no-store');
    return c.json({
      issuer: iss,
      authorization_endpoint: `${iss}/oauth2/authorize`,
      token_endpoint: `${iss}/oauth2/access_token`,
      revocation_endpoint: `${iss}/oauth2/revoke`,
      userinfo_endpoint: `${iss}/oauth2/resource`,
      scopes_supported: SCOPE_NAMES,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${iss}/docs/oauth.md`,
    });
  });
}

/** The authorization code flow a person walks through: authorize, sign in, consent (PKCE, exact redirect URIs). */
function authorizationRoutes(r: Hono<AppEnv>): void {
  r.get('/oauth2/authorize', authorize);
  loginRoute(r);
  consentRoutes(r);
}

/**
 * The checks that must pass before any error may be redirected: client_id names an app and
 * redirect_uri is one it registered. Else an error page, and nothing is redirected anywhere.
 */
async function checkClient(c: Context<AppEnv>, q: URLSearchParams, dup: string | undefined) {
  const clientId = q.get('client_id');
  const redirectUri = q.get('redirect_uri');
  if (dup === 'client_id' || dup === 'redirect_uri') return page(c, errorPage('Invalid request', `The parameter ${dup} was sent more than once.`), 400);
  if (!clientId) return page(c, errorPage('Invalid request', 'The client_id parameter is missing.'), 400);
  const app = await findApp(c.get('db'), clientId);
  if (!app) return page(c, errorPage('Unknown application', 'No application is registered with this client_id.'), 400);
  if (!redirectUri) return page(c, errorPage('Invalid request', 'The redirect_uri parameter is missing.'), 400);
  if (!app.redirectUris.includes(redirectUri)) {
    return page(c, errorPage('Invalid redirect URI', 'The redirect_uri is not registered for this application.'), 400);
  }
  return { app, redirectUri };
}

/**
 * The rest of the authorization request (RFC 6749 §4.1.1, PKCE RFC 7636): the first problem as an
 * [error, description] pair to redirect back, or the scope and code challenge it asks for.
 */
function checkAuthorizationRequest(
  q: URLSearchParams,
  app: OAuthApp,
  dup: string | undefined,
): { problem: [error: string, description: string] } | { scope: string[]; challenge: string | null } {
  if (dup) return { problem: ['invalid_request', `The parameter ${dup} was sent more than once.`] };
  const responseType = q.get('response_type');
  if (!responseType) return { problem: ['invalid_request', 'The response_type parameter is missing.'] };
  if (responseType !== 'code') return { problem: ['unsupported_response_type', 'Only response_type=code is supported.'] };
  const scope = parseScope(q.get('scope'));
  if (!scope.ok) {
    return { problem: ['invalid_scope', scope.unknown.length ? `Unknown scope: ${scope.unknown.join(' ')}` : 'The scope parameter is missing.'] };
  }
  const challenge = q.get('code_challenge');
  const method = q.get('code_challenge_method');
  if (challenge !== null || method !== null) {
    if (method !== 'S256') return { problem: ['invalid_request', 'code_challenge_method must be S256 (plain is not accepted).'] };
    if (!challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      return { problem: ['invalid_request', 'code_challenge must be a base64url SHA-256 digest (43 characters).'] };
    }
  } else if (!app.confidential) {
    return { problem: ['invalid_request', 'Public clients must use PKCE (code_challenge with code_challenge_method=S256).'] };
  }
  return { scope: scope.scopes, challenge };
}

/** Stores a checked request for this browser session: the login and consent forms name it by id. */
async function savePending(db: DB, session: Session, pending: PendingRequest): Promise<void> {
  await db
    .insertInto('oauth_requests')
    .values({
      id: pending.id,
      session_hash: session.idHash,
      client_id: pending.clientId,
      redirect_uri: pending.redirectUri,
      scope: JSON.stringify(pending.scope),
      state: pending.state,
      code_challenge: pending.codeChallenge,
      code_challenge_method: pending.codeChallengeMethod,
      expires_at: new Date(nowMs() + REQUEST_LIFETIME_MS),
    })
    .execute();
}

/** GET /oauth2/authorize: checks the request, keeps it, and shows the login page or, when signed in, the consent page. */
async function authorize(c: Context<AppEnv>) {
  const q = new URL(c.req.url).searchParams;
  const dup = AUTHZ_PARAMS.find((k) => q.getAll(k).length > 1);
  const client = await checkClient(c, q, dup);
  if (client instanceof Response) return client;
  const { app, redirectUri } = client;
  const state = q.get('state');
  const asked = checkAuthorizationRequest(q, app, dup);
  if ('problem' in asked) {
    const [error, description] = asked.problem;
    return redirectWith(c, redirectUri, { error, error_description: description, state });
  }
  const session = await ensureSession(c);
  const pending: PendingRequest = {
    id: randomToken(18),
    clientId: app.id,
    redirectUri,
    scope: asked.scope,
    state,
    codeChallenge: asked.challenge,
    codeChallengeMethod: asked.challenge ? 'S256' : null,
  };
  await savePending(c.get('db'), session, pending);
  if (!session.userId) return page(c, loginPage({ requestId: pending.id, csrf: session.csrf, appName: app.name }));
  return renderConsent(c, session, pending);
}

const expiredRequest = (c: Context<AppEnv>) =>
  page(c, errorPage('Session expired', 'This authorization request expired. Start again from the application.'), 400);

/** The login page's form: signs the session in and goes on to consent. */
function loginRoute(r: Hono<AppEnv>): void {
  r.post('/oauth2/login', async (c) => {
    const db = c.get('db');
    const session = await getSession(c);
    const { form } = await readForm(c);
    if (!session || !csrfOk(c, session, form.csrf)) return page(c, errorPage('Session expired', 'Your sign-in form expired. Start again from the application.'), 403);
    const pending = await loadPending(db, form.request, session);
    if (!pending) return expiredRequest(c);
    const signedIn = await signIn(c, form.username ?? '', form.password ?? '');
    if (!signedIn.ok) {
      const app = await findApp(db, pending.clientId);
      return page(c, loginPage({ requestId: pending.id, csrf: session.csrf, appName: app?.name ?? '', error: signedIn.error, username: form.username }), signedIn.status);
    }
    await loginSession(c, session, signedIn.user.id);
    c.header('Cache-Control', 'no-store');
    return c.redirect(`/oauth2/consent?request=${encodeURIComponent(pending.id)}`, 303);
  });
}

/** The consent page and its answer: one decision per request; allow issues a code, deny redirects access_denied. */
function consentRoutes(r: Hono<AppEnv>): void {
  r.get('/oauth2/consent', async (c) => {
    const session = await getSession(c);
    if (!session?.userId) return page(c, errorPage('Not signed in', 'Start again from the application.'), 401);
    const pending = await loadPending(c.get('db'), c.req.query('request'), session);
    if (!pending) return expiredRequest(c);
    return renderConsent(c, session, pending);
  });

  r.post('/oauth2/consent', async (c) => {
    const db = c.get('db');
    const session = await getSession(c);
    const { form } = await readForm(c);
    if (!session?.userId || !csrfOk(c, session, form.csrf)) return page(c, errorPage('Session expired', 'Your consent form expired. Start again from the application.'), 403);
    const pending = await loadPending(db, form.request, session);
    if (!pending) return expiredRequest(c);
    if (form.decision !== 'allow' && form.decision !== 'deny') return page(c, errorPage('Invalid request', 'Choose Allow or Deny.'), 400);
    // One decision per request.
    const del = await db.deleteFrom('oauth_requests').where('id', '=', pending.id).executeTakeFirst();
    if (Number(del.numDeletedRows) === 0) return page(c, errorPage('Already answered', 'This request was already answered.'), 400);
    if (form.decision === 'deny') {
      return redirectWith(c, pending.redirectUri, { error: 'access_denied', error_description: 'The user denied the request.', state: pending.state }, 303);
    }
    const code = await issueAuthorizationCode(db, {
      clientId: pending.clientId,
      userId: session.userId,
      redirectUri: pending.redirectUri,
      scope: pending.scope,
      codeChallenge: pending.codeChallenge,
      codeChallengeMethod: pending.codeChallengeMethod,
    });
    return redirectWith(c, pending.redirectUri, { code, state: pending.state }, 303);
  });
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
function tokenRoutes(r: Hono<AppEnv>): void {
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

/** Who the token belongs to, and where their merchant API and admin are. */
function userinfoRoute(r: Hono<AppEnv>): void {
  r.get('/oauth2/resource', async (c) => {
    const auth = await authenticateBearer(c);
    if (!auth.ok) return auth.response;
    const db = c.get('db');
    const user = await findUser(db, auth.token.userId);
    const shop = user ? await findShopById(db, user.merchantId) : null;
    if (!user || !shop) return c.json({ error: { code: 'not_found', message: 'The account no longer exists.' } }, 404);
    const endpoints = merchantEndpoints(issuerOf(c), shop.id);
    c.header('Cache-Control', 'no-store');
    return c.json({
      id: user.id,
      username: user.username,
      name: user.name,
      merchant: { id: shop.id, name: shop.name, endpoints },
      merchant_name: shop.name,
      admin_endpoint: endpoints.admin,
      api_endpoint: endpoints.api,
    });
  });
}
