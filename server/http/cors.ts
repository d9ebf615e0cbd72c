/**
 * CORS for the public UCP endpoints: any origin, no credentials. Written out rather than using
 * hono/cors because that middleware edits the finished Response's headers, which makes the Node
 * adapter build a full Response object on every request: it halved discovery throughput (measured
 * in docs/benchmarks.md). Here every header is set before the handler runs.
 */
import type { MiddlewareHandler } from 'hono';

/** What a UCP call may carry, on REST and MCP alike: identity, credentials, signatures (RFC 9421), sandbox faults. */
export const UCP_ALLOW_HEADERS = [
  'Authorization', 'Content-Type', 'UCP-Agent', 'Idempotency-Key', 'Request-Id',
  'Signature', 'Signature-Input', 'Content-Digest', 'X-API-Key', 'UCP-Sandbox-Fault',
  // host.js's WebMCP tools label their calls for the development request inspector; a storefront
  // page on another origin than its shop must be allowed to send that.
  'UCP-Inspector-Transport',
];

export interface CorsOptions {
  allowMethods: string[];
  allowHeaders: string[];
  exposeHeaders: string[];
  /** Seconds a browser may cache a preflight answer. */
  maxAge: number;
}

export function publicCors(o: CorsOptions): MiddlewareHandler {
  const preflight = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': o.allowMethods.join(', '),
    'Access-Control-Allow-Headers': o.allowHeaders.join(', '),
    'Access-Control-Max-Age': String(o.maxAge),
  };
  const simple = simpleCorsHeaders(o);
  return async (c, next) => {
    if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method')) {
      return c.body(null, 204, preflight);
    }
    for (const name in simple) c.header(name, simple[name]);
    await next();
  };
}

/** The headers of an actual (non-preflight) response; also written by the discovery fast path. */
export function simpleCorsHeaders(o: Pick<CorsOptions, 'exposeHeaders'>): Record<string, string> {
  return { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': o.exposeHeaders.join(', ') };
}
