/**
 * What the shop's MCP server answers, written once for both protocol eras (docs/mcp.md "Eras"):
 * the server's identity, capabilities and instructions, and the handlers of `tools/list`,
 * `tools/call`, `resources/list`, `resources/templates/list` and `resources/read`. The 2025 era
 * registers these on the official SDK's `Server` (server.ts); the 2026-07-28 era calls them from its
 * own edge (modern.ts). Tool definitions, schemas, results and `isError` rules live in tools.ts, the
 * MCP Apps view in apps.ts, access in auth.ts: nothing here or there knows which era asked.
 */
import { catalogImageOrigins } from '../core/catalog/image-origins.ts';
import { toolResult } from './result-json.ts';
import { authorizeMcp, type McpAuthContext } from './auth.ts';
import { callerIdentity } from '../http/authenticate.ts';
import { fromDomainError, McpProtocolError, RPC } from './errors.ts';
import { callTool, inputSchemaOf, invalidParams, type ToolContext } from './tools.ts';
import { inputErrorResult } from './input-errors.ts';
import { InvalidRequest, logCause, RequestTooLarge, toDomainError } from '../core/shared/errors.ts';
import { PACKAGE_VERSION } from '../version.ts';
import { appContents, appHtml, APP_URI } from './apps.ts';
import { isServedVersion } from '../ucp/versions.ts';

/** The server's identity (`serverInfo` at initialize; `_meta["io.modelcontextprotocol/serverInfo"]` in 2026-07-28). */
export const SERVER_INFO = { name: 'ucp-storefront', version: PACKAGE_VERSION } as const;

/** What this server offers, the same in both eras: tools, resources, and the MCP Apps extension. */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  extensions: { 'io.modelcontextprotocol/ui': {} },
};

/** Mutable per-request state the handlers report into. */
export interface CallState {
  ctx: McpAuthContext;
  /** HTTP status for the response (single-message requests only). */
  httpStatus?: number;
  headers: Record<string, string>;
  /** The protocol era of the request (resource misses are -32002 in 2025, -32602 in 2026-07-28). */
  era?: 'legacy' | 'modern';
}

const INSTRUCTIONS =
  'Universal Commerce Protocol (UCP 2026-08-25 and 2026-04-08) shopping tools for this shop. Every tools/call needs ' +
  'arguments.meta["ucp-agent"].profile = the URL of your platform profile (https; on a development server the demo agent\'s ' +
  'profile http://agent.localhost:<port>/.well-known/ucp works); its ucp.version is the version you are answered in ' +
  '(in 2026-08-25 the cart id goes in arguments.id only, never inside cart). Find products with search_catalog ' +
  '(or lookup_catalog / get_product), then build a cart with create_cart / update_cart (full replacement) / get_cart / ' +
  'cancel_cart (needs meta["idempotency-key"]). structuredContent is exactly the UCP REST response body.';

/**
 * What this shop's server tells the model (at `initialize`, or in `server/discover`). A development
 * server adds that it is a sandbox and, where the assembly gives them (the demo shop), the shop's
 * fixtures in words (docs/sandbox.md); a production shop never advertises test data.
 */
export function instructionsFor(ctx: Pick<McpAuthContext, 'config' | 'sandboxNotes'>): string {
  if (ctx.config.mode !== 'development') return INSTRUCTIONS;
  const sandbox = `${INSTRUCTIONS} This is a development sandbox: nothing is charged or shipped.`;
  return ctx.sandboxNotes ? `${sandbox} ${ctx.sandboxNotes}` : sandbox;
}

/** Notes a protocol failure's HTTP status and headers on the request, and hands the error back to throw. */
export function record(state: CallState, err: McpProtocolError): McpProtocolError {
  if (err.data.code === 'rate_limited') state.ctx.rateLimited?.();
  state.httpStatus = err.httpStatus;
  Object.assign(state.headers, err.httpHeaders);
  if (err.httpStatus === 401) state.headers['WWW-Authenticate'] ??= `Bearer realm="${state.ctx.origin}"`;
  if (err.data.retry_after !== undefined) state.headers['Retry-After'] = String(err.data.retry_after);
  return err;
}

/**
 * `tools/call`: access tier, platform profile and negotiation (docs/access.md), then the tool
 * itself. Input mistakes are `isError` results, protocol failures JSON-RPC errors (docs/mcp.md).
 */
export async function runToolCall(name: string, args: Record<string, unknown> | undefined, state: CallState) {
  try {
    const auth = await authorizeMcp(state.ctx, name, args);
    if (auth.kind === 'incompatible') return toolResult(auth.body);
    const access = auth.kind === 'ok' ? auth.access : undefined;
    const version = access && isServedVersion(access.version) ? access.version : undefined;
    const ctx: ToolContext = { ...state.ctx, ...(access ? { negotiated: access.negotiated } : {}), ...(version ? { version } : {}), caller: callerIdentity(access, state.ctx.client) };
    return await callTool(ctx, name, args);
  } catch (e) {
    // UCP's -32602 for an oversized batch; any other input mistake is a result the model reads (docs/mcp.md).
    if (e instanceof RequestTooLarge) throw record(state, invalidParams(e));
    if (e instanceof InvalidRequest) return inputErrorResult(e, args, inputSchemaOf(name));
    if (e instanceof McpProtocolError) throw record(state, e);
    const failure = toDomainError(e, `mcp ${name}`);
    logCause('mcp', failure);
    throw record(state, fromDomainError(failure));
  }
}

/**
 * `resources/read`: the view for this shop, or "resource not found" naming what exists: -32002 in
 * the 2025 era (as before), -32602 with `data.uri` in 2026-07-28 (that revision's MUST).
 */
export async function readResource(uri: string, state: CallState) {
  if (uri !== APP_URI) {
    const content = `No resource '${uri.slice(0, 200)}'. resources/list names this server's resources (${APP_URI}).`;
    if (state.era === 'modern') throw record(state, new McpProtocolError(RPC.invalidParams, 200, { uri: uri.slice(0, 2048), code: 'not_found', content }));
    throw record(state, new McpProtocolError(RPC.resourceNotFound, 200, { code: 'not_found', content }));
  }
  const html = appHtml();
  if (html === null) throw record(state, new McpProtocolError(RPC.server, 503, { code: 'app_not_built', content: 'The MCP Apps view has not been built on this server: run `npm run build:host` (vite build), then retry.', retry_after: 5 }));
  // The storefront's own origin (relative media resolve there), then the hosts the catalog's images use.
  return appContents(html, [state.ctx.origin, ...(await catalogImageOrigins(state.ctx.db, state.ctx.shop.id))]);
}
