/**
 * MCP Apps (extension `io.modelcontextprotocol/ui`, specification 2026-01-26) on the shop's MCP
 * server, as UCP's draft `dev.ucp.common.ui` binds it (docs/mcp-apps.md):
 *  - the catalog and cart tools name one `ui://` view in `_meta.ui.resourceUri`; `cancel_cart` is
 *    visible to the model only (`_meta.ui.visibility: ["model"]`), so a view can never cancel;
 *  - the view is one static HTML document (`dist/apps/shop.html`, built by Vite from the same
 *    Preact views as host.js, src/apps/), served by `resources/read` with the MCP Apps MIME type.
 *    Its data is the tool result's `structuredContent`; it reaches the shop only through the host's
 *    `tools/call`, so its CSP declares no `connectDomains`, only where product images come from.
 *    The document also carries its own CSP (a meta element: its inline script and style by hash,
 *    `connect-src 'none'`; vite.apps.config.ts `viewCsp`, docs/mcp-apps.md), beneath the host's.
 * Tool results are unchanged: hosts without the extension see exactly what they saw before.
 */
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The one view of the shop's tools (a catalog, a product, a cart: chosen by the result it is given). */
export const APP_URI = 'ui://ucp/shop.html';
export const APP_MIME = 'text/html;profile=mcp-app';
export const APP_PATH = fileURLToPath(new URL('../../dist/apps/shop.html', import.meta.url));

/** Tools that draw the view, and the one the view may never call (UCP: cancellation is the model's). */
const VIEW_TOOLS = new Set(['search_catalog', 'lookup_catalog', 'get_product', 'create_cart', 'get_cart', 'update_cart']);
const MODEL_ONLY = new Set(['cancel_cart']);

/** A tool definition's `_meta` for MCP Apps hosts, or undefined for a tool with nothing to say. */
export function toolUiMeta(name: string): { ui: { resourceUri?: string; visibility?: Array<'model' | 'app'> } } | undefined {
  if (VIEW_TOOLS.has(name)) return { ui: { resourceUri: APP_URI } };
  if (MODEL_ONLY.has(name)) return { ui: { visibility: ['model'] } };
  return undefined;
}

const RESOURCE = {
  uri: APP_URI,
  name: 'shop',
  title: 'Shop',
  description: 'Product cards, the product view (options, customizations, quantity) and the cart (quantities, discount codes, totals, checkout) of this shop.',
  mimeType: APP_MIME,
} as const;

export const RESOURCES_LIST_RESULT = { resources: [RESOURCE] };

let cached: { mtimeMs: number; html: string } | null = null;

/** The built view, re-read when the build changes; null when it has not been built. */
export function appHtml(): string | null {
  const m = statSync(APP_PATH, { throwIfNoEntry: false })?.mtimeMs;
  if (m === undefined) return null;
  if (cached?.mtimeMs !== m) cached = { mtimeMs: m, html: readFileSync(APP_PATH, 'utf8') };
  return cached.html;
}

/**
 * The `resources/read` contents of the view for one shop: the same document for every shop, with
 * the CSP naming only the origin its product images are served from (the storefront's own, where
 * catalog media URLs are resolved: server/core/products/products.ts) and any other image origins
 * the caller found in the shop's catalog.
 */
export function appContents(html: string, imageOrigins: readonly string[]) {
  return {
    contents: [
      {
        uri: APP_URI,
        mimeType: APP_MIME,
        text: html,
        _meta: { ui: { csp: { resourceDomains: [...new Set(imageOrigins)] }, prefersBorder: true } },
      },
    ],
  };
}
