/**
 * GraphQL over HTTP at `/graphql/<version>`, served by graphql-http's spec-compliant handler.
 *
 * Mount with `app.route('/graphql', graphqlRoutes())`. Host-agnostic, so every storefront domain answers.
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
import type { Context } from 'hono';
import { bodyLimit } from '../http/body-limit.ts';
import { GraphQLError, execute, getOperationAST, parse, specifiedRules, validate } from 'graphql';
import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { createHandler } from 'graphql-http';
import type { Request as GraphQLHttpRequest, Response as GraphQLHttpResponse } from 'graphql-http';
import { GRAPHQL_VERSIONS, isGraphQLVersion } from '../version.ts';
import { rateLimit } from '../http/rate-limit.ts';
import type { RateLimitOptions, RateLimiter } from '../http/rate-limit.ts';
import { GRAPHQL_LIMITS, depthLimitRule } from './limits.ts';
import { schema as defaultSchema } from './schema.ts';
import { inputProblem } from '../../src/wire/input.ts';
import { log } from '../lib/log.ts';

/** Default GraphQL budget per client: bursts of 60 requests, refilled at 10 per second (600/min sustained). */
export const GRAPHQL_RATE_LIMIT = { capacity: 60, refillPerSecond: 10 } as const;

const JSON_TYPE = 'application/json; charset=utf-8';

function errorsBody(message: string, extensions?: Record<string, unknown>): string {
  return JSON.stringify({ errors: [extensions ? { message, extensions } : { message }] });
}

function errorResponse(status: number, message: string, extensions?: Record<string, unknown>): Response {
  return new Response(errorsBody(message, extensions), { status, headers: { 'content-type': JSON_TYPE } });
}

const internalError = () => errorResponse(500, 'Internal server error');

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

/** A resolver threw something that is not a GraphQLError: a bug or an outage, not a client mistake. */
function internalFault(result: ExecutionResult): unknown {
  for (const err of result.errors ?? []) {
    if (err.originalError && !(err.originalError instanceof GraphQLError)) return err.originalError;
  }
  return undefined;
}

/** The media type graphql-http negotiated (it has already answered 406 when there is none). */
function responseType(accept: string | null): string {
  for (const entry of (accept || '*/*').toLowerCase().split(',')) {
    const type = entry.split(';')[0].trim();
    if (type === 'application/graphql-response+json') return 'application/graphql-response+json; charset=utf-8';
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return JSON_TYPE;
  }
  return JSON_TYPE;
}

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export function graphqlRoutes(opts: GraphQLRoutesOptions = {}): Hono {
  const schema = opts.schema ?? defaultSchema;
  const report = opts.onInternalError ?? ((err: unknown) => log.error('graphql', 'internal error', { err }));
  const limiter = opts.rateLimit === undefined ? graphqlRateLimit() : opts.rateLimit;

  const rules = [...specifiedRules, depthLimitRule(GRAPHQL_LIMITS.maxDepth, GRAPHQL_LIMITS.maxIntrospectionDepth)];
  /** A request error (no `data` entry), in graphql-http's [body, init] form. */
  const requestError = (accept: string | null, status: 400 | 405, errors: readonly unknown[], extra: Record<string, string> = {}) =>
    [
      JSON.stringify({ errors }),
      {
        status,
        statusText: status === 405 ? 'Method Not Allowed' : 'Bad Request',
        headers: { 'content-type': responseType(accept), ...extra },
      },
    ] as const;

  // graphql-http does the transport (methods, media types, parameters, negotiation); the GraphQL side —
  // parse, validate, execute — runs here with our own graphql-js import. graphql-http must never touch the
  // schema itself: it may load a different copy of graphql (CJS vs ESM, e.g. under vitest) and graphql-js
  // refuses schemas from "another module or realm".
  const handler = createHandler<globalThis.Request, undefined>({
    execute,
    getOperationAST,
    onSubscribe(req, params) {
      const accept = req.raw.headers.get('accept');
      const { query, operationName, variables } = params;
      const bad = inputProblem({ query, operationName, variables });
      if (bad) return requestError(accept, 400, [{ message: `${bad.path}: ${bad.content}`, extensions: { code: 'INVALID_INPUT', path: bad.path } }]);
      if (byteLength(query) > GRAPHQL_LIMITS.maxQueryBytes) {
        return requestError(accept, 400, [
          {
            message: `Query exceeds the maximum size of ${GRAPHQL_LIMITS.maxQueryBytes} bytes.`,
            extensions: { code: 'QUERY_TOO_LARGE', maxBytes: GRAPHQL_LIMITS.maxQueryBytes },
          },
        ]);
      }
      let document: DocumentNode;
      try {
        document = parse(query, { maxTokens: GRAPHQL_LIMITS.maxTokens });
      } catch (err) {
        if (err instanceof GraphQLError) return requestError(accept, 400, [err]);
        throw err;
      }
      const operation = getOperationAST(document, operationName);
      // Mutations are refused over GET before validation, so the answer is 405 whatever the schema offers.
      if (req.method === 'GET' && operation?.operation === 'mutation') {
        return requestError(accept, 405, [{ message: 'Cannot perform mutations over GET' }], { allow: 'POST' });
      }
      const errors = validate(schema, document, rules);
      if (errors.length) return requestError(accept, 400, errors);
      return {
        schema,
        document,
        operationName: operationName ?? undefined,
        variableValues: variables ?? undefined,
        contextValue: undefined,
        rootValue: undefined,
      };
    },
    onOperation(_req, _args, result) {
      const fault = internalFault(result);
      if (fault !== undefined) {
        report(fault);
        return [
          errorsBody('Internal server error'),
          { status: 500, statusText: 'Internal Server Error', headers: { 'content-type': JSON_TYPE } },
        ];
      }
      return undefined;
    },
  });

  const toResponse = ([body, init]: GraphQLHttpResponse): Response => {
    let status = init.status ?? 200;
    let text = body;
    const headers = new Headers(init.headers as Record<string, string> | undefined);
    if (status === 200 && text) {
      // Request errors that surface late (variable coercion, unknown operationName, subscriptions) come back
      // as `{ errors }` without `data`; graphql-http sends 200 for those under Accept: application/json.
      const parsed = JSON.parse(text) as Record<string, unknown>;
      if (!('data' in parsed) && 'errors' in parsed) status = 400;
    }
    if (text === null && status >= 400) {
      text = errorsBody(init.statusText ?? 'Request failed');
      headers.set('content-type', JSON_TYPE);
    }
    return new Response(text, { status, statusText: status === init.status ? init.statusText : undefined, headers });
  };

  const app = new Hono();

  app.onError((err) => {
    report(err);
    return internalError();
  });

  if (limiter) app.use('/:version', limiter);

  app.use('/:version', async (c, next) => {
    const version = c.req.param('version');
    if (!isGraphQLVersion(version)) {
      return errorResponse(404, `Unknown API version "${version}". Supported versions: ${GRAPHQL_VERSIONS.join(', ')}.`, {
        code: 'UNKNOWN_VERSION',
        supportedVersions: [...GRAPHQL_VERSIONS],
      });
    }
    await next();
  });

  app.use(
    '/:version',
    bodyLimit({
      maxSize: GRAPHQL_LIMITS.maxBodyBytes,
      onError: () =>
        errorResponse(413, `Request body exceeds the maximum size of ${GRAPHQL_LIMITS.maxBodyBytes} bytes.`, {
          code: 'PAYLOAD_TOO_LARGE',
          maxBytes: GRAPHQL_LIMITS.maxBodyBytes,
        }),
    }),
  );

  app.all('/:version', async (c: Context) => {
    const req: GraphQLHttpRequest<globalThis.Request, undefined> = {
      method: c.req.method,
      url: c.req.url,
      headers: c.req.raw.headers,
      body: () => c.req.text(),
      raw: c.req.raw,
      context: undefined,
    };
    try {
      return toResponse(await handler(req));
    } catch (err) {
      report(err);
      return internalError();
    }
  });

  return app;
}
