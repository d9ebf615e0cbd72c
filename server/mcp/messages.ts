/**
 * One POST's JSON-RPC messages, checked before any handler runs (both eras): the JSON-RPC 2.0
 * envelope, MCP's id type, repeated ids, each method's params (the SDK's schemas, with readable
 * messages), `meta` on list methods; and the answer shape the route writes. docs/mcp.md "Batches
 * and ids".
 */
import { specTypeSchemas, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { McpProtocolError, RPC, rpcErrorBody } from './errors.ts';
import { readCallMeta } from './meta.ts';
import type { ToolContext } from './tools.ts';
import { InvalidRequest } from '../core/shared/errors.ts';
import { CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, PROTOCOL_VERSION_KEY } from './eras.ts';

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

export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): McpAnswer {
  return { status, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...headers } };
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const a = jsonAnswer(status, body, headers);
  return new Response(a.body, { status: a.status, headers: a.headers });
}

export type Message = Record<string, unknown>;
export const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null && !Array.isArray(v);
/** MCP's request id: a string or an integer (the SDK's RequestIdSchema; JSON-RPC discourages null and fractions). */
export const validId = (id: unknown): id is string | number => typeof id === 'string' || Number.isSafeInteger(id);

/** Why a message is not a JSON-RPC 2.0 request/notification/response, or undefined when it is. */
export function envelopeProblem(m: unknown): string | undefined {
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
export function callParamsProblem(m: Message): string | undefined {
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

/** A Standard Schema validation's issues, with paths as plain keys. */
type Issue = { path: PropertyKey[]; message: string };
type Validate = (v: unknown) => Issue[];
/** Validates with one of the SDK's spec schemas (Standard Schema, synchronous): the issues, empty when valid. */
function issuesOf(schema: (typeof specTypeSchemas)[keyof typeof specTypeSchemas]): Validate {
  return (v) => {
    const r = schema['~standard'].validate(v);
    return r.issues ? r.issues.map((i) => ({ path: (i.path ?? []).map((p) => (typeof p === 'object' ? p.key : p)), message: i.message })) : [];
  };
}
/**
 * The SDK's own schemas of the other requests this server answers; the SDK would call a mismatch
 * internal. A Map, not an object literal: the method name is the client's string, and an object
 * would hand back `constructor`, `toString` or `__proto__` from its prototype (issue 29: HTTP 500).
 */
const REQUEST_SCHEMAS = new Map<string, Validate>([
  ['initialize', issuesOf(specTypeSchemas.InitializeRequest)],
  ['ping', issuesOf(specTypeSchemas.PingRequest)],
  ['tools/list', issuesOf(specTypeSchemas.ListToolsRequest)],
  ['resources/list', issuesOf(specTypeSchemas.ListResourcesRequest)],
  ['resources/templates/list', issuesOf(specTypeSchemas.ListResourceTemplatesRequest)],
  ['resources/read', issuesOf(specTypeSchemas.ReadResourceRequest)],
]);
const messageIssues = issuesOf(specTypeSchemas.JSONRPCMessage);
const requestIssues = issuesOf(specTypeSchemas.JSONRPCRequest);
const notificationIssues = issuesOf(specTypeSchemas.JSONRPCNotification);

const issueText = (issues: Issue[]) => issues.map((i) => `${i.path.map(String).join('.') || 'the request'}: ${i.message}`).join('; ');

/** Why a request the SDK would refuse as internal has the wrong params (JSON-RPC -32602), or undefined. */
export function requestProblem(m: Message): string | undefined {
  const issues = REQUEST_SCHEMAS.get(m.method as string)?.(m);
  if (!issues?.length) return undefined;
  return `${String(m.method)} ${issueText(issues)} (see the MCP specification for its params, e.g. initialize takes {"protocolVersion", "capabilities", "clientInfo"}).`;
}

/**
 * Why the SDK's message schema refuses a message our envelope check let through, as a JSON-RPC
 * error: a mistake inside `params` (e.g. `_meta.progressToken` given as an object) is -32602 naming
 * the field; anything else about the message -32600. Never -32700: the body was valid JSON.
 */
function sdkSchemaProblem(m: Message): { code: number; problem: string } | undefined {
  if (messageIssues(m).length === 0) return undefined;
  // The union's own issue says only "invalid input": the request or notification schema names the field.
  const issues = (m.method === undefined ? messageIssues : 'id' in m ? requestIssues : notificationIssues)(m);
  const inParams = issues.length > 0 && issues.every((i) => i.path[0] === 'params');
  const text = issues.length ? issueText(issues) : 'the message matches no JSON-RPC message shape';
  if (inParams) return { code: RPC.invalidParams, problem: `${String(m.method)} ${text} (_meta.progressToken is a string or an integer).` };
  return { code: RPC.invalidRequest, problem: text };
}

/** What a `tools/call` reads from its params; anything more (`task`, …) is checked against the SDK's schema. */
const CALL_PARAMS = new Set(['name', 'arguments', '_meta']);
const callRequestIssues = issuesOf(specTypeSchemas.CallToolRequest);

/**
 * A 2025-era `tools/call` with params beyond what it reads (e.g. a `task` that is not an object):
 * the SDK's `Server` would refuse it with its schema's issues dumped as JSON; this names the field
 * instead (-32602), or undefined. 2026-07-28 has no tasks: there such members are ignored.
 */
export function callExtrasProblem(m: Message): string | undefined {
  const params = m.params;
  if (!isObject(params) || Object.keys(params).every((k) => CALL_PARAMS.has(k))) return undefined;
  const issues = callRequestIssues(m).filter((i) => i.path[0] === 'params' && !CALL_PARAMS.has(String(i.path[1])));
  return issues.length ? `tools/call ${issueText(issues)}. tools/call takes params {"name": "<tool name>", "arguments": {…}}; tools/list names the tools.` : undefined;
}

/** The 2026-07-28 envelope's keys in `_meta`, checked by eras.ts before this. */
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY]);

/**
 * A 2026-07-28 `tools/call`'s `params._meta` as the 2025 era checks it (the SDK's message schema in
 * `classify`): the same -32602 problem (e.g. a `progressToken` that is an object), or undefined. The
 * other methods' request schemas (`requestProblem`) check `_meta` in both eras already. The schema
 * runs only when `_meta` holds more than the envelope and a valid `progressToken`.
 */
export function callMetaProblem(m: Message): string | undefined {
  const meta = isObject(m.params) ? m.params._meta : undefined;
  if (!isObject(meta)) return undefined;
  for (const key of Object.keys(meta)) {
    if (ENVELOPE_KEYS.has(key) || (key === 'progressToken' && validId(meta.progressToken))) continue;
    const sdk = sdkSchemaProblem(m);
    return sdk?.code === RPC.invalidParams ? sdk.problem : undefined;
  }
  return undefined;
}

/** The top-level members of a plain JSON-RPC request or notification. */
const PLAIN_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * Whether `_meta` is absent or holds only a valid `progressToken`: nothing the SDK's schemas could
 * refuse (a token is a string or an integer there too) and nothing its server lifts off a request
 * before the handler sees it (the 2026-07-28 envelope keys, which are reserved in every era).
 */
export function plainMeta(params: Message): boolean {
  if (!('_meta' in params)) return true;
  const meta = params._meta;
  if (!isObject(meta)) return false;
  for (const key of Object.keys(meta)) if (key !== 'progressToken' || !validId(meta.progressToken)) return false;
  return true;
}

/**
 * Whether a message that passed `envelopeProblem` surely matches the SDK's JSON-RPC message schema
 * (`specTypeSchemas.JSONRPCMessage`: strict objects, `params` a loose object whose only checked
 * member is `_meta`), so that validating it there cannot find anything: only `jsonrpc`, `id`,
 * `method` and `params`, `params` absent or an object whose `_meta` is plain (`plainMeta`), and no
 * own `__proto__` key at either level. Any other message is validated as before.
 */
export function plainMessage(m: Message): boolean {
  if (typeof m.method !== 'string') return false;
  for (const key of Object.keys(m)) if (!PLAIN_MEMBERS.has(key)) return false;
  if (!('params' in m)) return true;
  const params = m.params;
  return isObject(params) && !Object.hasOwn(params, '__proto__') && plainMeta(params);
}

/**
 * Checks `meta` on methods other than tools/call (the CLI sends it on tools/list): optional there,
 * but refused when present and malformed.
 */
export function checkListMeta(m: Message, ctx: ToolContext): void {
  const params = m.params;
  if (!isObject(params) || !('arguments' in params)) return;
  const args = params.arguments;
  if (isObject(args) && 'meta' in args) readCallMeta(args, { requireIdempotencyKey: false, allowLoopbackHttp: ctx.allowLoopbackHttp, advice: ctx.profileAdvice });
}

/** One message's fate: answered here (with the HTTP status a lone message gets), sent to the SDK, or dropped. */
export type Slot = { answer: object; status: number } | { send: JSONRPCMessage } | { drop: true };

export const refusal = (id: unknown, status: number, code: number, label: string, problem: string, dataCode: string): Slot => ({
  status,
  answer: rpcErrorBody(validId(id) ? id : null, code, `${label}: ${problem}`, { code: dataCode, content: problem }),
});

/**
 * Classifies one message of a POST (docs/mcp.md "Batches and ids"). `seen` holds the request ids
 * met so far: a repeated id is refused, so that each answer belongs to exactly one request. A
 * notification that fails a params check is dropped: JSON-RPC never answers a notification.
 */
export function classify(raw: unknown, seen: Set<string | number>, ctx: ToolContext): Slot {
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
    const problem = m.method === 'tools/call' ? (callParamsProblem(m) ?? callExtrasProblem(m)) : request ? requestProblem(m) : undefined;
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
  // (request, notification, response) by the same schema, so every request gets its answer. A plain
  // message cannot fail it (plainMessage), so it is not validated again.
  const sdk = plainMessage(m) ? undefined : sdkSchemaProblem(m);
  if (sdk) {
    if (m.method !== undefined && !request && sdk.code === RPC.invalidParams) return { drop: true };
    const [label, dataCode] = sdk.code === RPC.invalidParams ? ['Invalid params', 'invalid_params'] : ['Invalid Request', 'invalid_request'];
    return refusal(m.id, sdk.code === RPC.invalidParams ? 200 : 400, sdk.code, label, sdk.problem, dataCode);
  }
  return { send: m as JSONRPCMessage };
}

