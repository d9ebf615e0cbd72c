/**
 * The whole HTTP surface, assembled. Requests are routed by Host: a storefront domain gets its shop
 * (UCP discovery, REST, MCP, host.js, storefront pages, GraphQL); the platform's own address gets
 * the account service and the merchant API. Each feature mounts its own routes module here.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from './http/body-limit.ts';
import { getRequestListener } from '@hono/node-server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from './config.ts';
import type { DB } from './db/index.ts';
import type { AppEnv } from './http/env.ts';
import { protocolError, renderError } from './http/errors.ts';
import { publicCors, simpleCorsHeaders, UCP_ALLOW_HEADERS } from './http/cors.ts';
import { requestOrigin } from './http/origin.ts';
import { cachedShop, findShopByDomain } from './core/shops/shops.ts';
import { DISCOVERY_LEAF_PATH, DISCOVERY_PATH, discoveryFastPath, discoveryHandler } from './ucp/discovery.ts';
import { requireProtocol } from './ucp/guard.ts';
import { restMethodFallbacks, ucpRestRoutes } from './ucp/rest.ts';
import { cartRoutes } from './ucp/cart-routes.ts';
import { graphqlRateLimit, graphqlRoutes } from './graphql/routes.ts';
import { bucketStoreFor } from './http/db-bucket-store.ts';
import { clientAddress } from './http/rate-limit.ts';
import { healthProbes, logWhenDone } from './http/ops.ts';
import { incomingOf, nameRoute, observeRequest } from './http/metrics.ts';
import { mcpRoutes } from './mcp/routes.ts';
import { sandboxFault } from './http/sandbox-fault.ts';
import { inspectExchanges } from './http/inspector/record.ts';
import { faviconHandler } from './storefront/favicon.ts';
import { AGENT_HOSTNAME, agentSite, FIXTURE_HOSTNAME, PUBLIC_DIR, publicFiles, storefrontRoutes } from './storefront/index.ts';
import { platformRoutes } from './platform.ts';
import { notFoundPage, serverErrorPage, wantsPage } from './storefront/error-pages.ts';
import { DEMO_FIXTURES, DEMO_SHOP_ID } from './seed/fixtures.ts';
import { touchClone } from './seed/clone.ts';

export interface AppDeps {
  db: DB;
  config: Config;
}

export const MAX_BODY_BYTES = 1024 * 1024;

/** CORS of the public UCP endpoints (REST and discovery): any origin, no credentials. */
const UCP_CORS = {
  allowHeaders: UCP_ALLOW_HEADERS,
  allowMethods: ['GET', 'POST', 'PUT', 'OPTIONS'],
  exposeHeaders: ['Content-Language', 'ETag', 'Retry-After', 'UCP-Sandbox-Fault-Ignored'],
  maxAge: 600,
};

/**
 * The Node request listener: health probes and the discovery fast path first (it answers only from
 * its caches), then the Hono app for everything else; with ACCESS_LOG=1 every request is logged. `drain()` resolves once every request in flight has finished,
 * so shutdown can close the database after the last handler, not under it.
 */
export function createRequestListener(deps: AppDeps) {
  const app = createApp(deps);
  const hono = getRequestListener(app.fetch, { hostname: deps.config.host });
  const discovery = discoveryFastPath({ db: deps.db, config: deps.config, corsHeaders: simpleCorsHeaders(UCP_CORS) });
  const inFlight = new Set<Promise<unknown>>();
  let stopping = false;
  const probes = healthProbes(deps.db, () => stopping);
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (deps.config.accessLog) logWhenDone(req, res);
    if (deps.config.metrics !== false) observeRequest(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') closeWhenBodyUnread(req, res);
    if (probes(req, res)) return;
    if (discovery(req, res)) return nameRoute(req, DISCOVERY_PATH); // labelled as the Hono route is
    const p = Promise.resolve(hono(req, res)).catch(() => {});
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  const drain = async (timeoutMs: number) => {
    stopping = true; // /readyz fails from now on
    const deadline = new Promise((resolve) => setTimeout(resolve, timeoutMs).unref());
    while (inFlight.size) await Promise.race([Promise.allSettled([...inFlight]), deadline.then(() => inFlight.clear())]);
  };
  return { listener, drain };
}

/**
 * A response that goes out before its request's body was read (a 413, a refusal before parsing)
 * says `Connection: close`, and Node ends the socket after it. The unread rest of the body is then
 * drained or the socket destroyed by the adapter; a keep-alive client that reused that socket
 * would meet a reset on its next request.
 */
function closeWhenBodyUnread(req: IncomingMessage, res: ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    if (!req.complete) this.setHeader('Connection', 'close');
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
}

/** The Hono app: the request's context first, then each feature's routes, then the answers to what none of them took. */
export function createApp({ db, config }: AppDeps) {
  const app = new Hono<AppEnv>();

  // One icon for every host (pages link /favicon.svg; browsers also ask for /favicon.ico).
  app.get('/favicon.svg', faviconHandler);
  app.get('/favicon.ico', faviconHandler);

  app.use('*', requestContext(db, config));
  mountUcp(app);

  // MCP transport (404 unless the shop has the protocol and settings.mcp_enabled); same body limit.
  app.route('/mcp', mcpRoutes({ maxBodyBytes: MAX_BODY_BYTES, sandboxNotes: (shop) => (shop.id === DEMO_SHOP_ID ? DEMO_FIXTURES : undefined) }));

  // host.js delivery (/ucp/*), the cart page (/cart/:id) and storefront pages; /ucp and /cart only on protocol shops.
  app.route('/', storefrontRoutes());

  // The version query is answered on every storefront domain (the seed's {graphql_url}).
  app.route('/graphql', graphqlRoutes({ rateLimit: graphqlRateLimit({ trustProxy: config.trustProxy, store: bucketStoreFor(db) }) }));

  // The platform's own address (no shop): account service (/oauth2/*, RFC 8414 metadata, /admin) and merchant API (/merchants/:id/3.0/*).
  app.use('*', platformRoutes());

  // public/ on every host, public/agent/ on none of them (agentSite serves it, in development).
  app.use('/*', publicFiles(PUBLIC_DIR));

  answerMisses(app);
  return app;
}

/**
 * Who is this request for? Origin from Host (or X-Forwarded-* behind a trusted proxy), then the
 * shop; and, once answered, the route template that answered, for the metrics.
 */
function requestContext(db: DB, config: Config): MiddlewareHandler<AppEnv> {
  const agent = agentSite();
  return async (c, next) => {
    const o = requestOrigin((name) => c.req.header(name), config);
    if (!o) return protocolError(c, 400, 'invalid_host', 'The Host header is malformed.');
    const { hostname } = o;
    c.set('db', db);
    c.set('config', config);
    c.set('origin', o.origin);
    c.set('hostname', hostname);
    c.set('client', clientAddress(c, config.trustProxy));
    // The demo agent's own origin (agent.localhost) and its fixtures' hostile one (evil.localhost)
    // serve static files only, before any shop route. Development only: a production server serves
    // no demo-only page (issues 29, 47).
    if ((hostname === AGENT_HOSTNAME || hostname === FIXTURE_HOSTNAME) && config.mode === 'development') return agent(c, next);
    // Every request needs its shop: take the cached one synchronously when there is one.
    const cached = cachedShop(db, hostname);
    const shop = cached !== undefined ? cached : await findShopByDomain(db, hostname);
    c.set('shop', shop);
    // A development clone's idle clock starts over with each request to it (server/seed/clone.ts).
    if (shop && config.mode === 'development') touchClone(shop.id);
    await next();
    // The operation label of ucp_requests_total: the template that answered, never the raw path.
    nameRoute(incomingOf(c), c.req.routePath);
  };
}

/** UCP discovery and the REST transport (`/api/ucp`), behind the protocol switch, CORS, the body limit and the inspector. */
function mountUcp(app: Hono<AppEnv>): void {
  // Protocol first, CORS second: a shop with the protocol off answers even a preflight with 404.
  const corsMw = publicCors(UCP_CORS);
  for (const path of ['/api/ucp/*', '/api/ucp', DISCOVERY_PATH, DISCOVERY_LEAF_PATH]) app.use(path, requireProtocol, corsMw);
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => protocolError(c, 413, 'request_too_large', `The body exceeds ${MAX_BODY_BYTES} bytes.`),
  });
  app.use('/api/*', limit);
  // The request inspector (development only; server/http/inspector/record.ts, docs/sandbox.md).
  app.use('/api/ucp/*', inspectExchanges('rest'));
  app.use('/mcp', inspectExchanges('mcp'));

  // A plain route, not a sub-app: the hottest public document goes through as few layers as possible.
  app.get(DISCOVERY_PATH, discoveryHandler);
  app.get(DISCOVERY_LEAF_PATH, discoveryHandler);

  const rest = new Hono<AppEnv>();
  // UCP-Sandbox-Fault (development only; server/http/sandbox-fault.ts), before anything runs.
  rest.use('*', sandboxFault('rest'));
  rest.route('/', ucpRestRoutes());
  rest.route('/', cartRoutes());
  restMethodFallbacks(rest);
  app.route('/api/ucp', rest);
  // The OpenAPI document's service root is `/` under the server URL `…/api/ucp`, so a generated
  // client asks for `/api/ucp/`: send it to the one address that answers (docs/ucp.md "OpenAPI").
  app.get('/api/ucp/', (c) => c.redirect('/api/ucp', 308));
}

/** What no route took, and what threw: people get pages, API clients JSON (by Accept and path: storefront/error-pages.ts). */
function answerMisses(app: Hono<AppEnv>): void {
  app.notFound((c) => (c.get('shop') && wantsPage(c) ? notFoundPage(c) : protocolError(c, 404, 'not_found', `Nothing at ${c.req.method} ${new URL(c.req.url).pathname}.`)));
  app.onError((err, c) => {
    const res = renderError(err, c);
    return (res.status === 503 || res.status === 500) && wantsPage(c) ? serverErrorPage(c, res.status, res.headers.get('retry-after')) : res;
  });
}
