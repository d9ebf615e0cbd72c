/**
 * The MCP endpoint of a shop, on the official v2 SDK (`@modelcontextprotocol/server`): a low-level
 * `Server` answering `tools/list` from the prebuilt list and `tools/call` through
 * server/mcp/tools.ts. Streamable HTTP in stateless JSON mode: no session, no SSE stream, every POST
 * answered with JSON (exchange-transport.ts carries the messages between the HTTP request and the
 * SDK's server).
 *
 * Each POST is first given its era (eras.ts): a request carrying the 2026-07-28 `_meta` envelope
 * goes to that era's adapter (modern.ts); everything else is the 2025 era, served here. Both run
 * the same handlers (handlers.ts). In the 2025 era, two kinds of client are served by one path:
 * 1. MCP clients (the SDK's `Client`): initialize → notifications/initialized → tools/list/call.
 * 2. Plain JSON-RPC POSTs with no initialize, no session and `Accept: application/json` only, with
 *    `meta` inside `params.arguments` even on tools/list (what @shopify/ucp-cli sends). The SDK's
 *    HTTP transport would answer those with 406; ours serves them.
 *
 * Before the SDK runs, the body is parsed and the JSON-RPC envelope checked here so malformed input
 * gets -32700 / -32600 with HTTP 400 (never a crash), and `tools/list` meta is checked.
 *
 * A lone plain request to one of the methods below (what the UCP CLI and most single calls send:
 * `tools/call`, `tools/list`, `resources/*` with nothing in `params` beyond what the method reads)
 * does not need the SDK's `Server`: its handler is the one the `Server` would call with the same
 * arguments, and its answer is written as the `Server` writes it (`direct`), the same bytes. The
 * `initialize` handshake, notifications, posted responses, batches, `ping`, unknown methods and any
 * request with more in it (`cursor`, `task`, `requestState`, envelope `_meta` keys, …) still go
 * through the `Server`, which decides those.
 *
 * A `Server` serves one POST at a time (request ids are only unique per client), so each POST takes a
 * connected `Server` from a small pool of idle ones (handlers are request-independent: the
 * per-request context travels in `authInfo.extra`).
 */
import { isJsonContentType, Server, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type ServerContext } from '@modelcontextprotocol/server';
import { ExchangeTransport } from './exchange-transport.ts';
import { answerJson } from './result-json.ts';
import type { McpAuthContext } from './auth.ts';
import { RPC, rpcErrorBody } from './errors.ts';
import { TOOLS, TOOLS_LIST_RESULT } from './tools.ts';
import { RESOURCES_LIST_RESULT } from './apps.ts';
import { classifyEra, type EraHeaders } from './eras.ts';
import { handleModern } from './modern.ts';
import { classify, isObject, jsonAnswer, jsonResponse, plainMessage, type McpAnswer, type Message } from './messages.ts';
export type { McpAnswer } from './messages.ts';
import { instructionsFor, readResource, runToolCall, SERVER_CAPABILITIES, SERVER_INFO, type CallState } from './handlers.ts';

/** Largest JSON-RPC batch accepted (the SDK's own limit is 100). */
export const MAX_BATCH = 20;

function stateOf(ctx: ServerContext): CallState {
  const state = ctx.http?.authInfo?.extra?.state as CallState | undefined;
  if (!state) throw new Error('MCP request state missing');
  return state;
}

/** The 2025 era's server: the official SDK's `Server` running the handlers both eras share (handlers.ts). */
function buildServer(instructions: string): Server {
  const server = new Server(SERVER_INFO, { capabilities: SERVER_CAPABILITIES, instructions });
  server.setRequestHandler('tools/list', (request, ctx) => DIRECT.get('tools/list')!.run(request.params ?? {}, stateOf(ctx)) as never);
  // MCP Apps: the shop's one view (server/mcp/apps.ts). Public like host.js: no agent profile needed.
  server.setRequestHandler('resources/list', (request, ctx) => DIRECT.get('resources/list')!.run(request.params ?? {}, stateOf(ctx)) as never);
  server.setRequestHandler('resources/templates/list', (request, ctx) => DIRECT.get('resources/templates/list')!.run(request.params ?? {}, stateOf(ctx)) as never);
  server.setRequestHandler('resources/read', async (request, ctx) => DIRECT.get('resources/read')!.run(request.params, stateOf(ctx)) as never);
  server.setRequestHandler('tools/call', async (request, ctx) => DIRECT.get('tools/call')!.run(request.params, stateOf(ctx)) as never);
  return server;
}

/**
 * The 2025 era's methods (handlers.ts), by name: registered on the SDK's `Server` above, and called
 * directly for a lone plain request (`directMethod`).
 */
const DIRECT = new Map<string, { params: ReadonlySet<string>; run: (params: Record<string, unknown>, state: CallState) => unknown }>([
  // `arguments` on the lists: what the UCP CLI sends (its `meta`, checked in messages.ts).
  ['tools/list', { params: new Set(['arguments']), run: () => TOOLS_LIST_RESULT }],
  ['resources/list', { params: new Set(['arguments']), run: () => RESOURCES_LIST_RESULT }],
  ['resources/templates/list', { params: new Set(['arguments']), run: () => ({ resourceTemplates: [] }) }],
  ['resources/read', { params: new Set(['uri']), run: (p, state) => readResource(p.uri as string, state) }],
  ['tools/call', { params: new Set(['name', 'arguments']), run: (p, state) => runToolCall(p.name as string, p.arguments as Record<string, unknown> | undefined, state) }],
]);

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

/**
 * The handler of a lone request the SDK's `Server` would hand, unchanged, to that same handler, or
 * undefined (then the `Server` answers it). Such a request is plain (messages.ts `plainMessage`:
 * nothing the SDK lifts off or refuses), takes one of the methods above, and has only the params
 * that method reads, already checked in messages.ts (`name` a string and `arguments` an object for
 * `tools/call`, `uri` a string for `resources/read`) and so valid for the SDK's 2025 request
 * schemas too: no `cursor`, `task`, `requestState` or `inputResponses`, no own `__proto__` in
 * `params` or `arguments` (the SDK's parse drops that key). Everything else — `initialize`,
 * `ping`, notifications, batches, any other method or params — still goes through the `Server`.
 */
function directMethod(m: JSONRPCMessage): ((params: Record<string, unknown>, state: CallState) => unknown) | undefined {
  if (!('method' in m) || !('id' in m)) return undefined;
  const method = DIRECT.get(m.method);
  if (!method || !plainMessage(m as Message)) return undefined;
  const params = (m.params ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(params)) if (key !== '_meta' && !method.params.has(key)) return undefined;
  if (isObject(params.arguments) && Object.hasOwn(params.arguments, '__proto__')) return undefined;
  return method.run;
}

/** A tool result's members in the order the SDK's 2025 result schema writes them (`_meta`, `content`, `structuredContent`, `isError`, then others). */
function inSchemaOrder(result: Record<string, unknown>): Record<string, unknown> {
  const { _meta, content, structuredContent, isError, ...others } = result;
  return {
    ...(_meta !== undefined ? { _meta } : {}),
    content,
    ...(structuredContent !== undefined ? { structuredContent } : {}),
    ...(isError !== undefined ? { isError } : {}),
    ...others,
  };
}

/**
 * Runs a lone plain request's handler and writes its answer as the SDK's `Server` does (protocol
 * layer `_onrequest` and `Server._wrapHandler`, stateless 2025 era): the result as it is (a tool
 * result's members in the schema's order), or the thrown error's `code` (a safe integer, else
 * -32603, and -32002 written as -32602 like the SDK's codec), `message` and `data`; the members in
 * the SDK's order, so the same JSON text.
 */
async function direct(m: JSONRPCMessage & { id: string | number; method: string; params?: unknown }, run: (params: Record<string, unknown>, state: CallState) => unknown, state: CallState): Promise<JSONRPCMessage> {
  try {
    const result = (await run((m.params ?? {}) as Record<string, unknown>, state)) as Record<string, unknown>;
    return { result: m.method === 'tools/call' ? inSchemaOrder(result) : result, jsonrpc: '2.0', id: m.id } as JSONRPCMessage;
  } catch (e) {
    const error = e as { code?: unknown; message?: string; data?: unknown };
    const thrown = Number.isSafeInteger(error?.code) ? (error.code as number) : RPC.internal;
    const code = thrown === RPC.resourceNotFound ? RPC.invalidParams : thrown;
    return { jsonrpc: '2.0', id: m.id, error: { code, message: error?.message ?? 'Internal error', ...(error?.data !== undefined ? { data: error.data } : {}) } } as JSONRPCMessage;
  }
}

/**
 * The v2 SDK writes every -32002 (resource not found) as -32602, in both eras (its wire codec). The
 * 2025 era keeps answering a `resources/read` miss with -32002, as it always has (handlers.ts,
 * docs/mcp.md): the miss is recognised by its `data.code`, which only handlers.ts sets.
 */
function legacyErrorCode(method: string, m: JSONRPCMessage): JSONRPCMessage {
  if (method !== 'resources/read' || !('error' in m) || m.error.code !== RPC.invalidParams) return m;
  const data = m.error.data as { code?: unknown } | undefined;
  return data?.code === 'not_found' ? { ...m, error: { ...m.error, code: RPC.resourceNotFound } } : m;
}

/** JSON-RPC methods named as themselves in metrics; any other is `unknown` (labels stay bounded). */
const KNOWN_METHODS = new Set(['server/discover', 'initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read', 'notifications/initialized', 'notifications/cancelled']);

/** The metrics label of a POST: its method, `tools/call <tool>` for a known tool, or `batch`. */
function operationOf(batch: boolean, messages: unknown[]): string {
  if (batch) return 'batch';
  const m = messages[0];
  if (!isObject(m) || typeof m.method !== 'string') return 'invalid';
  if (m.method !== 'tools/call') return KNOWN_METHODS.has(m.method) ? m.method : 'unknown';
  const name = isObject(m.params) ? m.params.name : undefined;
  return `tools/call ${typeof name === 'string' && TOOLS.has(name) ? name : 'unknown'}`;
}

/** The standard MCP headers (OWS trimmed), as eras.ts reads them. */
function eraHeaders(ctx: McpAuthContext): EraHeaders {
  const get = (name: string) => ctx.headers.get(name)?.trim() ?? null;
  return { version: get('mcp-protocol-version'), method: get('mcp-method'), name: get('mcp-name') };
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
  // Which era (eras.ts): 2026-07-28 requests go to their adapter, the rest on as before.
  const headers = eraHeaders(ctx);
  const route = classifyEra(parsed, headers);
  if (route.era === 'refused') return jsonAnswer(route.refusal.status, route.refusal.body);
  if (route.era === 'modern') {
    if (!isJsonContentType(ctx.headers.get('content-type'))) return jsonAnswer(415, rpcErrorBody(null, RPC.server, 'Unsupported Media Type: Content-Type must be application/json'));
    return handleModern(route, headers, ctx);
  }
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
  // A lone plain request (a tools/call from the UCP CLI, say) runs its handler here; the SDK's
  // Server would run the same one and answer the same bytes, at about twice the cost (docs/mcp.md).
  const run = !batch && toSdk.length === 1 ? directMethod(toSdk[0]) : undefined;
  const sdkAnswers = (run ? [await direct(toSdk[0] as JSONRPCMessage & { id: string | number; method: string }, run, state)] : await exchange(toSdk, state))[Symbol.iterator]();
  const answers: string[] = [];
  for (const s of slots) {
    if ('answer' in s) answers.push(JSON.stringify(s.answer));
    else if ('send' in s && 'id' in s.send && 'method' in s.send) answers.push(answerJson(legacyErrorCode(s.send.method, sdkAnswers.next().value!)));
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
