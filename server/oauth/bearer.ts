/**
 * Who is calling with a bearer token (RFC 6750): the one check the account service's own endpoints
 * and the merchant API share, so neither imports the other's routes. Answers in the merchant API's
 * envelope (`{error: {code, message}}`) with `WWW-Authenticate`.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import type { Config } from '../config.ts';
import { lookupAccessToken, type AccessTokenInfo } from './model.ts';

/** The issuer: `AUTH_URL` when configured (always in production), else the platform origin the request came to. */
export function issuerOf(c: Context<AppEnv>): string {
  return issuer(c.get('config'), c.get('origin'));
}

/** `issuerOf` from its parts, for contexts with more variables (the merchant API's). */
export function issuer(config: Pick<Config, 'authUrl'>, requestOrigin: string): string {
  return (config.authUrl ?? requestOrigin).replace(/\/+$/, '');
}

/** Bearer token from the Authorization header (RFC 6750 §2.1). */
export function bearerToken(c: Context): string | null {
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(c.req.header('authorization') ?? '');
  return m ? m[1] : null;
}

export async function authenticateBearer(c: Context<AppEnv>): Promise<{ ok: true; token: AccessTokenInfo } | { ok: false; response: Response }> {
  const realm = `realm="${issuerOf(c)}"`;
  const raw = bearerToken(c);
  if (!raw) {
    c.header('WWW-Authenticate', `Bearer ${realm}`);
    return { ok: false, response: c.json({ error: { code: 'unauthorized', message: 'Send Authorization: Bearer <access token>.' } }, 401) };
  }
  const token = await lookupAccessToken(c.get('db'), raw);
  if (!token) {
    c.header('WWW-Authenticate', `Bearer ${realm}, error="invalid_token", error_description="The access token is invalid, revoked or expired"`);
    return { ok: false, response: c.json({ error: { code: 'invalid_token', message: 'The access token is invalid, revoked or expired.' } }, 401) };
  }
  return { ok: true, token };
}
