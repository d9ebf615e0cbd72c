/**
 * Storefront routes mounted by server/app.ts: host.js delivery and its WebMCP tool list (`/ucp/*`,
 * protocol shops only), the cart page (`/cart/*`, protocol shops only), the demo pages, and the demo agent site on
 * `agent.localhost` (static files from public/agent/, a different origin on the same server, and
 * the demo agent's platform profile at `/.well-known/ucp`, the profile agent builders name while
 * developing: docs/access.md "Zero setup"), development only; public/agent/ is never served on any
 * other host (issue 47), except its test fixtures' hostile origin, evil.localhost.
 */
import { fileURLToPath } from 'node:url';
import { posix } from 'node:path';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { AppEnv } from '../http/env.ts';
import { requireProtocol } from '../ucp/guard.ts';
import { incomingOf } from '../http/metrics.ts';
import { protocolError } from '../http/errors.ts';
import { withStaticHtmlPolicy } from '../http/html-security.ts';
import { hostJsRoutes } from './hostjs.ts';
import { storefrontPages } from './pages.ts';
import { DEMO_AGENT_HOSTNAME, demoPlatformProfile, leafProfilePath } from '../core/shops/ucp-profile.ts';
import { UCP_VERSIONS } from '../version.ts';
import { webMcpRoutes } from './webmcp.ts';
import { checkoutRoutes } from './checkout.ts';

export const AGENT_HOSTNAME = DEMO_AGENT_HOSTNAME;
/** The demo agent's profile per path: the seed's version at `/.well-known/ucp`, every other served version at its leaf path. */
const AGENT_PROFILES = new Map<string, string>([['/.well-known/ucp', JSON.stringify(demoPlatformProfile())], ...UCP_VERSIONS.map((v) => [leafProfilePath(v), JSON.stringify(demoPlatformProfile(v))] as [string, string])]);
/** public/ of this checkout or installed package (not of the working directory: `npx ucp-storefront start` runs anywhere). */
export const PUBLIC_DIR = fileURLToPath(new URL('../../public/', import.meta.url));

/**
 * Development only: a second origin serving the same files as agent.localhost, the "hostile site"
 * of the framing and forging fixtures (forge.html, frame.html; e2e/security.spec.ts). A fixed name,
 * like agent.localhost: no origin here is ever taken from a Host header (issue 47).
 */
export const FIXTURE_HOSTNAME = 'evil.localhost';
/** The demo shop the agent page talks to: always this name, on the port the server listens on. */
export const DEMO_SHOP_HOSTNAME = 'demo.localhost';

/**
 * The port this request reached the server on (the socket's, never the Host header's): the agent
 * pages' shop origin is http://demo.localhost on it. Without a socket (app.request in tests), 80.
 */
export function localPort(c: Context<AppEnv>): number {
  return incomingOf(c)?.socket?.localPort ?? 80;
}

const origin = (hostname: string, port: number) => `http://${hostname}${port === 80 ? '' : `:${port}`}`;

/**
 * The demo agent's pages (and the framing fixtures next to them): scripts of their own and, by
 * nonce, the import map they add; host.js and the cart API from the demo shop
 * (http://demo.localhost on the server's own port); carts of the development shops in frames. Only
 * fixed names: nothing here follows the Host header. Framed only by their own origin, except the
 * fixtures on {@link FIXTURE_HOSTNAME}, which the agent page frames as a hostile second origin.
 */
export function agentPageCsp(hostname: string, port: number, nonce: string): string {
  const shop = origin(DEMO_SHOP_HOSTNAME, port);
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' ${shop}`,
    "style-src 'self'",
    `img-src 'self' data: ${shop}`,
    `connect-src 'self' ${shop}`,
    `frame-src http://*.localhost:${port}`, // the agent frames whichever development shop's cart it opens
    "base-uri 'none'",
    "form-action 'self'",
    hostname === FIXTURE_HOSTNAME ? `frame-ancestors ${origin(AGENT_HOSTNAME, port)}` : "frame-ancestors 'self'",
  ].join('; ');
}

/** Any other static page (public/ holds none today outside agent/): its own files only. */
const PUBLIC_PAGE_CSP = (nonce: string) => `default-src 'self'; script-src 'self' 'nonce-${nonce}'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;

/** Static files from `root`; HTML among them leaves with nosniff and `policy`. */
export function staticFiles(root: string, policy: (c: Context<AppEnv>, nonce: string) => string = (_c, nonce) => PUBLIC_PAGE_CSP(nonce)): MiddlewareHandler<AppEnv> {
  const files = serveStatic({ root });
  return async (c, next) => {
    const res: unknown = await files(c, next);
    // serveStatic hands back a Response when it found a file, else whatever `next` resolved to.
    return res instanceof Response ? withStaticHtmlPolicy(res, (nonce) => policy(c, nonce)) : undefined;
  };
}

/** Whether a request path names public/agent/ or anything under it, however it is encoded. */
export function isAgentPath(path: string): boolean {
  let p = path;
  for (let i = 0; i < 4; i++) {
    let d: string;
    try {
      d = decodeURIComponent(p);
    } catch {
      return true; // not a path serveStatic would find anything at either
    }
    if (d === p) break;
    p = d;
  }
  const normalized = posix.normalize(`/${p.replace(/\\/g, '/')}`).toLowerCase();
  return normalized === '/agent' || normalized.startsWith('/agent/');
}

/**
 * public/ on every host, except public/agent/ (the demo agent and its test fixtures): those are
 * served only on agent.localhost and {@link FIXTURE_HOSTNAME}, in development (agentSite).
 */
export function publicFiles(root: string): MiddlewareHandler<AppEnv> {
  const files = staticFiles(root);
  return async (c, next) => (isAgentPath(c.req.path) ? next() : files(c, next));
}

/** Requests for agent.localhost (and the fixtures' evil.localhost) never reach the shop routes. */
export function agentSite(): MiddlewareHandler<AppEnv> {
  const files = staticFiles(`${PUBLIC_DIR}agent`, (c, nonce) => agentPageCsp(c.get('hostname'), localPort(c), nonce));
  return async (c, next) => {
    const hostname = c.get('hostname');
    if (hostname !== AGENT_HOSTNAME && hostname !== FIXTURE_HOSTNAME) return next();
    const profile = hostname === AGENT_HOSTNAME ? AGENT_PROFILES.get(c.req.path) : undefined;
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
