/**
 * Storefront routes mounted by server/app.ts: host.js delivery (`/ucp/*`, protocol shops only),
 * the cart page (`/cart/*`, protocol shops only), the demo pages, and the demo agent site on
 * `agent.localhost` (static files from public/agent/, a different origin on the same server, and
 * the demo agent's platform profile at `/.well-known/ucp`, the profile agent builders name while
 * developing: docs/access.md "Zero setup").
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { AppEnv } from '../http/env.ts';
import { requireProtocol } from '../ucp/guard.ts';
import { protocolError } from '../http/errors.ts';
import { hostJsRoutes } from './hostjs.ts';
import { storefrontPages } from './pages.ts';
import { DEMO_AGENT_HOSTNAME, demoPlatformProfile } from '../ucp/profile.ts';

export const AGENT_HOSTNAME = DEMO_AGENT_HOSTNAME;
const AGENT_PROFILE = JSON.stringify(demoPlatformProfile());

/** Requests for agent.localhost never reach the shop routes. */
export function agentSite(): MiddlewareHandler<AppEnv> {
  const files = serveStatic({ root: './public/agent' });
  return async (c, next) => {
    if (c.get('hostname') !== AGENT_HOSTNAME) return next();
    if (c.req.path === '/.well-known/ucp') {
      if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return protocolError(c, 405, 'method_not_allowed', 'Use GET on this path.', {}, { Allow: 'GET' });
      return c.body(AGENT_PROFILE, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' });
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
  app.route('/ucp', ucp);
  app.route('/', storefrontPages());
  return app;
}
