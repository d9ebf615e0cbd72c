/**
 * Browser sessions of the account service: a random id in an `HttpOnly; SameSite=Lax` cookie
 * (`Secure` behind https), its sha256 stored in `oauth_sessions` with a CSRF token. Logging in
 * replaces the session id (no fixation). Forms carry the CSRF token; POSTs also check Origin.
 */
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AppEnv } from '../http/env.ts';
import { provenance } from '../http/origin.ts';
import { nowMs } from './clock.ts';
import { issuerOf } from './bearer.ts';
import { randomToken, safeEqual, sha256 } from '../lib/crypto.ts';

export const SESSION_COOKIE = 'oauth_session';
const SESSION_LIFETIME_MS = 12 * 3600 * 1000;

export interface Session {
  idHash: string;
  userId: string | null;
  csrf: string;
}

export async function getSession(c: Context<AppEnv>): Promise<Session | null> {
  const id = getCookie(c, SESSION_COOKIE);
  if (!id || id.length > 100) return null;
  const row = await c.get('db').selectFrom('oauth_sessions').selectAll().where('id_hash', '=', sha256(id)).executeTakeFirst();
  if (!row || new Date(row.expires_at).getTime() <= nowMs()) return null;
  return { idHash: row.id_hash, userId: row.user_id, csrf: row.csrf };
}

/**
 * The platform's public origin: AUTH_URL's when set (always in production), else the request's.
 * Behind a proxy that ends TLS the request we see is plain http while the browser is on https.
 */
const publicOrigin = (c: Context<AppEnv>) => new URL(issuerOf(c)).origin;

/** `Secure` whenever the public origin is https (issue 29: it followed the inner http request). */
const cookieOptions = (c: Context<AppEnv>) => ({ path: '/', httpOnly: true, sameSite: 'Lax' as const, secure: publicOrigin(c).startsWith('https:') || c.get('origin').startsWith('https:') });

async function createSession(c: Context<AppEnv>, userId: string | null): Promise<Session> {
  const id = randomToken(32);
  const s: Session = { idHash: sha256(id), userId, csrf: randomToken(24) };
  await c
    .get('db')
    .insertInto('oauth_sessions')
    .values({ id_hash: s.idHash, user_id: userId, csrf: s.csrf, expires_at: new Date(nowMs() + SESSION_LIFETIME_MS) })
    .execute();
  setCookie(c, SESSION_COOKIE, id, { ...cookieOptions(c), maxAge: SESSION_LIFETIME_MS / 1000 });
  return s;
}

export async function ensureSession(c: Context<AppEnv>): Promise<Session> {
  return (await getSession(c)) ?? createSession(c, null);
}

/** Signs the user in under a fresh session id; pending authorization requests move along. */
export async function loginSession(c: Context<AppEnv>, old: Session, userId: string): Promise<Session> {
  const db = c.get('db');
  const fresh = await createSession(c, userId);
  await db.updateTable('oauth_requests').set({ session_hash: fresh.idHash }).where('session_hash', '=', old.idHash).execute();
  await db.deleteFrom('oauth_sessions').where('id_hash', '=', old.idHash).execute();
  return fresh;
}

/** Signs out: the session row (and its pending authorization requests) go, the cookie is cleared. */
export async function endSession(c: Context<AppEnv>, session: Session): Promise<void> {
  const db = c.get('db');
  await db.deleteFrom('oauth_requests').where('session_hash', '=', session.idHash).execute();
  await db.deleteFrom('oauth_sessions').where('id_hash', '=', session.idHash).execute();
  deleteCookie(c, SESSION_COOKIE, cookieOptions(c));
}

/**
 * True when the form's token matches the session's and the browser does not say the form came from
 * another origin (an opaque `Origin: null` is left to the token).
 */
export function csrfOk(c: Context<AppEnv>, session: Session, token: unknown): boolean {
  if (provenance(c.req, [c.get('origin'), publicOrigin(c)]) === 'foreign') return false;
  return typeof token === 'string' && safeEqual(token, session.csrf);
}
