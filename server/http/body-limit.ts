/**
 * The request-size limit, without building a Web `Request` for every request.
 *
 * Hono's `bodyLimit` starts with `c.req.raw.body`; on @hono/node-server that one property turns the
 * adapter's lightweight request into a full undici `Request` with a web stream (and its abort
 * signal), and the body is then read through that stream. Profiled on cart creates and MCP calls,
 * that was a visible share of every POST (docs/benchmarks.md). Almost every client sends
 * Content-Length, and Node's parser never delivers more than it says, so the header is the size:
 * checked here, the body is left for the adapter's direct read. Requests without it (chunked
 * uploads) go through Hono's streaming check unchanged.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as streamingBodyLimit } from 'hono/body-limit';

export interface BodyLimitOptions {
  maxSize: number;
  onError: (c: Context) => Response | Promise<Response>;
}

export function bodyLimit(opts: BodyLimitOptions): MiddlewareHandler {
  const streaming = streamingBodyLimit(opts);
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number.parseInt(length, 10) > opts.maxSize ? opts.onError(c) : next();
    }
    return streaming(c, next);
  };
}
