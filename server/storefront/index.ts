/**
 * Storefront routes mounted by server/app.ts: host.js delivery (`/ucp/*`, protocol shops only),
 * the cart page (`/cart/*`, protocol shops only), the demo pages, and the demo agent site on
 * `agent.localhost` (static files from public/agent/, a different origin on the same server).
 */
import { fileURLToPath } from 'node:url';
import { Hono, type MiddlewareHandler } from 'hono';
import { serveStatic } from '@hono/node-server/serve-static';
import type { AppEnv } from '../http/env.ts';
import { requireProtocol } from '../ucp/guard.ts';
import { protocolError } from '../http/errors.ts';
import { hostJsRoutes } from './hostjs.ts';
import { storefrontPages } from './pages.ts';

export const AGENT_HOSTNAME = 'agent.localhost';
/** public/ of this checkout or installed package (not of the working directory: `npx ucp-storefront start` runs anywhere). */
export const PUBLIC_DIR = fileURLToPath(new URL('../../public/', import.meta.url));

/** Requests for agent.localhost never reach the shop routes. */
export function agentSite(): MiddlewareHandler<AppEnv> {
  const files = serveStatic({ root: `${PUBLIC_DIR}agent` });
  return async (c, next) => {
    if (c.get('hostname') !== AGENT_HOSTNAME) return next();
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
