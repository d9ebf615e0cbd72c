/**
 * Which MCP era a POST to `/mcp` speaks, decided per request as the 2026-07-28 specification says
 * (body first, headers as a cross-check; the official v2 SDK's `classifyInboundRequest` and
 * standard-header rung, which these rules follow cell for cell):
 *
 * - **2026-07-28** ("modern"): the request's `params._meta` carries
 *   `io.modelcontextprotocol/protocolVersion` (the per-request envelope, with
 *   `io.modelcontextprotocol/clientCapabilities`; `clientInfo` optional). No `initialize`, no session.
 *   The HTTP request must also carry `MCP-Protocol-Version` and `Mcp-Method` (and `Mcp-Name` on
 *   `tools/call` / `resources/read`), each equal to what the body says.
 * - **2025** (2025-11-25, 2025-06-18, 2025-03-26): anything without that claim — the `initialize`
 *   handshake, plain JSON-RPC POSTs, batches, posted responses — served exactly as before.
 *
 * Refusals (each a JSON-RPC error with HTTP 400, never a 5xx; docs/mcp.md "Eras"):
 * a malformed envelope, or a modern `MCP-Protocol-Version` header without one → -32602; header and
 * body disagreeing (a 2026-07-28 envelope under a 2025 header, `initialize` under a 2026-07-28
 * header, a missing or different `Mcp-Method` / `Mcp-Name`) → -32020 HeaderMismatch; a version the
 * server does not speak in the envelope → -32022 UnsupportedProtocolVersion with `data.supported`;
 * a batch holding a 2026-07-28 request → -32600 (that era has no batches).
 */
import { rpcErrorBody } from './errors.ts';

export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

// The MCP revisions themselves are named in server/version.ts, with every other version string.
export { MCP_LEGACY_VERSIONS as LEGACY_VERSIONS, MCP_MODERN_VERSIONS as MODERN_VERSIONS } from '../version.ts';
import { MCP_MODERN_VERSIONS, MCP_MODERN_VERSIONS as MODERN_VERSIONS, MCP_LEGACY_VERSIONS as LEGACY_VERSIONS } from '../version.ts';

/** JSON-RPC codes the 2026-07-28 revision adds. */
export const MODERN_RPC = { headerMismatch: -32020, missingClientCapability: -32021, unsupportedVersion: -32022 } as const;

/** ISO dates: the modern era is every revision from 2026-07-28 on. */
export const isModernVersion = (v: string) => v >= MODERN_VERSIONS[0];

type Message = Record<string, unknown>;
const isObject = (v: unknown): v is Message => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface EraHeaders {
  version: string | null;
  method: string | null;
  name: string | null;
}

/** A refusal answered before any handler runs. */
export interface EraRefusal {
  status: 400;
  body: ReturnType<typeof rpcErrorBody>;
}

export type EraRoute =
  | { era: 'legacy' }
  | { era: 'modern'; kind: 'request' | 'notification'; message: Message; version: string; meta: Message }
  | { era: 'refused'; refusal: EraRefusal };

const metaOf = (params: unknown): Message | undefined => (isObject(params) && isObject(params._meta) ? params._meta : undefined);
const hasClaim = (params: unknown) => {
  const meta = metaOf(params);
  return meta !== undefined && PROTOCOL_VERSION_KEY in meta;
};
const echoId = (m: unknown) => (isObject(m) && (typeof m.id === 'string' || Number.isSafeInteger(m.id)) ? (m.id as string | number) : null);

function refuse(m: unknown, code: number, message: string, data: Record<string, unknown>): EraRoute {
  return { era: 'refused', refusal: { status: 400, body: rpcErrorBody(echoId(m), code, message, data) } };
}

/** -32020: what the headers say and what the body says differ (the header named, then the body). */
function mismatch(m: unknown, header: string, body: string): EraRoute {
  return refuse(m, MODERN_RPC.headerMismatch, `Bad Request: the request headers and body disagree: ${body}`, { code: 'header_mismatch', content: body, mismatch: { header, body } });
}

/** Problems with a 2026-07-28 `_meta` envelope, in the order a client fixes them; empty when it is good. */
export function envelopeProblems(meta: Message): string[] {
  const problems: string[] = [];
  const version = meta[PROTOCOL_VERSION_KEY];
  if (version === undefined) problems.push(`${PROTOCOL_VERSION_KEY} is missing (the protocol version of this request, e.g. "${MCP_MODERN_VERSIONS[0]}")`);
  else if (typeof version !== 'string' || version === '') problems.push(`${PROTOCOL_VERSION_KEY} must be a protocol version string such as "${MCP_MODERN_VERSIONS[0]}"`);
  const caps = meta[CLIENT_CAPABILITIES_KEY];
  if (caps === undefined) problems.push(`${CLIENT_CAPABILITIES_KEY} is missing (the client's capabilities for this request; {} when it declares none)`);
  else if (!isObject(caps)) problems.push(`${CLIENT_CAPABILITIES_KEY} must be an object ({} when the client declares none)`);
  const info = meta[CLIENT_INFO_KEY];
  if (info !== undefined && !(isObject(info) && typeof info.name === 'string' && typeof info.version === 'string')) problems.push(`${CLIENT_INFO_KEY}, when sent, must be {"name", "version"} strings`);
  return problems;
}

function invalidEnvelope(m: unknown, problems: string[]): EraRoute {
  const content = `Invalid _meta envelope for protocol revision 2026-07-28: ${problems.join('; ')}.`;
  return refuse(m, -32602, `Invalid params: ${content}`, { code: 'invalid_envelope', content, envelope: { problems } });
}

/** A batch is 2025-era traffic; one holding a 2026-07-28 request is refused whole (that era has no batches). */
function classifyBatch(body: unknown[]): EraRoute {
  if (!body.some((m) => isObject(m) && hasClaim(m.params))) return { era: 'legacy' };
  const content = 'JSON-RPC batches may not hold protocol revision 2026-07-28 requests: send each as its own POST.';
  return refuse(null, -32600, `Invalid Request: ${content}`, { code: 'invalid_request', content });
}

/** The envelope is present: check it, then the headers that may contradict it (header present, different). */
function classifyClaim(m: Message, headers: EraHeaders, kind: 'request' | 'notification'): EraRoute {
  const meta = metaOf(m.params)!;
  const problems = envelopeProblems(meta);
  if (problems.length > 0 && (kind === 'request' || typeof meta[PROTOCOL_VERSION_KEY] !== 'string')) return invalidEnvelope(m, problems);
  const version = meta[PROTOCOL_VERSION_KEY] as string;
  if (headers.version !== null && headers.version !== version) {
    return mismatch(m, headers.version, `the body's _meta names protocol version ${version} but the MCP-Protocol-Version header names ${headers.version}${isModernVersion(version) && !isModernVersion(headers.version) ? ' (a 2026-07-28 request inside a 2025-era exchange: send both as 2026-07-28, or drop the _meta version and stay in the 2025 session)' : ''}`);
  }
  if (headers.method !== null && headers.method !== m.method) return mismatch(m, headers.method, `the body names method ${String(m.method)} but the Mcp-Method header names ${headers.method}`);
  return { era: 'modern', kind, message: m, version, meta };
}

/**
 * Classifies one parsed POST body. `legacy` goes on to the 2025 path unchanged; `modern` to
 * modern.ts; `refused` is answered as is. Never throws.
 */
export function classifyEra(body: unknown, headers: EraHeaders): EraRoute {
  if (Array.isArray(body)) return classifyBatch(body);
  if (!isObject(body) || typeof body.method !== 'string') return { era: 'legacy' };
  const kind = 'id' in body ? 'request' : 'notification';
  const modernHeader = headers.version !== null && isModernVersion(headers.version);
  if (kind === 'request' && body.method === 'initialize' && !(hasClaim(body.params) && envelopeProblems(metaOf(body.params)!).length === 0 && isModernVersion(String(metaOf(body.params)![PROTOCOL_VERSION_KEY])))) {
    if (modernHeader) return mismatch(body, headers.version!, `initialize is the 2025-era handshake, but the MCP-Protocol-Version header names ${headers.version}: a 2026-07-28 client sends no initialize (call server/discover, then any method with the _meta envelope)`);
    return { era: 'legacy' };
  }
  if (hasClaim(body.params)) return classifyClaim(body, headers, kind);
  if (!modernHeader) return { era: 'legacy' };
  if (kind === 'notification') return { era: 'modern', kind, message: body, version: headers.version!, meta: {} };
  const meta = metaOf(body.params);
  const given = isObject(body.params) && body.params._meta !== undefined;
  const problems = meta ? envelopeProblems(meta) : [given ? `params._meta must be an object carrying ${PROTOCOL_VERSION_KEY} and ${CLIENT_CAPABILITIES_KEY}` : `params._meta is missing (a 2026-07-28 request carries ${PROTOCOL_VERSION_KEY} and ${CLIENT_CAPABILITIES_KEY} there)`];
  return invalidEnvelope(body, [`the MCP-Protocol-Version header names ${headers.version}, but`, ...problems]);
}

/** `=?base64?…?=` values of Mcp-Name (SEP-2243), decoded; undefined when the sentinel is not valid Base64 UTF-8. */
export function decodeHeaderValue(value: string): string | undefined {
  const m = /^=\?base64\?(.*)\?=$/.exec(value);
  if (!m) return value;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(m[1]) || m[1].length % 4 !== 0) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(m[1], 'base64'));
  } catch {
    return undefined;
  }
}

/** Which body field Mcp-Name mirrors, per method (SEP-2243's table, as far as this server has methods). */
const NAME_SOURCE = new Map([
  ['tools/call', 'name'],
  ['resources/read', 'uri'],
  ['prompts/get', 'name'],
]);

/**
 * The 2026-07-28 standard request headers (SEP-2243): `MCP-Protocol-Version` and `Mcp-Method` on
 * every request, `Mcp-Name` where the body has a name or URI it mirrors. A refusal, or undefined.
 * Notifications are exempt (the table reads "all requests").
 */
export function standardHeadersProblem(route: Extract<EraRoute, { era: 'modern' }>, headers: EraHeaders): EraRefusal | undefined {
  if (route.kind !== 'request') return undefined;
  const m = route.message;
  const fail = (header: string, body: string) => (mismatch(m, header, body) as Extract<EraRoute, { era: 'refused' }>).refusal;
  if (headers.version === null) return fail('(missing)', `the body's _meta names protocol version ${route.version} but the required MCP-Protocol-Version header is absent`);
  if (headers.method === null) return fail('(missing)', `the body names method ${String(m.method)} but the required Mcp-Method header is absent`);
  const field = NAME_SOURCE.get(m.method as string);
  const value = field && isObject(m.params) && typeof m.params[field] === 'string' ? (m.params[field] as string) : undefined;
  if (value === undefined) return undefined;
  if (headers.name === null) return fail('(missing)', `the body carries params.${field}="${value.slice(0, 200)}" but the required Mcp-Name header is absent`);
  const decoded = decodeHeaderValue(headers.name.trim());
  if (decoded === undefined) return fail(headers.name, 'the Mcp-Name header carries an invalid Base64 sentinel value');
  if (decoded !== value) return fail(headers.name, `the body carries params.${field}="${value.slice(0, 200)}" but the Mcp-Name header names "${decoded.slice(0, 200)}"`);
  return undefined;
}
