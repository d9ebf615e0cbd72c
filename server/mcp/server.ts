/**
 * The MCP endpoint of a shop, on the official SDK: a low-level `Server` answering `tools/list` from
 * the prebuilt list and `tools/call` through server/mcp/tools.ts. Streamable HTTP in stateless JSON
 * mode: no session, no SSE stream, every POST answered with JSON (exchange-transport.ts carries the
 * messages between the HTTP request and the SDK's server).
 *
 * Two kinds of client are served by the same code path:
 * 1. MCP clients (the SDK's `Client`): initialize → notifications/initialized → tools/list/call.
 * 2. Plain JSON-RPC POSTs with no initialize, no session and `Accept: application/json` only, with
 *    `meta` inside `params.arguments` even on tools/list (what @shopify/ucp-cli sends). The SDK's
 *    HTTP transport would answer those with 406; ours serves them.
 *
 * Before the SDK runs, the body is parsed and the JSON-RPC envelope checked here so malformed input
 * gets -32700 / -32600 with HTTP 400 (never a crash), and `tools/list` meta is checked.
 *
 * A `Server` serves one POST at a time (request ids are only unique per client), so each POST takes a
 * connected `Server` from a small pool of idle ones (handlers are request-independent: the
 * per-request context travels in `authInfo.extra`).
 */
import { catalogImageOrigins } from '../core/catalog/image-origins.ts';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  JSONRPCMessageSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { ExchangeTransport } from './exchange-transport.ts';
import { answerJson, toolResult } from './result-json.ts';
import { authorizeMcp, type McpAuthContext } from './auth.ts';
import { callerIdentity } from '../http/authenticate.ts';
import { fromDomainError, McpProtocolError, RPC, rpcErrorBody } from './errors.ts';
import { readCallMeta } from './meta.ts';
import { callTool, inputSchemaOf, invalidParams, TOOLS, TOOLS_LIST_RESULT, type ToolContext } from './tools.ts';
import { inputErrorResult } from './input-errors.ts';
import { InvalidRequest, logCause, RequestTooLarge, toDomainError } from '../core/shared/errors.ts';
import { PACKAGE_VERSION } from '../version.ts';
import { appContents, appHtml, APP_URI, RESOURCES_LIST_RESULT } from './apps.ts';
import { isServedVersion } from '../ucp/versions.ts';

/** Largest JSON-RPC batch accepted (the SDK's own limit is 100). */
export const MAX_BATCH = 20;

/** Mutable per-request state the handlers report into. */
interface CallState {
  ctx: McpAuthContext;
  /** HTTP status for the response (single-message requests only). */
  httpStatus?: number;
  headers: Record<string, string>;
}

const INSTRUCTIONS =
  'Universal Commerce Protocol (UCP 2026-08-25 and 2026-04-08) shopping tools for this shop. Every tools/call needs ' +
  'arguments.meta["ucp-agent"].profile = the URL of your platform profile (https; on a development server the demo agent\'s ' +
  'profile http://agent.localhost:<port>/.well-known/ucp works); its ucp.version is the version you are answered in ' +
  '(in 2026-08-25 the cart id goes in arguments.id only, never inside cart). Find products with search_catalog ' +
  '(or lookup_catalog / get_product), then build a cart with create_cart / update_cart (full replacement) / get_cart / ' +
  'cancel_cart (needs meta["idempotency-key"]). structuredContent is exactly the UCP REST response body.';

/**
 * What this shop's server tells the model at `initialize`. A development server adds that it is a
 * sandbox and, where the assembly gives them (the demo shop), the shop's fixtures in words
 * (docs/sandbox.md); a production shop never advertises test data.
 */
function instructionsFor(ctx: Pick<McpAuthContext, 'config' | 'sandboxNotes'>): string {
  if (ctx.config.mode !== 'development') return INSTRUCTIONS;
  const sandbox = `${INSTRUCTIONS} This is a development sandbox: nothing is charged or shipped.`;
  return ctx.sandboxNotes ? `${sandbox} ${ctx.sandboxNotes}` : sandbox;
}

function record(state: CallState, err: McpProtocolError): McpProtocolError {
  if (err.data.code === 'rate_limited') state.ctx.rateLimited?.();
  state.httpStatus = err.httpStatus;
  Object.assign(state.headers, err.httpHeaders);
  if (err.httpStatus === 401) state.headers['WWW-Authenticate'] ??= `Bearer realm="${state.ctx.origin}"`;
  if (err.data.retry_after !== undefined) state.headers['Retry-After'] = String(err.data.retry_after);
  return err;
}

function stateOf(extra: { authInfo?: { extra?: Record<string, unknown> } }): CallState {
  const state = extra.authInfo?.extra?.state as CallState | undefined;
  if (!state) throw new Error('MCP request state missing');
  return state;
}

function buildServer(instructions: string): Server {
  const server = new Server(
    { name: 'ucp-storefront', version: PACKAGE_VERSION },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, extensions: { 'io.modelcontextprotocol/ui': {} } }, instructions },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => TOOLS_LIST_RESULT as never);
  // MCP Apps: the shop's one view (server/mcp/apps.ts). Public like host.js: no agent profile needed.
  server.setRequestHandler(ListResourcesRequestSchema, () => RESOURCES_LIST_RESULT);
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => readResource(request.params.uri, stateOf(extra as never)));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const state = stateOf(extra as never);
    try {
      // Access tier, platform profile and negotiation (docs/access.md); then the tool itself.
      const auth = await authorizeMcp(state.ctx, request.params.name, request.params.arguments);
      if (auth.kind === 'incompatible') return toolResult(auth.body);
      const access = auth.kind === 'ok' ? auth.access : undefined;
      const version = access && isServedVersion(access.version) ? access.version : undefined;
      const ctx: ToolContext = { ...state.ctx, ...(access ? { negotiated: access.negotiated } : {}), ...(version ? { version } : {}), caller: callerIdentity(access, state.ctx.client) };
      return await callTool(ctx, request.params.name, request.params.arguments);
    } catch (e) {
      // UCP's -32602 for an oversized batch; any other input mistake is a result the model reads (docs/mcp.md).
      if (e instanceof RequestTooLarge) throw record(state, invalidParams(e));
      if (e instanceof InvalidRequest) return inputErrorResult(e, request.params.arguments, inputSchemaOf(request.params.name));
      if (e instanceof McpProtocolError) throw record(state, e);
      const failure = toDomainError(e, `mcp ${request.params.name}`);
      logCause('mcp', failure);
      throw record(state, fromDomainError(failure));
    }
  });
  return server;
}

/** `resources/read`: the view for this shop, or -32002 (MCP's "resource not found") naming what exists. */
async function readResource(uri: string, state: CallState) {
  if (uri !== APP_URI) throw record(state, new McpProtocolError(RPC.resourceNotFound, 200, { code: 'not_found', content: `No resource '${uri.slice(0, 200)}'. resources/list names this server's resources (${APP_URI}).` }));
  const html = appHtml();
  if (html === null) throw record(state, new McpProtocolError(RPC.server, 503, { code: 'app_not_built', content: 'The MCP Apps view has not been built on this server: run `npm run build:host` (vite build), then retry.', retry_after: 5 }));
  // The storefront's own origin (relative media resolve there), then the hosts the catalog's images use.
  return appContents(html, [state.ctx.origin, ...(await catalogImageOrigins(state.ctx.db, state.ctx.shop.id))]);
}

/**
 * A few idle servers, each connected for good to its own transport and reused: building one (and
 * registering handlers) per request costs ~1 ms CPU, and connecting and closing one per request was
 * most of the rest (exchange-transport.ts). One POST at a time per server.
 */
interface ConnectedServer {
  server: Server;
  transport: ExchangeTransport;
}
/** Idle servers by their instructions (at most three texts: production, development, the demo shop's). */
const idle = new Map<string, ConnectedServer[]>();
const POOL_MAX = 32;
/** Servers taken from the pool and not yet given back: 0 whenever no POST is in flight (tests read it). */
let inUse = 0;
export const mcpServersInUse = () => inUse;

async function connectedServer(instructions: string): Promise<ConnectedServer> {
  const server = buildServer(instructions);
  const transport = new ExchangeTransport();
  await server.connect(transport);
  return { server, transport };
}

/**
 * What to answer a POST with, written by the route with Hono's `c.body` (returning a `Response`
 * object instead made Hono copy it to merge the CORS headers already set, and the node adapter
 * build a full undici Response for that copy: measured on every MCP call).
 */
export interface McpAnswer {
  status: number;
  body: string | null;
  headers: Record<string, string>;
}

function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): McpAnswer {
  return { status, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...headers } };
}

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const a = jsonAnswer(status, body, headers);
  return new Response(a.body, { status: a.status, headers: a.headers });
}

type Message = Record<string, unknown>;
const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null && !Array.isArray(v);
/** MCP's request id: a string or an integer (the SDK's RequestIdSchema; JSON-RPC discourages null and fractions). */
const validId = (id: unknown): id is string | number => typeof id === 'string' || Number.isSafeInteger(id);

/** Why a message is not a JSON-RPC 2.0 request/notification/response, or undefined when it is. */
function envelopeProblem(m: unknown): string | undefined {
  if (!isObject(m)) return 'A JSON-RPC message must be an object.';
  if (m.jsonrpc !== '2.0') return 'A JSON-RPC message needs "jsonrpc": "2.0".';
  if ('method' in m) {
    if (typeof m.method !== 'string' || m.method === '') return '"method" must be a non-empty string.';
    if ('id' in m && !validId(m.id)) return '"id" must be a string or an integer (MCP: never null).';
    if ('params' in m && m.params !== undefined && !isObject(m.params) && !Array.isArray(m.params)) return '"params" must be an object.';
    if ('result' in m || 'error' in m) return 'A JSON-RPC message is a request or a response, not both.';
    return undefined;
  }
  if ('result' in m || 'error' in m) return undefined;
  return 'A JSON-RPC request needs a "method".';
}

/**
 * Why a `tools/call` request's params cannot reach a tool (JSON-RPC -32602, docs/mcp.md), or
 * undefined. Checked before the SDK, whose own schema failure would be an internal error with a
 * validation dump.
 */
function callParamsProblem(m: Message): string | undefined {
  const params = m.params;
  const shape = 'tools/call takes params {"name": "<tool name>", "arguments": {…}}; tools/list names the tools.';
  if (!isObject(params)) return `params must be an object. ${shape}`;
  if (typeof params.name !== 'string' || params.name === '') return `params.name must be a tool name (a non-empty string). ${shape}`;
  if (params.arguments !== undefined && !isObject(params.arguments)) {
    return `params.arguments must be an object, not ${params.arguments === null ? 'null' : Array.isArray(params.arguments) ? 'an array' : typeof params.arguments}. ${shape}`;
  }
  if (params._meta !== undefined && !isObject(params._meta)) return `params._meta must be an object when present. ${shape}`;
  return undefined;
}

type SafeParse = (v: unknown) => { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } };
/**
 * The SDK's own schemas of the other requests this server answers; the SDK would call a mismatch
 * internal. A Map, not an object literal: the method name is the client's string, and an object
 * would hand back `constructor`, `toString` or `__proto__` from its prototype (issue 29: HTTP 500).
 */
const REQUEST_SCHEMAS = new Map<string, SafeParse>([
  ['initialize', (v) => InitializeRequestSchema.safeParse(v)],
  ['ping', (v) => PingRequestSchema.safeParse(v)],
  ['tools/list', (v) => ListToolsRequestSchema.safeParse(v)],
  ['resources/list', (v) => ListResourcesRequestSchema.safeParse(v)],
  ['resources/templates/list', (v) => ListResourceTemplatesRequestSchema.safeParse(v)],
  ['resources/read', (v) => ReadResourceRequestSchema.safeParse(v)],
]);

const issueText = (issues: Array<{ path: PropertyKey[]; message: string }>) => issues.map((i) => `${i.path.map(String).join('.') || 'the request'}: ${i.message}`).join('; ');

/** Why a request the SDK would refuse as internal has the wrong params (JSON-RPC -32602), or undefined. */
function requestProblem(m: Message): string | undefined {
  const r = REQUEST_SCHEMAS.get(m.method as string)?.(m);
  if (!r || r.success) return undefined;
  return `${String(m.method)} ${issueText(r.error!.issues)} (see the MCP specification for its params, e.g. initialize takes {"protocolVersion", "capabilities", "clientInfo"}).`;
}

/**
 * Why the SDK's message schema refuses a message our envelope check let through, as a JSON-RPC
 * error: a mistake inside `params` (e.g. `_meta.progressToken` given as an object) is -32602 naming
 * the field; anything else about the message -32600. Never -32700: the body was valid JSON.
 */
function sdkSchemaProblem(m: Message): { code: number; problem: string } | undefined {
  if (JSONRPCMessageSchema.safeParse(m).success) return undefined;
  // The union's own issue says only "invalid input": the request or notification schema names the field.
  const own = (m.method === undefined ? JSONRPCMessageSchema : 'id' in m ? JSONRPCRequestSchema : JSONRPCNotificationSchema).safeParse(m);
  const issues = own.success ? [] : own.error.issues;
  const inParams = issues.length > 0 && issues.every((i) => i.path[0] === 'params');
  const text = issues.length ? issueText(issues) : 'the message matches no JSON-RPC message shape';
  if (inParams) return { code: RPC.invalidParams, problem: `${String(m.method)} ${text} (_meta.progressToken is a string or an integer).` };
  return { code: RPC.invalidRequest, problem: text };
}

/**
 * Checks `meta` on methods other than tools/call (the CLI sends it on tools/list): optional there,
 * but refused when present and malformed.
 */
function checkListMeta(m: Message, ctx: ToolContext): void {
  const params = m.params;
  if (!isObject(params) || !('arguments' in params)) return;
  const args = params.arguments;
  if (isObject(args) && 'meta' in args) readCallMeta(args, { requireIdempotencyKey: false, allowLoopbackHttp: ctx.allowLoopbackHttp, advice: ctx.profileAdvice });
}

/** One message's fate: answered here (with the HTTP status a lone message gets), sent to the SDK, or dropped. */
type Slot = { answer: object; status: number } | { send: JSONRPCMessage } | { drop: true };

const refusal = (id: unknown, status: number, code: number, label: string, problem: string, dataCode: string): Slot => ({
  status,
  answer: rpcErrorBody(validId(id) ? id : null, code, `${label}: ${problem}`, { code: dataCode, content: problem }),
});

/**
 * Classifies one message of a POST (docs/mcp.md "Batches and ids"). `seen` holds the request ids
 * met so far: a repeated id is refused, so that each answer belongs to exactly one request. A
 * notification that fails a params check is dropped: JSON-RPC never answers a notification.
 */
function classify(raw: unknown, seen: Set<string | number>, ctx: ToolContext): Slot {
  const envelope = envelopeProblem(raw);
  if (envelope) return refusal(isObject(raw) ? raw.id : null, 400, RPC.invalidRequest, 'Invalid Request', envelope, 'invalid_request');
  const m = raw as Message;
  const request = m.method !== undefined && 'id' in m;
  if (request) {
    const id = m.id as string | number;
    if (seen.has(id)) return refusal(id, 400, RPC.invalidRequest, 'Invalid Request', `the id ${JSON.stringify(id)} is already used by an earlier request in this batch; give each request its own id.`, 'duplicate_id');
    seen.add(id);
  }
  if (m.method !== undefined) {
    const problem = m.method === 'tools/call' ? callParamsProblem(m) : request ? requestProblem(m) : undefined;
    if (problem) return request ? refusal(m.id, 200, RPC.invalidParams, 'Invalid params', problem, 'invalid_params') : { drop: true };
    if (m.method !== 'tools/call') {
      try {
        checkListMeta(m, ctx);
      } catch (e) {
        if (!request) return { drop: true };
        if (e instanceof InvalidRequest) return refusal(m.id, 200, RPC.invalidParams, 'Invalid params', e.message, e.code);
        if (!(e instanceof McpProtocolError)) throw e;
        return { status: e.httpStatus, answer: rpcErrorBody(m.id as string | number, e.code, e.message, e.data) };
      }
    }
  }
  // The SDK's own message schema, as its transport applied it: the server classifies each message
  // (request, notification, response) by the same schema, so every request gets its answer.
  const sdk = sdkSchemaProblem(m);
  if (sdk) {
    if (m.method !== undefined && !request && sdk.code === RPC.invalidParams) return { drop: true };
    const [label, dataCode] = sdk.code === RPC.invalidParams ? ['Invalid params', 'invalid_params'] : ['Invalid Request', 'invalid_request'];
    return refusal(m.id, sdk.code === RPC.invalidParams ? 200 : 400, sdk.code, label, sdk.problem, dataCode);
  }
  return { send: m as JSONRPCMessage };
}

/** What the SDK's HTTP transport checked on the whole POST, or the refusal (docs/mcp.md). */
function transportProblem(toSdk: JSONRPCMessage[], ctx: McpAuthContext): McpAnswer | undefined {
  // A JSON body, a supported MCP-Protocol-Version after initialize, one initialize per POST. The
  // Accept header is not checked: we always answer JSON, and JSON-only clients (the ucp CLI) must be served.
  if (!isJsonContentType(ctx.headers.get('content-type'))) {
    return jsonAnswer(415, rpcErrorBody(null, RPC.server, 'Unsupported Media Type: Content-Type must be application/json'));
  }
  const initialize = toSdk.some((m) => 'method' in m && m.method === 'initialize');
  if (initialize && toSdk.length > 1) {
    return jsonAnswer(400, rpcErrorBody(null, RPC.invalidRequest, 'Invalid Request: Only one initialization request is allowed'));
  }
  const version = ctx.headers.get('mcp-protocol-version');
  if (!initialize && version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return jsonAnswer(400, rpcErrorBody(null, RPC.server, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`));
  }
  return undefined;
}

/** Runs messages through a pooled server; the server goes back to the pool whatever happens. */
async function exchange(toSdk: JSONRPCMessage[], state: CallState): Promise<JSONRPCMessage[]> {
  if (toSdk.length === 0) return [];
  const instructions = instructionsFor(state.ctx);
  let pool = idle.get(instructions);
  if (!pool) idle.set(instructions, (pool = []));
  const pair = pool.pop() ?? (await connectedServer(instructions));
  inUse++;
  try {
    return await pair.transport.exchange(toSdk, { authInfo: { token: '', clientId: 'ucp-agent', scopes: [], extra: { state } } });
  } finally {
    inUse--;
    if (pool.length < POOL_MAX) pool.push(pair);
  }
}

/** JSON-RPC methods named as themselves in metrics; any other is `unknown` (labels stay bounded). */
const KNOWN_METHODS = new Set(['initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read', 'notifications/initialized', 'notifications/cancelled']);

/** The metrics label of a POST: its method, `tools/call <tool>` for a known tool, or `batch`. */
function operationOf(batch: boolean, messages: unknown[]): string {
  if (batch) return 'batch';
  const m = messages[0];
  if (!isObject(m) || typeof m.method !== 'string') return 'invalid';
  if (m.method !== 'tools/call') return KNOWN_METHODS.has(m.method) ? m.method : 'unknown';
  const name = isObject(m.params) ? m.params.name : undefined;
  return `tools/call ${typeof name === 'string' && TOOLS.has(name) ? name : 'unknown'}`;
}

/** Handles one POST /mcp whose body has already been read (size-limited) as text. */
export async function handleMcpPost(bodyText: string, ctx: McpAuthContext): Promise<McpAnswer> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return jsonAnswer(400, rpcErrorBody(null, RPC.parseError, 'Parse error: the body is not valid JSON.', { code: 'invalid_json', content: 'The body is not valid JSON.' }));
  }
  const batch = Array.isArray(parsed);
  const messages: unknown[] = batch ? (parsed as unknown[]) : [parsed];
  ctx.nameOperation?.(operationOf(batch, messages));
  if (messages.length === 0 || messages.length > MAX_BATCH) {
    const content = messages.length === 0 ? 'An empty batch is not a JSON-RPC request.' : `A batch may hold at most ${MAX_BATCH} messages.`;
    return jsonAnswer(400, rpcErrorBody(null, RPC.invalidRequest, `Invalid Request: ${content}`, { code: 'invalid_request', content }));
  }
  // Each message on its own (JSON-RPC 2.0 §6): a bad one is answered with its error in its place
  // and the others still run; a lone message keeps the HTTP status of its error.
  const seen = new Set<string | number>();
  const slots = messages.map((m) => classify(m, seen, ctx));
  if (!batch && 'answer' in slots[0]) return jsonAnswer(slots[0].status, slots[0].answer);
  const toSdk = slots.flatMap((s) => ('send' in s ? [s.send] : []));
  const refused = transportProblem(toSdk, ctx);
  if (refused) return refused;

  const state: CallState = { ctx, headers: {} };
  const sdkAnswers = (await exchange(toSdk, state))[Symbol.iterator]();
  const answers: string[] = [];
  for (const s of slots) {
    if ('answer' in s) answers.push(JSON.stringify(s.answer));
    else if ('send' in s && 'id' in s.send && 'method' in s.send) answers.push(answerJson(sdkAnswers.next().value!));
  }
  // Only notifications and responses: accepted, nothing to answer (Streamable HTTP).
  if (answers.length === 0) return { status: 202, body: null, headers: {} };
  const status = !batch && state.httpStatus ? state.httpStatus : 200;
  return { status, body: batch ? `[${answers.join(',')}]` : answers[0], headers: { 'Content-Type': 'application/json', ...state.headers } };
}

/** Answer for GET/DELETE/other methods on /mcp: no SSE stream, no sessions (DIGEST §4). */
export function mcpMethodNotAllowed(): McpAnswer {
  return jsonAnswer(405, rpcErrorBody(null, RPC.server, 'Method not allowed: POST JSON-RPC messages to this endpoint (no SSE stream, no sessions).'), { Allow: 'POST' });
}

/** JSON-RPC answer for an oversized body (HTTP 413). */
export function mcpTooLarge(limit: number): Response {
  const content = `The body exceeds ${limit} bytes.`;
  return jsonResponse(413, rpcErrorBody(null, RPC.invalidRequest, `Invalid Request: ${content}`, { code: 'request_too_large', content }));
}
