/**
 * The account service on the platform address, one group of routes per job: the authorization code
 * flow with its login and consent pages (authorize.ts), the token endpoint and RFC 7009 revocation
 * (token.ts, the library @node-oauth/oauth2-server handles the grants), the resource endpoint (seed
 * §2.1) and RFC 8414 metadata (here). The admin pages are in admin.ts; they share the page helpers
 * (web.ts) and the sign-in check with its failure budgets (budgets.ts `signIn`).
 */
import { Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { findUser } from '../core/accounts/accounts.ts';
import { findShopById } from '../core/shops/shops.ts';
import { SCOPE_NAMES } from '../core/accounts/scopes.ts';
import { authenticateBearer, issuerOf } from './bearer.ts';
import { merchantEndpoints } from './web.ts';
import { authorizationRoutes } from './authorize.ts';
import { tokenRoutes } from './token.ts';

// What the platform and tests import from here.
export { FormTextError } from './web.ts';
export { LOGIN_FAILURES, LOGIN_FAILURES_PER_ADDRESS, TOKEN_FAILURES_PER_ADDRESS } from './budgets.ts';

/** The account service's routes, one group per job (each below). */
export function oauthRoutes() {
  const r = new Hono<AppEnv>();
  metadataRoute(r);
  authorizationRoutes(r);
  tokenRoutes(r);
  userinfoRoute(r);
  return r;
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
