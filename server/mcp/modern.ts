/**
 * The 2026-07-28 era at the edge of `/mcp` (docs/mcp.md "Eras"): one request per POST, its
 * protocol version and client capabilities in `params._meta`, no `initialize`, no session. The
 * request runs the same handlers as the 2025 era (handlers.ts: tools, MCP Apps resources, access,
 * results, `isError` rules); this adapter only checks what the era requires and shapes the answer:
 *
 * - the version gate (-32022 with `data.supported`), the standard headers (eras.ts, -32020);
 * - `server/discover` (supported versions, capabilities with the MCP Apps extension, instructions);
 * - every result with `resultType: "complete"` and `_meta["io.modelcontextprotocol/serverInfo"]`,
 *   and the era's caching hints (`ttlMs`, `cacheScope`) on `server/discover`, the lists and
 *   `resources/read`;
 * - methods the era does not have (`initialize`, `ping`, …) → -32601 naming what to call instead.
 */
import type { McpAuthContext } from './auth.ts';
import { McpProtocolError, RPC, rpcErrorBody } from './errors.ts';
import { answerJson } from './result-json.ts';
import { TOOLS_LIST_RESULT } from './tools.ts';
import { RESOURCES_LIST_RESULT } from './apps.ts';
import { serializedOnce } from '../lib/json-fragments.ts';
import { logCause, toDomainError } from '../core/shared/errors.ts';
import { instructionsFor, readResource, runToolCall, SERVER_CAPABILITIES, SERVER_INFO, type CallState } from './handlers.ts';
import { LEGACY_VERSIONS, MODERN_RPC, MODERN_VERSIONS, SERVER_INFO_KEY, standardHeadersProblem, type EraHeaders, type EraRoute } from './eras.ts';
import { callMetaProblem, callParamsProblem, checkListMeta, envelopeProblem, isObject, jsonAnswer, requestProblem, type McpAnswer, type Message } from './messages.ts';
import { InvalidRequest } from '../core/shared/errors.ts';

type ModernRoute = Extract<EraRoute, { era: 'modern' }>;

/**
 * Caching hints (2026-07-28 `CacheableResult`). The tool list, the resource list and the discover
 * result change only with a deployment and are the same for every caller: public, five minutes.
 * The view's document is public too, but its CSP follows the catalog's image hosts: one minute.
 */
const LIST_CACHE = { ttlMs: 300_000, cacheScope: 'public' } as const;
const READ_CACHE = { ttlMs: 60_000, cacheScope: 'public' } as const;
const SERVER_META = { [SERVER_INFO_KEY]: SERVER_INFO };

/** A 2026-07-28 result: the era's fields around the shared result (tool `_meta` etc. untouched). */
function modernResult(result: Record<string, unknown>, cache?: typeof LIST_CACHE | typeof READ_CACHE) {
  const meta = isObject(result._meta) ? { ...result._meta, ...SERVER_META } : SERVER_META;
  return { ...result, resultType: 'complete', ...(cache ?? {}), _meta: meta };
}

/**
 * What this era adds to a tool result that carries no `_meta` of its own (nearly every one), as JSON
 * made once: answerJson writes it after the result's own members instead of a copy of the result
 * being made and its tail stringified per call (the same bytes as `modernResult`).
 */
const TOOL_RESULT_MEMBERS = JSON.stringify({ resultType: 'complete', _meta: SERVER_META }).slice(1, -1);

/** A tool result to be written with TOOL_RESULT_MEMBERS (handleModern). */
class ToolAnswer {
  constructor(readonly result: Record<string, unknown>) {}
}

/** Built once: the lists are the same for every call (their JSON made once, like the 2025 tools/list). */
const TOOLS_LIST = serializedOnce(modernResult(TOOLS_LIST_RESULT as unknown as Record<string, unknown>, LIST_CACHE));
const RESOURCES_LIST = serializedOnce(modernResult(RESOURCES_LIST_RESULT, LIST_CACHE));
const TEMPLATES_LIST = serializedOnce(modernResult({ resourceTemplates: [] }, LIST_CACHE));
const discoverCache = new Map<string, object>();

/** `server/discover`: what a 2026-07-28 client learns instead of `initialize` (per instructions text, made once). */
function discover(ctx: McpAuthContext): object {
  const instructions = instructionsFor(ctx);
  let result = discoverCache.get(instructions);
  if (!result) {
    result = serializedOnce(modernResult({ supportedVersions: [...MODERN_VERSIONS], capabilities: SERVER_CAPABILITIES, instructions }, LIST_CACHE));
    discoverCache.set(instructions, result);
  }
  return result;
}

/** Methods the 2025 era has and this one does not, with what to do instead. */
const GONE: Record<string, string> = {
  initialize: 'protocol revision 2026-07-28 has no initialize handshake: call server/discover, and send the _meta envelope on every request',
  ping: 'protocol revision 2026-07-28 has no ping: any request (e.g. server/discover) shows the server is up',
  'logging/setLevel': `protocol revision 2026-07-28 sets the log level per request (_meta["io.modelcontextprotocol/logLevel"]); this server sends no logs`,
};

type Handler = (m: Message, state: CallState) => unknown;
const params = (m: Message) => (isObject(m.params) ? m.params : {});

const METHODS = new Map<string, Handler>([
  ['server/discover', (_m, state) => discover(state.ctx)],
  ['tools/list', (m, state) => (checkListMeta(m, state.ctx), TOOLS_LIST)],
  ['resources/list', () => RESOURCES_LIST],
  ['resources/templates/list', () => TEMPLATES_LIST],
  ['resources/read', async (m, state) => modernResult(await readResource(params(m).uri as string, state), READ_CACHE)],
  ['tools/call', async (m, state) => {
    const result = (await runToolCall(params(m).name as string, params(m).arguments as Record<string, unknown> | undefined, state)) as Record<string, unknown>;
    return result._meta === undefined && result.resultType === undefined ? new ToolAnswer(result) : modernResult(result);
  }],
]);

function unknownMethod(method: string): McpProtocolError {
  const known = [...METHODS.keys()].join(', ');
  const content = Object.hasOwn(GONE, method) ? `Method not found: ${GONE[method]}.` : `Method not found: '${method.slice(0, 100)}' is not a method of this server in protocol revision 2026-07-28 (it answers ${known}).`;
  return new McpProtocolError(RPC.methodNotFound, 200, { code: 'method_not_found', content }, content);
}

/** Why the request's params are wrong for its method (the same checks as the 2025 era), or undefined. */
function paramsProblem(m: Message): string | undefined {
  return m.method === 'tools/call' ? (callParamsProblem(m) ?? callMetaProblem(m)) : requestProblem(m);
}

function errorAnswer(id: string | number, e: unknown, state: CallState): McpAnswer {
  if (e instanceof InvalidRequest) return jsonAnswer(200, rpcErrorBody(id, RPC.invalidParams, `Invalid params: ${e.message}`, { code: e.code, content: e.message }));
  if (!(e instanceof McpProtocolError)) {
    const failure = toDomainError(e, `mcp ${String(id)}`);
    logCause('mcp', failure);
    return jsonAnswer(500, rpcErrorBody(id, RPC.internal, 'Internal error', { code: 'internal_error', content: 'Internal error.' }));
  }
  // A resource miss is `{uri}` alone in this era (the SDK reads that as ResourceNotFoundError).
  const data = e.code === RPC.invalidParams && typeof e.data.uri === 'string' ? { uri: e.data.uri } : e.data;
  return jsonAnswer(state.httpStatus ?? e.httpStatus, rpcErrorBody(id, e.code, e.message, data), state.headers);
}

/** Answers one 2026-07-28 POST that eras.ts classified modern. */
export async function handleModern(route: ModernRoute, headers: EraHeaders, ctx: McpAuthContext): Promise<McpAnswer> {
  const m = route.message;
  const envelope = envelopeProblem(m);
  const id = (typeof m.id === 'string' || Number.isSafeInteger(m.id) ? m.id : null) as string | number | null;
  if (envelope) return jsonAnswer(400, rpcErrorBody(id, RPC.invalidRequest, `Invalid Request: ${envelope}`, { code: 'invalid_request', content: envelope }));
  if (!(MODERN_VERSIONS as readonly string[]).includes(route.version)) {
    const content = `Unsupported protocol version: ${route.version.slice(0, 40)}. This endpoint speaks ${MODERN_VERSIONS.join(', ')} per request (the _meta envelope; start with server/discover) and ${LEGACY_VERSIONS.join(', ')} through the initialize handshake.`;
    return jsonAnswer(400, rpcErrorBody(id, MODERN_RPC.unsupportedVersion, content, { supported: [...MODERN_VERSIONS], requested: route.version }));
  }
  // A notification (cancelled, progress): nothing to answer; there is no other request to cancel.
  if (route.kind === 'notification') return { status: 202, body: null, headers: {} };
  const headerProblem = standardHeadersProblem(route, headers);
  if (headerProblem) return jsonAnswer(headerProblem.status, headerProblem.body);
  const state: CallState = { ctx, headers: {}, era: 'modern' };
  const requestId = m.id as string | number;
  try {
    const handler = METHODS.get(m.method as string);
    if (!handler) throw unknownMethod(m.method as string);
    const problem = paramsProblem(m);
    if (problem) return jsonAnswer(200, rpcErrorBody(requestId, RPC.invalidParams, `Invalid params: ${problem}`, { code: 'invalid_params', content: problem }));
    const result = await handler(m, state);
    const body = result instanceof ToolAnswer ? answerJson({ jsonrpc: '2.0', id: requestId, result: result.result } as never, TOOL_RESULT_MEMBERS) : answerJson({ jsonrpc: '2.0', id: requestId, result } as never);
    return { status: 200, body, headers: { 'Content-Type': 'application/json', ...state.headers } };
  } catch (e) {
    return errorAnswer(requestId, e, state);
  }
}
