/**
 * Everything served on the platform's own address (requests whose Host names no shop): the account
 * service, the admin pages and the merchant API. Mounted as one middleware in server/app.ts: it
 * answers when one of its routes matches and otherwise passes the request on (static files, the 404
 * handler).
 */
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv, AppVariables } from '../http/env.ts';
import { renderError } from '../http/errors.ts';
import { oauthRoutes } from './routes.ts';
import { adminRoutes } from './admin.ts';
import { merchantRoutes } from '../merchant/routes.ts';

const MISS = 'x-platform-route-miss';
const VARS: Array<keyof AppVariables> = ['db', 'config', 'origin', 'hostname', 'shop'];

export function platformRoutes(): MiddlewareHandler<AppEnv> {
  const inner = new Hono<AppEnv & { Bindings: { parent: Map<string, unknown> } }>();
  inner.use('*', async (c, next) => {
    for (const k of VARS) c.set(k, c.env.parent.get(k) as never);
    await next();
  });
  inner.route('/', oauthRoutes());
  inner.route('/', adminRoutes());
  inner.route('/merchants/:merchantId', merchantRoutes());
  inner.notFound(() => new Response(null, { status: 404, headers: { [MISS]: '1' } }));
  inner.onError((err, c) => renderError(err, c));

  return async (c, next) => {
    if (c.get('shop') !== null) return next();
    const parent = new Map<string, unknown>(VARS.map((k) => [k, c.get(k)]));
    const res = await inner.fetch(c.req.raw, { parent });
    if (res.headers.get(MISS)) return next();
    return res;
  };
}
