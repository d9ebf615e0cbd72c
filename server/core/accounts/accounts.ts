/**
 * Users (who log in to the account service, each owning one merchant = one shop) and the OAuth apps
 * (clients) registered against it. Passwords are scrypt hashes, client secrets sha256 digests
 * compared in constant time.
 */
import { z } from 'zod';
import type { DB } from '../../db/index.ts';
import { DUMMY_PASSWORD_HASH, hashPassword, randomToken, safeEqual, sha256, verifyPassword } from '../../lib/crypto.ts';

export interface User {
  id: string;
  username: string;
  name: string;
  merchantId: string;
  /** Creates owners for any shop from /admin (`owners create --platform-admin`). */
  platformAdmin: boolean;
}

export interface OAuthApp {
  id: string;
  name: string;
  confidential: boolean;
  redirectUris: string[];
}

/**
 * The demo apps' client ids. The development seed registers them for the demo owner, and the start
 * banner and docs/oauth.md print their credentials, so the platform keeps them: the admin page lists
 * them to their owner but never deletes them.
 */
export const DEMO_APPS = { confidential: 'demo-app', public: 'demo-public' } as const;
export const KEPT_APP_IDS: readonly string[] = Object.values(DEMO_APPS);

type UserRow = { id: string; username: string; name: string; merchant_id: string; platform_admin: boolean };
const toUser = (r: UserRow): User => ({ id: r.id, username: r.username, name: r.name, merchantId: r.merchant_id, platformAdmin: r.platform_admin });
const USER_COLUMNS = ['id', 'username', 'name', 'merchant_id', 'platform_admin'] as const;

export async function createUser(db: DB, u: { id?: string; username: string; name: string; password: string; merchantId: string; platformAdmin?: boolean }): Promise<User> {
  const row = {
    id: u.id ?? `usr_${randomToken(9)}`,
    username: u.username.trim().toLowerCase(),
    name: u.name,
    password_hash: await hashPassword(u.password),
    merchant_id: u.merchantId,
    platform_admin: u.platformAdmin ?? false,
  };
  await db.insertInto('users').values(row).execute();
  return toUser(row);
}

/** Why an owner cannot be created, and which field of the request says so. */
export type OwnerProblem = { field: 'shop' | 'email' | 'name' | 'password'; problem: string };

/**
 * A shop's owner, created with the rules of every way there is to create one (the command line's
 * `owners create`, a platform administrator's form on /admin): a real e-mail (lower-cased) that
 * no account has yet, a name (default: the e-mail's local part), the password rule, a shop that
 * exists. The password is taken as given (the command line drops its line's newline).
 */
export async function createOwner(
  db: DB,
  o: { shopId: string; email: string; name?: string; password: string; platformAdmin?: boolean },
): Promise<{ ok: true; user: User } | ({ ok: false } & OwnerProblem)> {
  const email = normalizeEmail(o.email);
  if (!email.ok) return { ok: false, field: 'email', problem: email.problem };
  const name = (o.name?.trim() || email.email.split('@')[0]).trim();
  if (o.name !== undefined && !o.name.trim()) return { ok: false, field: 'name', problem: 'the name is empty' };
  const problem = passwordProblem(o.password);
  if (problem) return { ok: false, field: 'password', problem };
  const shop = await db.selectFrom('shops').select('id').where('id', '=', o.shopId).executeTakeFirst();
  if (!shop) return { ok: false, field: 'shop', problem: `no shop ${o.shopId}` };
  const taken = await findUserByUsername(db, email.email);
  if (taken) return { ok: false, field: 'email', problem: `${email.email} is already an account (owner of ${taken.merchantId})` };
  return { ok: true, user: await createUser(db, { username: email.email, name, password: o.password, merchantId: shop.id, platformAdmin: o.platformAdmin }) };
}

/**
 * The password rule of accounts created outside the demo seed (`ucp-storefront owners create`): the
 * account service had none before, so this is the one place it lives. Not trimmed: a password is
 * taken as typed.
 */
export const PASSWORD_RULES = { minLength: 8, maxLength: 1024 };

/** Why `password` may not be a new account's password, or null. */
export function passwordProblem(password: string): string | null {
  if (!password) return 'the password is empty';
  const length = [...password].length;
  if (length < PASSWORD_RULES.minLength) return `a password has at least ${PASSWORD_RULES.minLength} characters (this one has ${length})`;
  if (length > PASSWORD_RULES.maxLength) return `a password has at most ${PASSWORD_RULES.maxLength} characters`;
  if (/[\u0000-\u001f\u007f]/.test(password)) return 'a password has no control characters (a tab, a NUL, a second line)';
  return null;
}

/** Sign-in names are e-mail addresses, lower-cased; the same rule as a customer's e-mail. */
const Email = z.string().trim().toLowerCase().pipe(z.email()).pipe(z.string().max(254));

/** The account name an e-mail address signs in as, or why it cannot. */
export function normalizeEmail(email: string): { ok: true; email: string } | { ok: false; problem: string } {
  const r = Email.safeParse(email);
  return r.success ? { ok: true, email: r.data } : { ok: false, problem: `'${email}' is not an e-mail address` };
}

export async function findUserByUsername(db: DB, username: string): Promise<User | null> {
  const row = await db.selectFrom('users').select(USER_COLUMNS).where('username', '=', username.trim().toLowerCase()).executeTakeFirst();
  return row ? toUser(row) : null;
}

/** Every account, or one shop's; by shop, then sign-in name. */
export async function listUsers(db: DB, merchantId?: string): Promise<Array<User & { createdAt: Date }>> {
  let q = db.selectFrom('users').select([...USER_COLUMNS, 'created_at']);
  if (merchantId !== undefined) q = q.where('merchant_id', '=', merchantId);
  const rows = await q.orderBy('merchant_id').orderBy('username').execute();
  return rows.map((r) => ({ ...toUser(r), createdAt: new Date(r.created_at) }));
}

/**
 * Deletes an account and, in one transaction, everything issued to it (as deleting an app does):
 * its access and refresh tokens, authorization codes and sign-in sessions, and the apps it
 * registered on the admin page with whatever was issued to those. Its tokens stop working at once.
 * Null when no account has that sign-in name.
 */
export async function deleteUser(db: DB, username: string): Promise<(User & { apps: number }) | null> {
  return db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('users').select(USER_COLUMNS).where('username', '=', username.trim().toLowerCase()).forUpdate().executeTakeFirst();
    if (!row) return null;
    const apps = (await tx.selectFrom('oauth_clients').select('id').where('owner_user_id', '=', row.id).execute()).map((a) => a.id);
    await tx.deleteFrom('oauth_tokens').where('user_id', '=', row.id).execute();
    await tx.deleteFrom('oauth_codes').where('user_id', '=', row.id).execute();
    await tx.deleteFrom('oauth_sessions').where('user_id', '=', row.id).execute();
    if (apps.length) {
      await tx.deleteFrom('oauth_tokens').where('client_id', 'in', apps).execute();
      await tx.deleteFrom('oauth_codes').where('client_id', 'in', apps).execute();
      await tx.deleteFrom('oauth_requests').where('client_id', 'in', apps).execute();
      await tx.deleteFrom('oauth_clients').where('id', 'in', apps).execute();
    }
    await tx.deleteFrom('users').where('id', '=', row.id).execute();
    return { ...toUser(row), apps: apps.length };
  });
}

export async function findUser(db: DB, id: string): Promise<User | null> {
  const row = await db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst();
  return row ? toUser(row) : null;
}

/** Checks a login. Always runs scrypt once, so an unknown username takes as long as a wrong password. */
export async function verifyLogin(db: DB, username: string, password: string): Promise<User | null> {
  const row = await db.selectFrom('users').selectAll().where('username', '=', username.trim().toLowerCase()).executeTakeFirst();
  const ok = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH);
  return row && ok ? toUser(row) : null;
}

type ClientRow = { id: string; name: string; secret_hash: string | null; redirect_uris: unknown };
const toApp = (r: ClientRow): OAuthApp => ({ id: r.id, name: r.name, confidential: r.secret_hash !== null, redirectUris: r.redirect_uris as string[] });

/** Redirect URIs must be absolute, without fragment; http only for loopback hosts. */
export function checkRedirectUri(uri: string): string | null {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `'${uri}' is not an absolute URL`;
  }
  if (u.hash || uri.includes('#')) return `'${uri}' must not contain a fragment`;
  const loopback = u.hostname === '127.0.0.1' || u.hostname === 'localhost' || u.hostname === '[::1]' || u.hostname.endsWith('.localhost');
  if (u.protocol === 'https:' || (u.protocol === 'http:' && loopback)) return null;
  if (u.protocol === 'http:') return `'${uri}' must use https (http is allowed for loopback hosts only)`;
  // Native apps may use private-use URI schemes (RFC 8252 §7.1), e.g. com.example.app:/callback
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/i.test(u.protocol)) return null;
  return `'${uri}' uses an unsupported scheme`;
}

/** Longest app name, most redirect URIs per app and longest redirect URI accepted. */
/** `perOwner`: apps one user may register on the admin page (CLI registrations are not counted). */
export const APP_LIMITS = { name: 100, redirectUris: 10, redirectUri: 2000, perOwner: 25 };

/** Everything wrong with an app registration, one sentence each (empty when it can be registered). */
export function appProblems(a: { name: string; redirectUris: string[] }): string[] {
  const problems: string[] = [];
  if (!a.name.trim()) problems.push('an app needs a name');
  else if (a.name.trim().length > APP_LIMITS.name) problems.push(`an app name has at most ${APP_LIMITS.name} characters`);
  if (!a.redirectUris.length) problems.push('an app needs at least one redirect URI');
  else if (a.redirectUris.length > APP_LIMITS.redirectUris) problems.push(`an app has at most ${APP_LIMITS.redirectUris} redirect URIs`);
  for (const u of a.redirectUris) {
    const problem = u.length > APP_LIMITS.redirectUri ? `a redirect URI has at most ${APP_LIMITS.redirectUri} characters` : checkRedirectUri(u);
    if (problem) problems.push(problem);
  }
  return problems;
}

/** Why `ownerUserId` may not register another app (they have APP_LIMITS.perOwner), or null. */
export async function ownerLimitProblem(db: DB, ownerUserId: string): Promise<string | null> {
  const row = await db.selectFrom('oauth_clients').select((eb) => eb.fn.countAll<number>().as('n')).where('owner_user_id', '=', ownerUserId).executeTakeFirstOrThrow();
  return Number(row.n) >= APP_LIMITS.perOwner ? `you have ${APP_LIMITS.perOwner} apps, the most one account may register; delete one first` : null;
}

/**
 * Registers an app. Returns the secret (confidential apps only) once; only its digest is kept.
 * `ownerUserId`: the user who registered it on the admin page (CLI and demo apps have none).
 */
export async function registerApp(
  db: DB,
  a: { name: string; redirectUris: string[]; confidential: boolean; id?: string; secret?: string; ownerUserId?: string },
): Promise<{ app: OAuthApp; secret: string | null }> {
  const problems = appProblems(a);
  const full = a.ownerUserId ? await ownerLimitProblem(db, a.ownerUserId) : null;
  if (full) problems.push(full);
  if (problems.length) throw new Error(problems[0]);
  const secret = a.confidential ? (a.secret ?? randomToken(32)) : null;
  const row = {
    id: a.id ?? `app_${randomToken(12)}`,
    name: a.name.trim(),
    secret_hash: secret === null ? null : sha256(secret),
    redirect_uris: JSON.stringify(a.redirectUris),
    owner_user_id: a.ownerUserId ?? null,
  };
  await db.insertInto('oauth_clients').values(row).execute();
  return { app: toApp({ ...row, redirect_uris: a.redirectUris }), secret };
}

export async function findApp(db: DB, id: string): Promise<OAuthApp | null> {
  const row = await db.selectFrom('oauth_clients').select(['id', 'name', 'secret_hash', 'redirect_uris']).where('id', '=', id).executeTakeFirst();
  return row ? toApp(row) : null;
}

/** Every app (the CLI's list), or with `ownerUserId` the apps that user registered; oldest first. */
export async function listApps(db: DB, ownerUserId?: string): Promise<Array<OAuthApp & { createdAt: Date }>> {
  let q = db.selectFrom('oauth_clients').select(['id', 'name', 'secret_hash', 'redirect_uris', 'created_at']);
  if (ownerUserId !== undefined) q = q.where('owner_user_id', '=', ownerUserId);
  const rows = await q.orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => ({ ...toApp(r), createdAt: new Date(r.created_at) }));
}

/**
 * Deletes an app `ownerUserId` registered, with every pending request, authorization code and token
 * issued to it, in one transaction (so nothing it was given keeps working). False when the user owns
 * no app with that id (apps without an owner are never deleted here).
 */
export async function deleteOwnedApp(db: DB, id: string, ownerUserId: string): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const app = await tx
      .selectFrom('oauth_clients')
      .select('id')
      .where('id', '=', id)
      .where('owner_user_id', '=', ownerUserId)
      .forUpdate()
      .executeTakeFirst();
    if (!app) return false;
    await tx.deleteFrom('oauth_tokens').where('client_id', '=', id).execute();
    await tx.deleteFrom('oauth_codes').where('client_id', '=', id).execute();
    await tx.deleteFrom('oauth_requests').where('client_id', '=', id).execute();
    await tx.deleteFrom('oauth_clients').where('id', '=', id).execute();
    return true;
  });
}

/**
 * Client authentication. A confidential app must present its secret (compared in constant time);
 * a public app must present none. Returns null when authentication fails.
 */
export async function authenticateApp(db: DB, id: string, secret: string | undefined | null): Promise<OAuthApp | null> {
  const row = await db.selectFrom('oauth_clients').select(['id', 'name', 'secret_hash', 'redirect_uris']).where('id', '=', id).executeTakeFirst();
  if (!row) {
    if (secret) safeEqual(sha256(secret), sha256('')); // same work for unknown ids
    return null;
  }
  if (row.secret_hash === null) return secret ? null : toApp(row);
  if (!secret) return null;
  return safeEqual(sha256(secret), row.secret_hash) ? toApp(row) : null;
}
