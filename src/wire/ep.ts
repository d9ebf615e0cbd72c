/**
 * The zod-free part of the Embedded Cart Protocol wire (EP 2026-04-08): method names, JSON-RPC
 * error codes and the error_response builders. Split from ./embedded.ts (the zod schemas) so that
 * host.js can import these without bundling zod; ./embedded.ts re-exports everything here.
 */
import { UCP_VERSION } from './version.ts';

/** The Embedded Cart Protocol speaks the seed's UCP revision. */
export const EP_VERSION = UCP_VERSION;

/** JSON-RPC 2.0 error codes (transport faults only; business outcomes travel in `result`). */
export const RPC = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603 } as const;

/** Every EP method at this version (all sent embedded → host). */
export const EP = {
  ready: 'ep.cart.ready',
  auth: 'ep.cart.auth',
  start: 'ep.cart.start',
  lineItems: 'ep.cart.line_items.change',
  buyer: 'ep.cart.buyer.change',
  messages: 'ep.cart.messages.change',
  complete: 'ep.cart.complete',
  error: 'ep.cart.error',
} as const;

/** types/error_response.json as EP carries it (the zod schema is `EpErrorResponse` in ./embedded.ts). */
export interface EpErrorResponse {
  ucp: { version: string; status: 'error'; [k: string]: unknown };
  messages: Array<{ type: string; content: string; code?: string; path?: string; severity?: string; [k: string]: unknown }>;
  continue_url?: string;
}

export const isErrorResponse = (r: unknown): r is EpErrorResponse =>
  typeof r === 'object' && r !== null && (r as { ucp?: { status?: string } }).ucp?.status === 'error';

/** Build an EP error_response (`security_error`, `invalid_state_error`, …). */
export function epError(code: string, content: string, continueUrl?: string, severity: 'recoverable' | 'unrecoverable' = 'unrecoverable'): EpErrorResponse {
  return {
    ucp: { version: EP_VERSION, status: 'error' },
    messages: [{ type: 'error', code, content, severity }],
    ...(continueUrl ? { continue_url: continueUrl } : {}),
  };
}

export const epSuccess = () => ({ version: EP_VERSION, status: 'success' as const });

/**
 * A transferred MessagePort. Duck-typed (realms differ: Node vs DOM in tests, and a port never
 * arrives any other way: structured clone and JSON cannot carry functions).
 */
export const isPort = (v: unknown): v is MessagePort =>
  typeof v === 'object' && v !== null && ['postMessage', 'start', 'close'].every((k) => typeof (v as Record<string, unknown>)[k] === 'function');
