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
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { CallToolRequestSchema, InitializeRequestSchema, ListToolsRequestSchema, PingRequestSchema, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ExchangeTransport } from './exchange-transport.ts';
import { answerJson, toolResult } from './result-json.ts';
import { authorizeMcp, type McpAuthContext } from './auth.ts';
import { fromDomainError, McpProtocolError, RPC, rpcErrorBody } from './errors.ts';
import { readCallMeta } from './meta.ts';
import { callTool, inputSchemaOf, invalidParams, TOOLS, TOOLS_LIST_RESULT, type ToolContext } from './tools.ts';
import { inputErrorResult } from './input-errors.ts';
import { InvalidRequest, logCause, RequestTooLarge, toDomainError } from '../core/errors.ts';
import { PACKAGE_VERSION } from '../version.ts';

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
  'Universal Commerce Protocol (UCP 2026-04-08) shopping tools for this shop. Every tools/call needs ' +
  'arguments.meta["ucp-agent"].profile = the URL of your platform profile (https; on a development server the demo agent\'s ' +
  'profile http://agent.localhost:<port>/.well-known/ucp works). Find products with search_catalog ' +
  '(or lookup_catalog / get_product), then build a cart with create_cart / update_cart (full replacement) / get_cart / ' +
  'cancel_cart (needs meta["idempotency-key"]). structuredContent is exactly the UCP REST response body.';

function record(state: CallState, err: McpProtocolError): McpProtocolError {
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

function buildServer(): Server {
  const server = new Server({ name: 'ucp-storefront', version: PACKAGE_VERSION }, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => TOOLS_LIST_RESULT as never);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const state = stateOf(extra as never);
    try {
      // Access tier, platform profile and negotiation (docs/access.md); then the tool itself.
      const auth = await authorizeMcp(state.ctx, request.params.name, request.params.arguments);
      if (auth.kind === 'incompatible') return toolResult(auth.body);
      const ctx: ToolContext = auth.kind === 'ok' ? { ...state.ctx, negotiated: auth.access.negotiated } : state.ctx;
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

/**
 * A few idle servers, each connected for good to its own transport and reused: building one (and
 * registering handlers) per request costs ~1 ms CPU, and connecting and closing one per request was
 * most of the rest (exchange-transport.ts). One POST at a time per server.
 */
interface ConnectedServer {
  server: Server;
  transport: ExchangeTransport;
}
const idle: ConnectedServer[] = [];
const POOL_MAX = 32;

async function connectedServer(): Promise<ConnectedServer> {
  const server = buildServer();
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
const validId = (id: unknown): id is string | number => typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));

/** Why a message is not a JSON-RPC 2.0 request/notification/response, or undefined when it is. */
function envelopeProblem(m: unknown): string | undefined {
  if (!isObject(m)) return 'A JSON-RPC message must be an object.';
  if (m.jsonrpc !== '2.0') return 'A JSON-RPC message needs "jsonrpc": "2.0".';
  if ('method' in m) {
    if (typeof m.method !== 'string' || m.method === '') return '"method" must be a non-empty string.';
    if ('id' in m && !validId(m.id)) return '"id" must be a string or a number.';
    if ('params' in m && m.params !== undefined && !isObject(m.params) && !Array.isArray(m.params)) return '"params" must be an object.';
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

/** The SDK's own schemas of the other requests this server answers; the SDK would call a mismatch internal. */
const REQUEST_SCHEMAS: Record<string, { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } } }> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
};

/** Why a request the SDK would refuse as internal has the wrong params (JSON-RPC -32602), or undefined. */
function requestProblem(m: Message): string | undefined {
  const r = REQUEST_SCHEMAS[m.method as string]?.safeParse(m);
  if (!r || r.success) return undefined;
  const issues = r.error!.issues.map((i) => `${i.path.map(String).join('.') || 'the request'}: ${i.message}`).join('; ');
  return `${String(m.method)} ${issues} (see the MCP specification for its params, e.g. initialize takes {"protocolVersion", "capabilities", "clientInfo"}).`;
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


/** JSON-RPC methods named as themselves in metrics; any other is `unknown` (labels stay bounded). */
const KNOWN_METHODS = new Set(['initialize', 'ping', 'tools/list', 'tools/call', 'notifications/initialized', 'notifications/cancelled']);

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
  for (const m of messages) {
    const problem = envelopeProblem(m);
    if (problem) {
      const id = isObject(m) && validId(m.id) ? m.id : null;
      return jsonAnswer(400, rpcErrorBody(id, RPC.invalidRequest, `Invalid Request: ${problem}`, { code: 'invalid_request', content: problem }));
    }
  }
  // Protocol checks that happen before the SDK: the shape of every request's params (the SDK would
  // answer a malformed one as an internal error with its validation dump), meta on other methods.
  for (const m of messages as Message[]) {
    if (m.method === undefined) continue;
    const id = validId(m.id) ? m.id : null;
    const problem = m.method === 'tools/call' ? callParamsProblem(m) : 'id' in m ? requestProblem(m) : undefined;
    if (problem) return jsonAnswer(200, rpcErrorBody(id, RPC.invalidParams, `Invalid params: ${problem}`, { code: 'invalid_params', content: problem }));
    if (m.method === 'tools/call') continue;
    try {
      checkListMeta(m, ctx);
    } catch (e) {
      if (e instanceof InvalidRequest) return jsonAnswer(200, rpcErrorBody(id, RPC.invalidParams, `Invalid params: ${e.message}`, { code: e.code, content: e.message }));
      if (!(e instanceof McpProtocolError)) throw e;
      return jsonAnswer(batch ? 200 : e.httpStatus, rpcErrorBody(id, e.code, e.message, e.data));
    }
  }

  // What the SDK's HTTP transport checked, now that an in-process one carries the messages
  // (exchange-transport.ts): a JSON body, a supported MCP-Protocol-Version after initialize, one
  // initialize per POST. The Accept header is not checked: we always answer JSON, and JSON-only
  // clients (the ucp CLI) must be served.
  if (!isJsonContentType(ctx.headers.get('content-type'))) {
    return jsonAnswer(415, rpcErrorBody(null, RPC.server, 'Unsupported Media Type: Content-Type must be application/json'));
  }
  // The SDK's own message schema, as its transport applied it: the server classifies each message
  // (request, notification, response) by the same schema, so every request gets its answer.
  const rpcMessages: JSONRPCMessage[] = [];
  for (const m of messages) {
    const r = JSONRPCMessageSchema.safeParse(m);
    if (!r.success) return jsonAnswer(400, rpcErrorBody(null, RPC.parseError, 'Parse error: Invalid JSON-RPC message'));
    rpcMessages.push(r.data);
  }
  const initialize = rpcMessages.some((m) => 'method' in m && m.method === 'initialize');
  if (initialize && rpcMessages.length > 1) {
    return jsonAnswer(400, rpcErrorBody(null, RPC.invalidRequest, 'Invalid Request: Only one initialization request is allowed'));
  }
  const version = ctx.headers.get('mcp-protocol-version');
  if (!initialize && version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return jsonAnswer(400, rpcErrorBody(null, RPC.server, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`));
  }

  const state: CallState = { ctx, headers: {} };
  const pair = idle.pop() ?? (await connectedServer());
  let answers: JSONRPCMessage[];
  try {
    answers = await pair.transport.exchange(rpcMessages, { authInfo: { token: '', clientId: 'ucp-agent', scopes: [], extra: { state } } });
  } finally {
    if (idle.length < POOL_MAX) idle.push(pair);
  }
  // Only notifications and responses: accepted, nothing to answer (Streamable HTTP).
  if (answers.length === 0) return { status: 202, body: null, headers: {} };
  const status = !batch && state.httpStatus ? state.httpStatus : 200;
  const json = batch ? `[${answers.map(answerJson).join(',')}]` : answerJson(answers[0]);
  return { status, body: json, headers: { 'Content-Type': 'application/json', ...state.headers } };
}

/** Answer for GET/DELETE/other methods on /mcp: no SSE stream, no sessions (DIGEST §4). */
export function mcpMethodNotAllowed(): Response {
  return jsonResponse(405, rpcErrorBody(null, RPC.server, 'Method not allowed: POST JSON-RPC messages to this endpoint (no SSE stream, no sessions).'), { Allow: 'POST' });
}

/** JSON-RPC answer for an oversized body (HTTP 413). */
export function mcpTooLarge(limit: number): Response {
  const content = `The body exceeds ${limit} bytes.`;
  return jsonResponse(413, rpcErrorBody(null, RPC.invalidRequest, `Invalid Request: ${content}`, { code: 'request_too_large', content }));
}
