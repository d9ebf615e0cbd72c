/**
 * Storefront routes mounted by server/app.ts: host.js delivery and its WebMCP tool list (`/ucp/*`,
 * protocol shops only), the cart page (`/cart/*`, protocol shops only), the demo pages, and the demo agent site on
 * `agent.localhost` (static files from public/agent/, a different origin on the same server, and
 * the demo agent's platform profile at `/.well-known/ucp`, the profile agent builders name while
 * developing: docs/access.md "Zero setup").
 */
import { fileURLToPath } from 'node:url';
import { Hono, type MiddlewareHandler } from 'hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { AppEnv } from '../http/env.ts';
import { requireProtocol } from '../ucp/guard.ts';
import { protocolError } from '../http/errors.ts';
import { withStaticHtmlPolicy } from '../http/html-security.ts';
import { hostJsRoutes } from './hostjs.ts';
import { storefrontPages } from './pages.ts';
import { DEMO_AGENT_HOSTNAME, demoPlatformProfile, leafProfilePath } from '../core/shops/ucp-profile.ts';
import { UCP_VERSIONS } from '../../src/wire/version.ts';
import { webMcpRoutes } from './webmcp.ts';
import { checkoutRoutes } from './checkout.ts';

export const AGENT_HOSTNAME = DEMO_AGENT_HOSTNAME;
/** The demo agent's profile per path: the seed's version at `/.well-known/ucp`, every other served version at its leaf path. */
const AGENT_PROFILES = new Map<string, string>([['/.well-known/ucp', JSON.stringify(demoPlatformProfile())], ...UCP_VERSIONS.map((v) => [leafProfilePath(v), JSON.stringify(demoPlatformProfile(v))] as [string, string])]);
/** public/ of this checkout or installed package (not of the working directory: `npx ucp-storefront start` runs anywhere). */
export const PUBLIC_DIR = fileURLToPath(new URL('../../public/', import.meta.url));

/** The demo shop next to a page: the page's host name with its first label replaced by `demo`. */
function demoShopOrigin(origin: string): string {
  const u = new URL(origin);
  u.hostname = ['demo', ...u.hostname.split('.').slice(1)].join('.');
  return u.origin;
}

/**
 * The demo agent's pages (and the framing fixtures next to them): scripts of their own and, by
 * nonce, the import map they add; host.js and the cart API from the demo shop; frames of any shop.
 */
export function agentPageCsp(origin: string, nonce: string): string {
  const shop = demoShopOrigin(origin);
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' ${shop}`,
    "style-src 'self'",
    `img-src 'self' data: ${shop}`,
    `connect-src 'self' ${shop}`,
    "frame-src http: https:", // an agent frames whichever shop's cart it opens
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors http: https:", // the framing fixtures are framed by the agent page
  ].join('; ');
}

/** Static files from `root`; HTML among them leaves with nosniff and the agent page policy. */
export function staticFiles(root: string): MiddlewareHandler<AppEnv> {
  const files = serveStatic({ root });
  return async (c, next) => {
    const res: unknown = await files(c, next);
    // serveStatic hands back a Response when it found a file, else whatever `next` resolved to.
    return res instanceof Response ? withStaticHtmlPolicy(res, (nonce) => agentPageCsp(c.get('origin'), nonce)) : undefined;
  };
}

/** Requests for agent.localhost never reach the shop routes. */
export function agentSite(): MiddlewareHandler<AppEnv> {
  const files = staticFiles(`${PUBLIC_DIR}agent`);
  return async (c, next) => {
    if (c.get('hostname') !== AGENT_HOSTNAME) return next();
    const profile = AGENT_PROFILES.get(c.req.path);
    if (profile !== undefined) {
      if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return protocolError(c, 405, 'method_not_allowed', 'Use GET on this path.', {}, { Allow: 'GET' });
      return c.body(profile, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' });
    }
    const res = await files(c, async () => {});
    if (res) return res;
    if (c.res && c.finalized) return c.res;
    return protocolError(c, 404, 'not_found', `Nothing at ${new URL(c.req.url).pathname} on the demo agent site.`);
  };
}

export function storefrontRoutes() {
  const app = new Hono<AppEnv>();
  const ucp = new Hono<AppEnv>();
  ucp.use('*', requireProtocol);
  ucp.route('/', hostJsRoutes());
  ucp.route('/', webMcpRoutes());
  app.route('/ucp', ucp);
  app.route('/', checkoutRoutes());
  app.route('/', storefrontPages());
  return app;
}
