/**
 * The GraphQL side of `/graphql/<version>`: graphql-http does the transport (methods, media types,
 * parameters, negotiation); parse, validate and execute run here with our own graphql-js import, so
 * graphql-http never touches the schema. It may load a different copy of graphql (CJS vs ESM, e.g.
 * under vitest) and graphql-js refuses schemas from "another module or realm".
 *
 * The statuses it answers are listed in routes.ts; the HTTP edge around it (versions, body limit,
 * rate limit) is there too.
 */
import { GraphQLError, execute, getOperationAST, parse, specifiedRules, validate } from 'graphql';
import type { DocumentNode, ExecutionResult, GraphQLSchema, ValidationRule } from 'graphql';
import { createHandler } from 'graphql-http';
import type { OperationArgs, RequestParams, Request as GraphQLHttpRequest, Response as GraphQLHttpResponse } from 'graphql-http';
import { GRAPHQL_LIMITS, depthLimitRule } from './limits.ts';
import { inputProblem } from '../../src/wire/input.ts';

type HttpRequest = GraphQLHttpRequest<globalThis.Request, undefined>;

const JSON_TYPE = 'application/json; charset=utf-8';

export function errorsBody(message: string, extensions?: Record<string, unknown>): string {
  return JSON.stringify({ errors: [extensions ? { message, extensions } : { message }] });
}

/** A GraphQL-shaped `{ errors }` answer with one error. */
export function errorResponse(status: number, message: string, extensions?: Record<string, unknown>): Response {
  return new Response(errorsBody(message, extensions), { status, headers: { 'content-type': JSON_TYPE } });
}

export const internalError = () => errorResponse(500, 'Internal server error');

/** The media type graphql-http negotiated (it has already answered 406 when there is none). */
function responseType(accept: string | null): string {
  for (const entry of (accept || '*/*').toLowerCase().split(',')) {
    const type = entry.split(';')[0].trim();
    if (type === 'application/graphql-response+json') return 'application/graphql-response+json; charset=utf-8';
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return JSON_TYPE;
  }
  return JSON_TYPE;
}

/** A request error (no `data` entry), in graphql-http's [body, init] form. */
function requestError(accept: string | null, status: 400 | 405, errors: readonly unknown[], extra: Record<string, string> = {}) {
  return [
    JSON.stringify({ errors }),
    {
      status,
      statusText: status === 405 ? 'Method Not Allowed' : 'Bad Request',
      headers: { 'content-type': responseType(accept), ...extra },
    },
  ] as const;
}

/** A resolver threw something that is not a GraphQLError: a bug or an outage, not a client mistake. */
function internalFault(result: ExecutionResult): unknown {
  for (const err of result.errors ?? []) {
    if (err.originalError && !(err.originalError instanceof GraphQLError)) return err.originalError;
  }
  return undefined;
}

/**
 * The checks between the request's parameters and execution, in order: parameter text, query size,
 * parse (token limit), GET with a mutation, validation (depth limit). Each failure is a request error;
 * success is the arguments to execute.
 */
function prepareOperation(schema: GraphQLSchema, rules: readonly ValidationRule[], req: HttpRequest, params: RequestParams) {
  const accept = req.raw.headers.get('accept');
  const { query, operationName, variables } = params;
  const bad = inputProblem({ query, operationName, variables });
  if (bad) return requestError(accept, 400, [{ message: `${bad.path}: ${bad.content}`, extensions: { code: 'INVALID_INPUT', path: bad.path } }]);
  if (Buffer.byteLength(query, 'utf8') > GRAPHQL_LIMITS.maxQueryBytes) {
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
  // Mutations are refused over GET before validation, so the answer is 405 whatever the schema offers.
  if (req.method === 'GET' && getOperationAST(document, operationName)?.operation === 'mutation') {
    return requestError(accept, 405, [{ message: 'Cannot perform mutations over GET' }], { allow: 'POST' });
  }
  const errors = validate(schema, document, rules);
  if (errors.length) return requestError(accept, 400, errors);
  const args: OperationArgs<undefined> = {
    schema,
    document,
    operationName: operationName ?? undefined,
    variableValues: variables ?? undefined,
    contextValue: undefined,
    rootValue: undefined,
  };
  return args;
}

/** graphql-http's answer as a Response, with our statuses where its defaults differ (routes.ts). */
function toResponse([body, init]: GraphQLHttpResponse): Response {
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
}

/** Answers one GraphQL request on `schema`; internal faults go to `report` and out as a bare 500. */
export function graphqlHandler(schema: GraphQLSchema, report: (err: unknown) => void): (req: HttpRequest) => Promise<Response> {
  const rules = [...specifiedRules, depthLimitRule(GRAPHQL_LIMITS.maxDepth, GRAPHQL_LIMITS.maxIntrospectionDepth)];
  const handler = createHandler<globalThis.Request, undefined>({
    execute,
    getOperationAST,
    onSubscribe: (req, params) => prepareOperation(schema, rules, req, params),
    onOperation(_req, _args, result) {
      const fault = internalFault(result);
      if (fault === undefined) return undefined;
      report(fault);
      return [errorsBody('Internal server error'), { status: 500, statusText: 'Internal Server Error', headers: { 'content-type': JSON_TYPE } }];
    },
  });
  return async (req) => toResponse(await handler(req));
}
