/**
 * Everything served on the platform's own address (requests whose Host names no shop): the account
 * service, the admin pages, the merchant API and the Prometheus metrics (GET /metrics). Mounted as one middleware in server/app.ts: it
 * answers when one of its routes matches and otherwise passes the request on (static files, the 404
 * handler).
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from './http/body-limit.ts';
import { errorPage } from './oauth/pages.ts';
import type { AppEnv, AppVariables } from './http/env.ts';
import { renderError } from './http/errors.ts';
import { htmlSecurityHeaders } from './http/html-security.ts';
import { FormTextError, oauthRoutes } from './oauth/routes.ts';
import { adminRoutes } from './oauth/admin.ts';
import { merchantRoutes } from './merchant/routes.ts';
import { devRoutes } from './dev/routes.ts';
import { controlRoutes } from './control/routes.ts';
import { platformHome } from './oauth/home.ts';
import { DomainError, ERROR_CODES } from './core/shared/errors.ts';
import { envelope } from './merchant/errors.ts';
import { incomingOf, metricsHandler, nameRoute } from './http/metrics.ts';
import type { IncomingMessage } from 'node:http';
import { platformHostAllowed } from './http/origin.ts';
import { protocolError } from './http/errors.ts';

const MISS = 'x-platform-route-miss';
/** Sign-in, consent, token and admin forms are a few hundred bytes. */
export const FORM_MAX_BYTES = 64 * 1024;
/** Merchant API JSON bodies (a product with its variants and media), as on the UCP transport. */
export const MERCHANT_MAX_BYTES = 1024 * 1024;
const VARS: Array<keyof AppVariables> = ['db', 'config', 'origin', 'hostname', 'client', 'shop'];

/**
 * 421 Misdirected Request: this server is not configured to answer for that authority (RFC 9110
 * 15.5.20), as Vite's dev server says "Blocked request. This host is not allowed.".
 */
function hostNotAllowed(c: Parameters<MiddlewareHandler<AppEnv>>[0]): Response {
  const host = c.get('hostname').slice(0, 100);
  const how = c.get('config').mode === 'development'
    ? 'A development server answers its platform routes only on localhost, 127.0.0.1, [::1] or another IP address'
    : "The platform answers only on AUTH_URL's host, the loopback names and IP addresses";
  return protocolError(c, 421, 'host_not_allowed', `Blocked request: no shop has the domain '${host}', and the platform does not answer on it. ${how}; add a name with PLATFORM_HOSTS (docs/security.md).`);
}

export function platformRoutes(): MiddlewareHandler<AppEnv> {
  const inner = new Hono<AppEnv & { Bindings: { parent: Map<string, unknown>; incoming?: IncomingMessage } }>();
  inner.use('*', async (c, next) => {
    for (const k of VARS) c.set(k, c.env.parent.get(k) as never);
    await next();
    nameRoute(c.env.incoming, c.req.routePath); // this app's template: the outer app sees only its mount
  });
  // Every HTML page of the platform leaves with nosniff and a policy, error pages included.
  inner.use('*', htmlSecurityHeaders());
  // Bodies are bounded before anything reads them (413, in each area's own error format).
  inner.use('/oauth2/*', bodyLimit({ maxSize: FORM_MAX_BYTES, onError: (c) => c.json({ error: 'invalid_request', error_description: `The body exceeds ${FORM_MAX_BYTES} bytes.` }, 413) }));
  const pageLimit = bodyLimit({ maxSize: FORM_MAX_BYTES, onError: (c) => c.html(errorPage('Request too large', `The form exceeds ${FORM_MAX_BYTES} bytes.`), 413) });
  inner.use('/admin', pageLimit);
  inner.use('/admin/*', pageLimit);
  inner.use('/merchants/*', bodyLimit({ maxSize: MERCHANT_MAX_BYTES, onError: (c) => envelope(c, new DomainError('too_large', ERROR_CODES.requestTooLarge, `The body exceeds ${MERCHANT_MAX_BYTES} bytes.`)) }));
  inner.get('/', platformHome);
  inner.get('/metrics', metricsHandler);
  inner.route('/', oauthRoutes());
  inner.route('/', adminRoutes());
  inner.route('/merchants/:merchantId', merchantRoutes());
  inner.route('/dev', devRoutes());
  inner.route('/control', controlRoutes());
  inner.notFound(() => new Response(null, { status: 404, headers: { [MISS]: '1' } }));
  inner.onError((err, c) => {
    if (err instanceof FormTextError) {
      // The token and revocation endpoints speak OAuth JSON; every other form is a page.
      if (c.req.path.startsWith('/oauth2/access_token') || c.req.path.startsWith('/oauth2/revoke')) {
        c.header('Cache-Control', 'no-store');
        return c.json({ error: 'invalid_request', error_description: err.message }, 400);
      }
      return c.html(errorPage('Invalid form', err.message), 400);
    }
    return renderError(err, c);
  });

  return async (c, next) => {
    if (c.get('shop') !== null) return next();
    // A Host that names no shop is the platform's only when it is one the platform is configured
    // for (DNS rebinding, issue 39 point 2; server/http/origin.ts, docs/security.md).
    if (!platformHostAllowed(c.get('hostname'), c.get('config'))) return hostNotAllowed(c);
    const parent = new Map<string, unknown>(VARS.map((k) => [k, c.get(k)]));
    const res = await inner.fetch(c.req.raw, { parent, incoming: incomingOf(c) });
    if (res.headers.get(MISS)) return next();
    return res;
  };
}
