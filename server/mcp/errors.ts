/**
 * Protocol failures on the MCP transport. Thrown from tool handlers (or the request pre-checks) and
 * rendered as a JSON-RPC `error` with `code`/`message`/`data`; `httpStatus` is also set on the HTTP
 * response (DIGEST §2 "MCP over HTTP also sets the HTTP status"). Business outcomes never use this:
 * they are tool results carrying UCP `messages`.
 */
import { DomainError, UNAVAILABLE, type ErrorKind } from '../core/shared/errors.ts';

/** JSON-RPC / UCP error codes used on this transport (DIGEST §1.2, §2, §4). */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** auth, signatures, 403, 409, 429, 503 */
  server: -32000,
  /** discovery / negotiation: invalid_profile_url, profile_unreachable, profile_malformed, version_unsupported */
  discovery: -32001,
  /** MCP's `resources/read` of a URI the server does not have. */
  resourceNotFound: -32002,
} as const;

export interface RpcErrorData {
  code?: string;
  content?: string;
  continue_url?: string;
  retry_after?: number;
  [k: string]: unknown;
}

export class McpProtocolError extends Error {
  /** Read by the SDK's Protocol layer: it copies `code` and `data` into the JSON-RPC error. */
  readonly code: number;
  readonly data: RpcErrorData;
  readonly httpStatus: number;
  /** HTTP headers the failure calls for (e.g. `WWW-Authenticate` with `error="invalid_token"`). */
  readonly httpHeaders: Record<string, string>;
  constructor(code: number, httpStatus: number, data: RpcErrorData, message = data.content ?? 'Request failed.', httpHeaders: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.httpStatus = httpStatus;
    this.data = data;
    this.httpHeaders = httpHeaders;
  }
}

/** A JSON-RPC error envelope answered without reaching the SDK (malformed or oversized requests). */
export function rpcErrorBody(id: string | number | null, code: number, message: string, data?: RpcErrorData) {
  return { jsonrpc: '2.0' as const, id, error: { code, message, ...(data ? { data } : {}) } };
}

/**
 * The MCP edge's one table: a domain error's kind → JSON-RPC code and the HTTP status also set on
 * the response. Input mistakes (`invalid`, `malformed`) are -32602 here, but a tool's own input
 * mistakes never reach this table: they are results the model reads (server.ts, docs/mcp.md).
 */
export const MCP_ERRORS: Record<ErrorKind, { rpc: number; http: number }> = {
  malformed: { rpc: RPC.invalidParams, http: 200 },
  invalid: { rpc: RPC.invalidParams, http: 200 },
  too_large: { rpc: RPC.invalidParams, http: 200 },
  unsupported_media_type: { rpc: RPC.server, http: 415 },
  unauthorized: { rpc: RPC.server, http: 401 },
  forbidden: { rpc: RPC.server, http: 403 },
  not_found: { rpc: RPC.server, http: 404 },
  conflict: { rpc: RPC.server, http: 409 },
  rate_limited: { rpc: RPC.server, http: 429 },
  unavailable: { rpc: RPC.server, http: 503 },
  internal: { rpc: RPC.internal, http: 500 },
};

/** A domain error as a JSON-RPC error (with `retry_after` when waiting helps). */
export function fromDomainError(e: DomainError): McpProtocolError {
  const t = MCP_ERRORS[e.kind];
  return new McpProtocolError(t.rpc, t.http, { code: e.code, content: e.message, ...(e.kind === 'unavailable' ? { retry_after: UNAVAILABLE.retryAfterSeconds } : {}) });
}
