/**
 * `/mcp` on a storefront domain. It exists only when the shop offers the protocol AND has
 * `settings.mcp_enabled` (otherwise 404, and discovery drops the binding). POST carries JSON-RPC;
 * GET/DELETE get 405 (no SSE stream, no sessions). The body limit is the app-wide MAX_BODY_BYTES,
 * answered as a JSON-RPC error.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { publicCors, UCP_ALLOW_HEADERS } from '../http/cors.ts';
import { bodyLimit } from '../http/body-limit.ts';
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status';
import type { Shop } from '../formats/types.ts';
import type { AppEnv } from '../http/env.ts';
import { protocolError } from '../http/errors.ts';
import { handleMcpPost, mcpMethodNotAllowed, mcpTooLarge } from './server.ts';
import { allowInsecureProfiles, headerReader, profileAdvice } from '../http/authenticate.ts';
import { sandboxFault } from '../http/sandbox-fault.ts';
import { incomingOf, countRateLimited, nameOperation, nameVersion } from '../http/metrics.ts';

export const requireMcp: MiddlewareHandler<AppEnv> = async (c, next) => {
  const shop = c.get('shop');
  if (!shop || !shop.protocolEnabled || !shop.settings.mcp_enabled) {
    return protocolError(c, 404, 'not_found', 'This domain does not offer the UCP MCP transport.');
  }
  await next();
};

/** REST's request headers (signed-tier agents sign MCP POSTs too) and MCP's own. */
const MCP_CORS = {
  allowHeaders: [...UCP_ALLOW_HEADERS, 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Mcp-Method', 'Mcp-Name'],
  allowMethods: ['POST', 'OPTIONS'],
  exposeHeaders: ['Retry-After', 'WWW-Authenticate', 'UCP-Sandbox-Fault-Ignored'],
  maxAge: 600,
};

export interface McpRouteOptions {
  maxBodyBytes: number;
  /** A shop's test data in words for development servers' instructions (the assembly knows the demo's; the transport does not). */
  sandboxNotes?: (shop: Shop) => string | undefined;
}

export function mcpRoutes(opts: McpRouteOptions) {
  const app = new Hono<AppEnv>();
  app.use('*', requireMcp);
  // The same CORS as REST (server/http/cors.ts): headers set before the handler, so the finished
  // answer is never copied into a full Response to add them (hono/cors did that on every call).
  app.use('*', publicCors(MCP_CORS));
  app.use('*', bodyLimit({ maxSize: opts.maxBodyBytes, onError: () => mcpTooLarge(opts.maxBodyBytes) }));
  const fault = sandboxFault('mcp');
  app.use('/', async (c, next) => (c.req.method === 'POST' ? fault(c, next) : next()));
  app.post('/', async (c) => {
    const shop = c.get('shop')!;
    const config = c.get('config');
    const text = await c.req.text();
    c.set('bodyText', text);
    const answer = await handleMcpPost(text, {
      db: c.get('db'),
      shop,
      origin: c.get('origin'),
      acceptLanguage: c.req.header('accept-language'),
      allowLoopbackHttp: allowInsecureProfiles(config),
      profileAdvice: () => profileAdvice(config, c.get('origin')),
      config,
      headers: headerReader(c.req),
      url: c.req.url,
      rawBody: text,
      client: c.get('client'),
      nameOperation: (op) => nameOperation(incomingOf(c), op),
      nameVersion: (v) => nameVersion(incomingOf(c), v),
      rateLimited: () => countRateLimited(incomingOf(c)),
      sandboxNotes: opts.sandboxNotes?.(shop),
    });
    if (answer.body === null) return c.body(null, answer.status as StatusCode, answer.headers);
    return c.body(answer.body, answer.status as ContentfulStatusCode, answer.headers);
  });
  // Written through the context, so the CORS headers set above stay: a browser MCP client's GET (the
  // SDK's client tries to open an SSE stream) must read our 405, not a CORS failure.
  app.all('/', (c) => {
    const answer = mcpMethodNotAllowed();
    return c.body(answer.body ?? '', answer.status as ContentfulStatusCode, answer.headers);
  });
  return app;
}
