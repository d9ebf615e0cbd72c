/**
 * The `@node-oauth/oauth2-server` model: how the library reads and writes clients, authorization
 * codes and tokens. Everything is a database row; codes and tokens are stored as sha256 digests.
 *
 * Families: every token pair descending from one authorization code has `family_id` = that code's
 * row id. A replayed code or a reused (already rotated) refresh token revokes the whole family.
 * Expiry is judged against the injectable clock (server/oauth/clock.ts).
 */
import type OAuth2Server from '@node-oauth/oauth2-server';
import type { DB } from '../db/index.ts';
import { authenticateApp } from '../core/accounts/accounts.ts';
import { isKnownScope } from '../core/accounts/scopes.ts';
import { now, nowMs } from './clock.ts';
import { randomToken, sha256 } from '../lib/crypto.ts';

/** 6 months (182 days) and 2 years (730 days), in seconds. */
export const ACCESS_TOKEN_LIFETIME = 182 * 24 * 3600;
export const REFRESH_TOKEN_LIFETIME = 730 * 24 * 3600;
/** Authorization codes live 5 minutes (RFC 6749 recommends at most 10). */
export const CODE_LIFETIME = 5 * 60;

export const GRANTS = ['authorization_code', 'refresh_token'];

/** What travels in the library's `user` object between the model's calls. */
interface ModelUser {
  id: string;
  /** Family the next token pair belongs to. */
  familyId: string;
  /** Row being consumed (authorization code) or rotated (refresh token). */
  codeId?: string;
  tokenId?: string;
}

export async function revokeFamily(db: DB, familyId: string): Promise<void> {
  await db.updateTable('oauth_tokens').set({ revoked_at: now() }).where('family_id', '=', familyId).where('revoked_at', 'is', null).execute();
}

/** Issues an authorization code after consent. Returns the code (only its digest is stored). */
export async function issueAuthorizationCode(
  db: DB,
  a: { clientId: string; userId: string; redirectUri: string; scope: string[]; codeChallenge: string | null; codeChallengeMethod: string | null },
): Promise<string> {
  const code = randomToken(32);
  await db
    .insertInto('oauth_codes')
    .values({
      id: `grant_${randomToken(12)}`,
      code_hash: sha256(code),
      client_id: a.clientId,
      user_id: a.userId,
      redirect_uri: a.redirectUri,
      scope: JSON.stringify(a.scope),
      code_challenge: a.codeChallenge,
      code_challenge_method: a.codeChallengeMethod,
      expires_at: new Date(nowMs() + CODE_LIFETIME * 1000),
    })
    .execute();
  return code;
}

// The model's methods, one module-level function each (db first); createModel below binds them.

/** The code grant reads a code: unknown, replayed (its family is revoked) or expired codes are false. */
async function getAuthorizationCode(db: DB, code: string) {
  const row = await db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', sha256(code)).executeTakeFirst();
  if (!row) return false;
  if (row.consumed_at) {
    // Replay: the code was already exchanged. Revoke everything it issued (RFC 6749 §4.1.2).
    await revokeFamily(db, row.id);
    return false;
  }
  if (new Date(row.expires_at).getTime() <= nowMs()) return false;
  const user: ModelUser = { id: row.user_id, familyId: row.id, codeId: row.id };
  return {
    authorizationCode: code,
    // The library compares this with the wall clock; expiry against our clock was judged above.
    expiresAt: new Date(Math.max(new Date(row.expires_at).getTime(), Date.now() + 1000)),
    redirectUri: row.redirect_uri,
    scope: row.scope as unknown as string[],
    client: { id: row.client_id, grants: GRANTS },
    user,
    ...(row.code_challenge ? { codeChallenge: row.code_challenge, codeChallengeMethod: row.code_challenge_method ?? 'S256' } : {}),
  };
}

/** The code grant consumes the code it read; false when another request consumed it first. */
async function revokeAuthorizationCode(db: DB, code: { user: ModelUser }) {
  const res = await db
    .updateTable('oauth_codes')
    .set({ consumed_at: now() })
    .where('id', '=', code.user.codeId!)
    .where('consumed_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Both grants end here: the new pair is stored (digests only) in the family of the code or refresh token. */
async function saveToken(db: DB, token: OAuth2Server.Token, client: OAuth2Server.Client, user: ModelUser) {
  const t = nowMs();
  const accessTokenExpiresAt = new Date(t + ACCESS_TOKEN_LIFETIME * 1000);
  const refreshTokenExpiresAt = token.refreshToken ? new Date(t + REFRESH_TOKEN_LIFETIME * 1000) : undefined;
  await db
    .insertInto('oauth_tokens')
    .values({
      id: `tok_${randomToken(12)}`,
      access_hash: sha256(token.accessToken),
      refresh_hash: token.refreshToken ? sha256(token.refreshToken) : null,
      client_id: client.id,
      user_id: user.id,
      scope: JSON.stringify(token.scope ?? []),
      family_id: user.familyId,
      code_id: user.codeId ?? null,
      access_expires_at: accessTokenExpiresAt,
      refresh_expires_at: refreshTokenExpiresAt ?? null,
    })
    .execute();
  return {
    accessToken: token.accessToken,
    // The library derives expires_in from this against the wall clock; keep it exact.
    accessTokenExpiresAt: new Date(Date.now() + ACCESS_TOKEN_LIFETIME * 1000),
    refreshToken: token.refreshToken,
    refreshTokenExpiresAt,
    scope: token.scope,
    client,
    user: { id: user.id, familyId: user.familyId },
  };
}

async function getAccessToken(db: DB, accessToken: string) {
  const info = await lookupAccessToken(db, accessToken);
  if (!info) return false;
  return {
    accessToken,
    accessTokenExpiresAt: info.expiresAt,
    scope: info.scope,
    client: { id: info.clientId, grants: GRANTS },
    user: { id: info.userId },
  };
}

/** The refresh grant reads a refresh token: a rotated one coming back revokes its family. */
async function getRefreshToken(db: DB, refreshToken: string) {
  const row = await db.selectFrom('oauth_tokens').selectAll().where('refresh_hash', '=', sha256(refreshToken)).executeTakeFirst();
  if (!row || row.revoked_at) return false;
  if (row.rotated_at) {
    // A rotated refresh token came back: someone holds a copy. Revoke the whole family.
    await revokeFamily(db, row.family_id);
    return false;
  }
  if (!row.refresh_expires_at || new Date(row.refresh_expires_at).getTime() <= nowMs()) return false;
  const user: ModelUser = { id: row.user_id, familyId: row.family_id, tokenId: row.id };
  return {
    refreshToken,
    refreshTokenExpiresAt: new Date(Math.max(new Date(row.refresh_expires_at).getTime(), Date.now() + 1000)),
    scope: row.scope as unknown as string[],
    client: { id: row.client_id, grants: GRANTS },
    user,
  };
}

/** Rotation: the presented refresh token (and its access token) stop working. */
async function revokeToken(db: DB, token: { user: ModelUser }) {
  const res = await db
    .updateTable('oauth_tokens')
    .set({ rotated_at: now() })
    .where('id', '=', token.user.tokenId!)
    .where('rotated_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export function createModel(db: DB): OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel {
  const model = {
    async getClient(clientId: string, clientSecret: string | undefined) {
      const app = await authenticateApp(db, clientId, clientSecret);
      return app ? { id: app.id, redirectUris: app.redirectUris, grants: GRANTS } : false;
    },
    generateAccessToken: async () => randomToken(32),
    generateRefreshToken: async () => randomToken(32),
    getAuthorizationCode: (code: string) => getAuthorizationCode(db, code),
    revokeAuthorizationCode: (code: { user: ModelUser }) => revokeAuthorizationCode(db, code),
    async saveAuthorizationCode(): Promise<never> {
      throw new Error('codes are issued by the consent route (issueAuthorizationCode)');
    },
    async validateScope(_user: unknown, _client: unknown, scope?: string[]) {
      if (!scope || !scope.length || !scope.every(isKnownScope)) return false;
      return scope;
    },
    saveToken: (token: OAuth2Server.Token, client: OAuth2Server.Client, user: ModelUser) => saveToken(db, token, client, user),
    getAccessToken: (accessToken: string) => getAccessToken(db, accessToken),
    getRefreshToken: (refreshToken: string) => getRefreshToken(db, refreshToken),
    revokeToken: (token: { user: ModelUser }) => revokeToken(db, token),
    async verifyScope(token: OAuth2Server.Token, scope: string[]) {
      return scope.every((s) => (token.scope ?? []).includes(s));
    },
  };
  return model as unknown as OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel;
}

export interface AccessTokenInfo {
  tokenId: string;
  familyId: string;
  clientId: string;
  userId: string;
  merchantId: string;
  scope: string[];
  expiresAt: Date;
}

/** A live access token: known, not revoked, not rotated away, not expired. */
export async function lookupAccessToken(db: DB, accessToken: string): Promise<AccessTokenInfo | null> {
  const row = await db
    .selectFrom('oauth_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.id', 't.family_id', 't.client_id', 't.user_id', 't.scope', 't.access_expires_at', 't.revoked_at', 't.rotated_at', 'u.merchant_id'])
    .where('t.access_hash', '=', sha256(accessToken))
    .executeTakeFirst();
  if (!row || row.revoked_at || row.rotated_at) return null;
  const expiresAt = new Date(row.access_expires_at);
  if (expiresAt.getTime() <= nowMs()) return null;
  return {
    tokenId: row.id,
    familyId: row.family_id,
    clientId: row.client_id,
    userId: row.user_id,
    merchantId: row.merchant_id,
    scope: row.scope as unknown as string[],
    expiresAt,
  };
}

/**
 * The scope a live (not rotated, not revoked, not expired) refresh token of `clientId` carries, or
 * null. Read without side effects, so a refresh the library would refuse only after rotating
 * (asking for more scope than was granted) can be refused first and leave the grant as it was.
 */
export async function heldRefreshScope(db: DB, clientId: string, refreshToken: string): Promise<string[] | null> {
  const row = await db
    .selectFrom('oauth_tokens')
    .select(['scope', 'refresh_expires_at'])
    .where('refresh_hash', '=', sha256(refreshToken))
    .where('client_id', '=', clientId)
    .where('rotated_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row?.refresh_expires_at || new Date(row.refresh_expires_at).getTime() <= nowMs()) return null;
  return row.scope as unknown as string[];
}

/**
 * RFC 7009 revocation of a token issued to `clientId`. A refresh token takes its whole family with
 * it (RFC 7009 §2.1); an access token only itself. Unknown tokens are ignored (still a 200).
 */
export async function revokeIssuedToken(db: DB, clientId: string, token: string, hint?: string): Promise<void> {
  const h = sha256(token);
  const order = hint === 'access_token' ? ['access', 'refresh'] : ['refresh', 'access'];
  for (const kind of order) {
    const row = await db
      .selectFrom('oauth_tokens')
      .select(['id', 'family_id', 'client_id'])
      .where(kind === 'access' ? 'access_hash' : 'refresh_hash', '=', h)
      .executeTakeFirst();
    if (!row) continue;
    if (row.client_id !== clientId) return;
    if (kind === 'refresh') await revokeFamily(db, row.family_id);
    else await db.updateTable('oauth_tokens').set({ revoked_at: now() }).where('id', '=', row.id).where('revoked_at', 'is', null).execute();
    return;
  }
}
