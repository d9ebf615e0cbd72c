/**
 * GraphQL over HTTP at `/graphql/<version>`, served by graphql-http's spec-compliant handler.
 *
 * Mount with `app.route('/graphql', graphqlRoutes())`. Host-agnostic, so every storefront domain answers.
 * This file is the HTTP edge (versions, body limit, rate limit); handler.ts the GraphQL side.
 *
 * Status codes (see docs/graphql.md):
 * - 200 `{ data }` (and `errors` for execution errors a resolver raised on purpose)
 * - 400 `{ errors }` malformed JSON, missing/invalid parameters, unparsable or invalid document, variable
 *   coercion failure, depth or query-size limit — for every Accept value. graphql-http would answer 200
 *   for `Accept: application/json`; the GraphQL-over-HTTP spec only says SHOULD there, our contract is 400.
 * - 404 `{ errors }` unknown path version
 * - 405 GET with a mutation, or a method other than GET/POST; 406 unacceptable Accept; 413 body over limit;
 *   415 unsupported Content-Type
 * - 429 `{ errors }` rate limited, with Retry-After
 * - 500 `{ errors: [{ message: "Internal server error" }] }` when a resolver throws something that is not a
 *   GraphQLError, or the server itself fails. Details go to the log, never to the client.
 */
import { Hono } from 'hono';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from '../http/body-limit.ts';
import type { GraphQLSchema } from 'graphql';
import type { Request as GraphQLHttpRequest } from 'graphql-http';
import { GRAPHQL_VERSIONS, isGraphQLVersion } from '../version.ts';
import { rateLimit } from '../http/rate-limit.ts';
import type { RateLimitOptions, RateLimiter } from '../http/rate-limit.ts';
import { GRAPHQL_LIMITS } from './limits.ts';
import { errorResponse, graphqlHandler, internalError } from './handler.ts';
import { schema as defaultSchema } from './schema.ts';
import { log } from '../lib/log.ts';

/** Default GraphQL budget per client: bursts of 60 requests, refilled at 10 per second (600/min sustained). */
export const GRAPHQL_RATE_LIMIT = { capacity: 60, refillPerSecond: 10 } as const;

/** The GraphQL-shaped 429 every GraphQL limiter answers with. */
export function graphqlRateLimited(): Response {
  return errorResponse(429, 'Too many requests', { code: 'RATE_LIMITED' });
}

/** A rate limiter with the GraphQL defaults and 429 body; pass overrides (clock, store, key, numbers). */
export function graphqlRateLimit(overrides: Partial<RateLimitOptions> = {}): RateLimiter {
  return rateLimit({
    ...GRAPHQL_RATE_LIMIT,
    name: 'graphql',
    onLimited: () => graphqlRateLimited(),
    ...overrides,
  });
}

export interface GraphQLRoutesOptions {
  /** Per-client limiter in front of every version. Default {@link graphqlRateLimit}(); `false` disables. */
  rateLimit?: RateLimiter | false;
  /** Schema to serve (tests inject failing resolvers). Default: the shared schema. */
  schema?: GraphQLSchema;
  /** Where internal faults are reported. Default: the server log. */
  onInternalError?: (err: unknown) => void;
}

/** 404 for a path version this server does not serve, naming the ones it does. */
const knownVersion: MiddlewareHandler<object, '/:version'> = async (c, next) => {
  const version = c.req.param('version');
  if (!isGraphQLVersion(version)) {
    return errorResponse(404, `Unknown API version "${version}". Supported versions: ${GRAPHQL_VERSIONS.join(', ')}.`, {
      code: 'UNKNOWN_VERSION',
      supportedVersions: [...GRAPHQL_VERSIONS],
    });
  }
  await next();
};

/** 413 for a body over GRAPHQL_LIMITS.maxBodyBytes, before anything reads it whole. */
const bodyWithinLimit = bodyLimit({
  maxSize: GRAPHQL_LIMITS.maxBodyBytes,
  onError: () =>
    errorResponse(413, `Request body exceeds the maximum size of ${GRAPHQL_LIMITS.maxBodyBytes} bytes.`, {
      code: 'PAYLOAD_TOO_LARGE',
      maxBytes: GRAPHQL_LIMITS.maxBodyBytes,
    }),
});

/** graphql-http's view of a Hono request. */
function graphqlRequest(c: Context): GraphQLHttpRequest<globalThis.Request, undefined> {
  return {
    method: c.req.method,
    url: c.req.url,
    headers: c.req.raw.headers,
    body: () => c.req.text(),
    raw: c.req.raw,
    context: undefined,
  };
}

export function graphqlRoutes(opts: GraphQLRoutesOptions = {}): Hono {
  const report = opts.onInternalError ?? ((err: unknown) => log.error('graphql', 'internal error', { err }));
  const limiter = opts.rateLimit === undefined ? graphqlRateLimit() : opts.rateLimit;
  const handle = graphqlHandler(opts.schema ?? defaultSchema, report);

  const app = new Hono();
  app.onError((err) => {
    report(err);
    return internalError();
  });
  // In this order: a limited client costs nothing, an unknown version is 404 whatever the body.
  if (limiter) app.use('/:version', limiter);
  app.use('/:version', knownVersion);
  app.use('/:version', bodyWithinLimit);
  app.all('/:version', async (c) => {
    try {
      return await handle(graphqlRequest(c));
    } catch (err) {
      report(err);
      return internalError();
    }
  });
  return app;
}
