/**
 * The authorization code flow a person walks through (RFC 6749 §4.1, PKCE RFC 7636): GET
 * /oauth2/authorize checks the request and keeps it for the browser's session, the login page signs
 * the session in, the consent page answers with a code or access_denied at the app's redirect URI.
 */
import type { Context, Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import type { DB } from '../db/index.ts';
import { findApp, findUser, type OAuthApp } from '../core/accounts/accounts.ts';
import { findShopById } from '../core/shops/shops.ts';
import { SCOPES, parseScope } from '../core/accounts/scopes.ts';
import { nowMs } from './clock.ts';
import { randomToken } from '../lib/crypto.ts';
import { issueAuthorizationCode } from './model.ts';
import { consentPage, errorPage, loginPage } from './pages.ts';
import { issuerOf } from './bearer.ts';
import { csrfOk, ensureSession, getSession, loginSession, type Session } from './session.ts';
import { page, readForm } from './web.ts';
import { signIn } from './budgets.ts';

const REQUEST_LIFETIME_MS = 30 * 60 * 1000;

function redirectWith(c: Context<AppEnv>, redirectUri: string, params: Record<string, string | null | undefined>, status: 302 | 303 = 302) {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) u.searchParams.set(k, v);
  u.searchParams.set('iss', issuerOf(c));
  c.header('Cache-Control', 'no-store');
  return c.redirect(u.href, status);
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


/** The authorization code flow a person walks through: authorize, sign in, consent (PKCE, exact redirect URIs). */
export function authorizationRoutes(r: Hono<AppEnv>): void {
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
