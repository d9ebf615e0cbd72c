/**
 * `GET /ucp/webmcp.json`: the tools host.js registers on `document.modelContext` (WebMCP) on the
 * shop's own pages, and the per-shop switch (`settings.webmcp_enabled`; off ⇒ 404, nothing is
 * registered). The list is data, not code in host.js: its input schemas are generated here from the
 * same src/wire zod schemas as the MCP transport's (server/ucp/tool-text.ts), which keeps zod out
 * of the browser (≈8.7 KB gzip to validate there) and lets the server turn the tools off for every
 * page at once. The browser side is src/webmcp/. See docs/webmcp.md.
 */
import { gzipSync } from 'node:zlib';
import { Hono } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../http/env.ts';
import { protocolError } from '../http/errors.ts';
import { shopOf } from '../ucp/guard.ts';
import { GetProductRequest, LookupRequest, SearchRequest } from '../../src/wire/catalog.ts';
import { CreateCartRequest, UpdateCartRequest } from '../../src/wire/cart.ts';
import { UCP_VERSION } from '../version.ts';
import { CART_NOTE, CATALOG_TEXT, CUSTOMIZATION_NOTE, jsonSchema } from '../ucp/tool-text.ts';

/** The shopper's cart id: optional on the page (it defaults to the cart `<ucp-cart>` shows). */
const CartId = z.optional(z.string().check(z.minLength(1), z.maxLength(256)));

const PAGE_NOTE =
  'On this page there is one cart, the shopper\'s (the one the page shows): `id` is optional and defaults to it; another id is refused. ' +
  'Changes show in the page at once, and the shopper\'s own changes are what get_cart returns next. ';
const CONTEXT_NOTE = ' `context` defaults to the language and currency the page shows.';
const RESULT_NOTE =
  ' Results carry the UCP response body (as text and as structured content); `isError` is set when nothing was done (invalid arguments, not found, a rejected line, the shopper declined).';

interface WebMcpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: { readOnlyHint: boolean; consequentialHint?: true };
}

const tool = (name: string, title: string, description: string, args: z.ZodMiniType, readOnly: boolean, consequential = false): WebMcpTool => ({
  name,
  title,
  description: description + RESULT_NOTE,
  inputSchema: jsonSchema(args),
  annotations: { readOnlyHint: readOnly, ...(consequential ? { consequentialHint: true as const } : {}) },
});

/** The tools, in the order they are registered: the seven UCP shopping tools (no `meta`) and begin_checkout. */
export const WEBMCP_TOOLS: readonly WebMcpTool[] = Object.freeze([
  tool('search_catalog', 'Search the catalog', CATALOG_TEXT.search_catalog + CONTEXT_NOTE, z.object({ catalog: SearchRequest }), true),
  tool('lookup_catalog', 'Look up products by id', CATALOG_TEXT.lookup_catalog + CONTEXT_NOTE, z.object({ catalog: LookupRequest }), true),
  tool('get_product', 'Get one product', CATALOG_TEXT.get_product + CONTEXT_NOTE, z.object({ catalog: GetProductRequest }), true),
  tool(
    'create_cart',
    'Add to the shopper\'s cart',
    'Put line items in the shopper\'s cart: creates it when the shopper has none, otherwise adds the lines to it ' +
      '(a line with the same variant and customizations gets its quantity raised). Pass `cart: {line_items: [{item: {id}, quantity, customizations?}], context?, buyer?, discounts?}`. ' +
      PAGE_NOTE + CART_NOTE + ' ' + CUSTOMIZATION_NOTE + CONTEXT_NOTE,
    z.object({ cart: CreateCartRequest }),
    false,
  ),
  tool('get_cart', 'Get the shopper\'s cart', 'The shopper\'s cart as it is now; `not_found` when the shopper has none (none yet, or after cancel_cart). ' + PAGE_NOTE + 'Pass `{}` (or the id).', z.object({ id: CartId }), true),
  tool(
    'update_cart',
    'Replace the shopper\'s cart',
    'FULL REPLACEMENT of the shopper\'s cart: send every line to keep (`cart: {line_items: [{id?, item: {id}, quantity, customizations?}], context?, buyer?, discounts?}`); omitted lines are removed. ' +
      'Read get_cart first, then send its lines changed. Creates the cart when the shopper has none. ' +
      PAGE_NOTE + CART_NOTE + ' ' + CUSTOMIZATION_NOTE + CONTEXT_NOTE,
    z.object({ id: CartId, cart: UpdateCartRequest }),
    false,
  ),
  tool(
    'cancel_cart',
    'Cancel the shopper\'s cart',
    'Cancel the shopper\'s cart: the shop empties it and the page lets go of it, so the page shows an empty cart and get_cart here answers `not_found` until create_cart starts a new one. ' +
      'The shopper is asked to confirm first; declining returns an error result with code `declined`. Returns the cart as it was before the cancel. ' + PAGE_NOTE,
    z.object({ id: CartId }),
    false,
    true,
  ),
  tool(
    'begin_checkout',
    'Go to checkout',
    'Hand the shopper\'s cart over to the shop\'s checkout, exactly as the cart\'s Checkout button does: the page leaves for checkout right after this result. ' +
      'The shopper is asked to confirm first; declining returns an error result with code `declined`. Returns the cart (its `continue_url` is where checkout continues). ' +
      PAGE_NOTE,
    z.object({ id: CartId }),
    false,
    true,
  ),
]);

const BODY = Buffer.from(JSON.stringify({ version: UCP_VERSION, tools: WEBMCP_TOOLS }));
/** ≈16 KB of JSON, ≈2.5 KB gzipped: compressed once, at load. */
const GZIP = gzipSync(BODY, { level: 9 });

export function webMcpRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/webmcp.json', (c) => {
    // Same-origin only (host.js registers tools on the shop's own pages): no CORS header.
    c.header('Cache-Control', 'public, max-age=300');
    c.header('X-Content-Type-Options', 'nosniff');
    if (!shopOf(c).settings.webmcp_enabled) {
      return protocolError(c, 404, 'webmcp_disabled', 'This shop does not offer its tools to in-page agents (settings.webmcp_enabled is off).');
    }
    c.header('Content-Type', 'application/json; charset=utf-8');
    c.header('Vary', 'Accept-Encoding');
    if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) {
      c.header('Content-Encoding', 'gzip');
      return c.body(new Uint8Array(GZIP), 200);
    }
    return c.body(new Uint8Array(BODY), 200);
  });
  return app;
}
