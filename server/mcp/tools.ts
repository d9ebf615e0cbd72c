/**
 * The seven UCP shopping tools (DIGEST §4, SEED §4.5), each the twin of a REST operation: same wire
 * schema, same core function, same response body. Definitions, JSON Schemas and the `tools/list`
 * result are built once at module load; a call only validates and dispatches.
 *
 * Input schemas are generated from the shared zod/mini wire schemas in src/wire (no second copy):
 * `{meta, catalog}` for the catalog tools, `{meta, cart}` / `{meta, id}` / `{meta, id, cart}` for carts.
 */
import * as z from 'zod/mini';
import type { DB } from '../db/index.ts';
import type { Shop } from '../formats/types.ts';
import { GetProductRequest, LookupRequest, SearchRequest } from '../../src/wire/catalog.ts';
import { CreateCartRequest, UpdateCartRequest } from '../../src/wire/cart.ts';
import { getProductOp, lookupCatalogOp, searchCatalogOp } from '../ucp/catalog-operations.ts';
import { InvalidRequest, RequestTooLarge } from '../core/shared/errors.ts';
import { issueMessages } from '../http/errors.ts';
import { MCP_SCHEMA_URL } from '../core/shops/ucp-profile.ts';
import { CART_NOTE, CART_TEXT, CATALOG_TEXT, CUSTOMIZATION_NOTE, jsonSchema } from '../ucp/tool-text.ts';
import { cancelCartOp, createCartOp, getCartOp, updateCartOp, type OperationContext, type OperationResult } from '../ucp/cart-operations.ts';
import { CallMeta, CallMetaWithKey, readCallMeta, type CallMetaValues } from './meta.ts';
import { McpProtocolError, RPC } from './errors.ts';
import { unknownArguments } from './input-errors.ts';
import { UCP_VERSION, type UcpVersion } from '../version.ts';
import { toolResult } from './result-json.ts';
import { serializedOnce } from '../lib/json-fragments.ts';
import { toolUiMeta } from './apps.ts';

export interface ToolContext {
  db: DB;
  shop: Shop;
  /** Public origin of the storefront, e.g. `http://demo.localhost:8080`. */
  origin: string;
  acceptLanguage?: string;
  /** Accept `http://` profile URLs on loopback hosts (config allowInsecureProfileUrls; never in production). */
  allowLoopbackHttp: boolean;
  /** What to name instead when a profile is refused (authenticate.ts `profileAdvice`); called only then. */
  profileAdvice?: () => string;
  /** Capabilities negotiated with the calling platform (default: all of ours). */
  negotiated?: ReadonlySet<string>;
  /** Who calls (http/authenticate.ts callerIdentity): idempotency keys are stored under it. */
  caller?: string;
  /** The negotiated UCP version (server/ucp/versions.ts); default the seed's. */
  version?: UcpVersion;
}

/** The exact REST body a tool call produced (becomes `structuredContent`). */
type Body = Record<string, unknown>;

interface ToolDef {
  name: string;
  title: string;
  description: string;
  /** zod/mini schema of the whole `arguments` object (meta + payload), for JSON Schema only. */
  args: z.ZodMiniType;
  requireIdempotencyKey: boolean;
  readOnly: boolean;
  run(ctx: ToolContext, args: Record<string, unknown>, meta: CallMetaValues): Promise<Body>;
}

// ---------------------------------------------------------------------------------------------
// Shared glue: catalog and cart operations come from server/ucp, as for REST.

/** `$.x` → `$.catalog.x`: paths in errors point into `arguments`. */
function reroot(path: string, root: string): string {
  return path === '$' ? root : path.startsWith('$') ? root + path.slice(1) : path;
}

/** The same InvalidRequest (or RequestTooLarge) with its paths and message rooted at `arguments`. */
function rooted(err: InvalidRequest, root: string): InvalidRequest {
  const issues = err.issues.map((i) => ({ ...i, path: reroot(i.path, root) }));
  const message = err.message.replace(/\$(?=[.[\s)]|$)/g, root);
  return err instanceof RequestTooLarge ? new RequestTooLarge(message, issues) : new InvalidRequest(err.code, message, issues);
}

/**
 * RequestTooLarge → JSON-RPC -32602 (the UCP binding's code for an oversized batch) with every bad
 * path. Answered with HTTP 200 like every -32602: a 4xx makes MCP clients report a transport failure.
 */
export function invalidParams(err: InvalidRequest): McpProtocolError {
  return new McpProtocolError(RPC.invalidParams, 200, {
    code: err.code,
    content: err.message,
    ...(err.issues.length ? { messages: issueMessages(err) } : {}),
  });
}

async function payload<T>(root: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof InvalidRequest) throw rooted(e, root);
    throw e;
  }
}

function opContext(ctx: ToolContext, meta: CallMetaValues): OperationContext {
  return {
    db: ctx.db,
    shop: ctx.shop,
    origin: ctx.origin,
    ...(ctx.acceptLanguage ? { acceptLanguage: ctx.acceptLanguage } : {}),
    ...(meta.idempotencyKey ? { idempotencyKey: meta.idempotencyKey, ...(ctx.caller ? { caller: ctx.caller } : {}) } : {}),
    ...(ctx.negotiated ? { negotiated: ctx.negotiated } : {}),
    ...(ctx.version ? { version: ctx.version } : {}),
  };
}

/** An operation's body as the tool result (failures were thrown, and mapped by mcp/errors.ts). */
export function cartResult(r: OperationResult): Body {
  return r.body as Body;
}

function cartId(args: Record<string, unknown>): string {
  const id = args.id;
  if (typeof id !== 'string' || id.length === 0 || id.length > 256) {
    throw new InvalidRequest('invalid_request', 'arguments.id must be the cart id (a non-empty string, cart_…) that create_cart returned.', [
      { path: '$.id', code: 'invalid_type', content: 'Expected the cart id string returned by create_cart (cart_…).' },
    ]);
  }
  return id;
}

// ---------------------------------------------------------------------------------------------
// Descriptions: what a model needs to pick the tool and fill its arguments.

const OUTCOME_NOTE = 'Business outcomes (not_found, out_of_stock, customization errors) are normal results with UCP `messages`, not errors.';

const META_NOTE =
  'Always pass `meta: {"ucp-agent": {"profile": "<URL of your platform profile>"}}` in the arguments (https; on a development server, http://agent.localhost:<port>/.well-known/ucp).';

const catalogArgs = (schema: z.ZodMiniType) => z.object({ meta: CallMeta, catalog: schema });

const DEFS: ToolDef[] = [
  {
    name: 'search_catalog',
    title: 'Search the catalog',
    description:
      `${CATALOG_TEXT.search_catalog} Twin of REST POST /catalog/search. ${META_NOTE}`,
    args: catalogArgs(SearchRequest),
    requireIdempotencyKey: false,
    readOnly: true,
    run: (ctx, args) =>
      payload('$.catalog', async () => (await searchCatalogOp(ctx, args.catalog)).body as Body),
  },
  {
    name: 'lookup_catalog',
    title: 'Look up products by id',
    description:
      `${CATALOG_TEXT.lookup_catalog} Twin of REST POST /catalog/lookup. ${META_NOTE}`,
    args: catalogArgs(LookupRequest),
    requireIdempotencyKey: false,
    readOnly: true,
    run: (ctx, args) =>
      payload('$.catalog', async () => (await lookupCatalogOp(ctx, args.catalog)).body as Body),
  },
  {
    name: 'get_product',
    title: 'Get one product',
    description:
      `${CATALOG_TEXT.get_product} Twin of REST POST /catalog/product. ${META_NOTE}`,
    args: catalogArgs(GetProductRequest),
    requireIdempotencyKey: false,
    readOnly: true,
    run: (ctx, args) =>
      payload('$.catalog', async () => (await getProductOp(ctx, args.catalog)).body as Body),
  },
  {
    name: 'create_cart',
    title: 'Create a cart',
    description:
      'Create a cart with line items and get back prices, totals (estimates) and a continue_url; twin of REST POST /carts. ' +
      'Pass `cart: {line_items: [{item: {id}, quantity, customizations?}], context?, buyer?, discounts?}`. ' +
      CART_NOTE + ' ' + OUTCOME_NOTE + ' ' + CUSTOMIZATION_NOTE + ' ' + META_NOTE +
      ' Optional `meta["idempotency-key"]` (UUID) makes retries safe: the same key replays the first result; the same key with a different cart is refused.',
    args: z.object({ meta: CallMeta, cart: CreateCartRequest }),
    requireIdempotencyKey: false,
    readOnly: false,
    run: async (ctx, args, meta) => cartResult(await payload('$.cart', () => createCartOp(opContext(ctx, meta), args.cart))),
  },
  {
    name: 'get_cart',
    title: 'Get a cart',
    description:
      'Current state of a cart by id; twin of REST GET /carts/{id}. Pass `id`. ' + CART_TEXT.get + ' ' + META_NOTE,
    args: z.object({ meta: CallMeta, id: z.string() }),
    requireIdempotencyKey: false,
    readOnly: true,
    run: async (ctx, args, meta) => cartResult(await payload('$', () => getCartOp(opContext(ctx, meta), cartId(args)))),
  },
  {
    name: 'update_cart',
    title: 'Replace a cart\'s contents',
    description:
      'Update a cart; twin of REST PUT /carts/{id}. This is a FULL REPLACEMENT: send every line you want to keep ' +
      '(`cart: {line_items: [{id?, item: {id}, quantity, customizations?}], context?, buyer?, discounts?}`); omitted lines are removed. ' +
      'To add a line, send the existing lines plus the new one; to remove one, leave it out. ' +
      CART_NOTE + ' ' + OUTCOME_NOTE + ' ' + CUSTOMIZATION_NOTE + ' ' + META_NOTE +
      ' Optional `meta["idempotency-key"]` makes retries safe.',
    args: z.object({ meta: CallMeta, id: z.string(), cart: UpdateCartRequest }),
    requireIdempotencyKey: false,
    readOnly: false,
    run: async (ctx, args, meta) => cartResult(await payload('$.cart', () => updateCartOp(opContext(ctx, meta), cartId(args), args.cart))),
  },
  {
    name: 'cancel_cart',
    title: 'Cancel a cart',
    description:
      'Cancel a cart; twin of REST POST /carts/{id}/cancel. ' + CART_TEXT.cancel + ' ' +
      'Pass `id`. REQUIRES `meta["idempotency-key"]` (a UUID; reuse it only to retry this same cancel). ' + META_NOTE,
    args: z.object({ meta: CallMetaWithKey, id: z.string() }),
    requireIdempotencyKey: true,
    readOnly: false,
    run: async (ctx, args, meta) => cartResult(await payload('$', () => cancelCartOp(opContext(ctx, meta), cartId(args)))),
  },
];

/** Former storefront tool names → their UCP replacement (SEED §4.5.1). */
export const LEGACY_TOOLS: Record<string, string> = {
  search_products: 'search_catalog',
  search_shop_catalog: 'search_catalog',
  get_product_details: 'get_product',
  lookup_products: 'lookup_catalog',
  add_cart_lines: 'update_cart',
  update_cart_lines: 'update_cart',
  remove_cart_lines: 'update_cart',
  get_cart_details: 'get_cart',
  clear_cart: 'cancel_cart',
};

// ---------------------------------------------------------------------------------------------
// Built once: JSON Schemas and the tools/list result.

const OUTPUT_SCHEMA = {
  type: 'object',
  description: `The UCP response body, exactly as the REST transport returns it (see ${MCP_SCHEMA_URL}).`,
  properties: { ucp: { type: 'object', properties: { version: { type: 'string' } }, required: ['version'] } },
  required: ['ucp'],
} as const;

export const TOOLS: ReadonlyMap<string, ToolDef> = new Map(DEFS.map((d) => [d.name, d]));

/** The same for every call: frozen, its JSON made once (answerJson writes it). */
export const TOOLS_LIST_RESULT = serializedOnce({
  tools: DEFS.map((d) => ({
    name: d.name,
    title: d.title,
    description: d.description,
    inputSchema: jsonSchema(d.args),
    outputSchema: OUTPUT_SCHEMA,
    annotations: { title: d.title, readOnlyHint: d.readOnly, destructiveHint: d.name === 'cancel_cart', idempotentHint: d.readOnly, openWorldHint: false },
    // MCP Apps: the view that draws this tool's result, or who may call it (server/mcp/apps.ts).
    ...(toolUiMeta(d.name) ? { _meta: toolUiMeta(d.name) } : {}),
  })),
});

/** The published input schema of a tool (for explaining input mistakes). */
export function inputSchemaOf(name: string): Record<string, unknown> | undefined {
  return TOOLS_LIST_RESULT.tools.find((t) => t.name === name)?.inputSchema;
}

/**
 * Runs a tool: meta check, arguments, payload validation, the core call; returns the MCP result.
 * Unknown or renamed tools are -32602 errors; input mistakes throw InvalidRequest (paths rooted at
 * `arguments`), which server.ts answers as an `isError` result (input-errors.ts).
 */
export async function callTool(ctx: ToolContext, name: string, rawArgs: unknown) {
  const def = TOOLS.get(name);
  if (!def) {
    // Own keys only: the tool name is the client's string (`constructor` is on every object).
    const replacement = Object.hasOwn(LEGACY_TOOLS, name) ? LEGACY_TOOLS[name] : undefined;
    if (replacement) {
      throw new McpProtocolError(RPC.invalidParams, 200, {
        code: 'tool_renamed',
        content: `Tool '${name}' is no longer offered; use '${replacement}' (UCP ${UCP_VERSION} tool names).`,
        replacement,
      });
    }
    throw new McpProtocolError(RPC.invalidParams, 200, {
      code: 'unknown_tool',
      content: `Unknown tool '${String(name).slice(0, 100)}'. Offered: ${DEFS.map((d) => d.name).join(', ')}.`,
    });
  }
  const meta = readCallMeta(rawArgs, { requireIdempotencyKey: def.requireIdempotencyKey, allowLoopbackHttp: ctx.allowLoopbackHttp, advice: ctx.profileAdvice });
  const args = rawArgs as Record<string, unknown>;
  const unknown = unknownArguments(name, args, inputSchemaOf(name)!);
  if (unknown) throw unknown;
  return toolResult(await def.run(ctx, args, meta));
}
