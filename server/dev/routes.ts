/**
 * Development-only controls on the platform address, for test suites that share one running
 * server (docs/cli.md): `POST /dev/shops/{id}/reset` is `ucp-storefront reset --shop ID` done by the
 * server itself, so it also works while the server holds the embedded database, and this process's
 * caches start over. Absent (404) with NODE_ENV=production.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { resetShop } from '../seed/reset.ts';

export function devRoutes() {
  const app = new Hono<AppEnv>();
  app.post('/shops/:id/reset', async (c) => {
    if (c.get('config').mode !== 'development') return c.notFound();
    // An unknown shop is NoSuchShop: 404 by the REST table (http/errors.ts).
    return c.json(await resetShop(c.get('db'), c.req.param('id')));
  });
  return app;
}
