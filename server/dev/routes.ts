/**
 * Development-only controls on the platform address, for test suites that share one running
 * server (docs/cli.md): `POST /dev/shops/{id}/reset` is `ucp-storefront reset --shop ID` done by the
 * server itself, so it also works while the server holds the embedded database, and this process's
 * caches start over; `GET /dev/shops/{id or domain}/requests` and the page at `/dev/` are the
 * request inspector (docs/sandbox.md); `POST /dev/shops/{id}/clone` and `DELETE /dev/shops/{clone}`
 * (./clone.ts). Absent (404) with NODE_ENV=production.
 *
 * No web page may fire them (issue 29: a `text/plain` form auto-submitted from another origin wiped
 * a shop's carts). A state-changing route here answers only a request a browser cannot send
 * cross-origin without asking first: `Content-Type: application/json` (not a form-encodable type,
 * so a cross-origin page needs a CORS preflight, which these routes never grant) and no foreign
 * `Origin` or `Sec-Fetch-Site`. curl, scripts and test suites send the header and no Origin.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { protocolError } from '../http/errors.ts';
import { provenance } from '../http/origin.ts';
import { resetShop } from '../seed/reset.ts';
import { cloneRoute, sweepSoon } from './clone.ts';
import { CLONE_IDLE_MS } from '../seed/clone.ts';
import { forgetKeys } from '../http/inspector/store.ts';
import { listRequests, setRecording, shopByRef } from './requests.ts';
import { inspectorPage, inspectorScript } from './inspector-page.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** `application/json`, with parameters (charset) allowed; `+json` types too (none is form-encodable). */
const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;
const HOW = `Send POST with the header Content-Type: application/json from a script or curl, e.g. curl -X POST -H 'Content-Type: application/json' http://localhost:8080/dev/shops/SHOP_ID_OR_DOMAIN/reset`;

/** Refuses what a web page could forge: a simple (form-encodable) request, or one from another origin. */
export const unforgeable: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (SAFE_METHODS.has(c.req.method)) return next();
  const from = provenance(c.req, [c.get('origin')]);
  if (from === 'foreign' || from === 'opaque') {
    const said = c.req.header('origin') ?? c.req.header('sec-fetch-site');
    return protocolError(c, 403, 'cross_origin_refused', `Development endpoints refuse requests from web pages of another origin (Origin: ${String(said).slice(0, 100)}). ${HOW}`);
  }
  if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) {
    return protocolError(c, 415, 'unsupported_media_type', `Development endpoints take only Content-Type: application/json, which a web page cannot send to another origin unasked. ${HOW}`);
  }
  await next();
};

export function devRoutes() {
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => (c.get('config').mode !== 'development' ? c.notFound() : next()));
  app.use('*', unforgeable);
  app.use('*', async (c, next) => {
    sweepSoon(c.get('db'), c.get('config').cloneIdleMs ?? CLONE_IDLE_MS);
    await next();
  });
  app.post('/shops/:shop/reset', async (c) => {
    // By id or domain; an unknown shop is NoSuchShop: 404 by the REST table (http/errors.ts).
    const shop = await shopByRef(c.get('db'), c.req.param('shop'));
    const summary = await resetShop(c.get('db'), shop.id);
    forgetKeys(shop.id); // the server forgot its idempotency keys: the inspector's notes too
    return c.json(summary);
  });
  cloneRoute(app); // POST /shops/:shop/clone (./clone.ts)

  // The request inspector (docs/sandbox.md): JSON, the page, its script.
  app.get('/shops/:shop/requests', listRequests);
  app.post('/recording', setRecording);
  // `/dev` and `/dev/` (the README's address): a mounted app's '/' is only the former.
  app.get('/', inspectorPage);
  app.get('/:slash{/?}', inspectorPage);
  app.get('/inspector.js', inspectorScript);
  return app;
}
