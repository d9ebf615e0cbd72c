/**
 * Embedded Cart Protocol (EP) wire shapes at 2026-04-08: the JSON-RPC 2.0 envelope and the params /
 * results of every `ep.cart.*` method in services/shopping/embedded.openrpc.json. Used by host.js in
 * both roles (docs/embedded.md) to validate every incoming message; zod/mini so the bundle carries
 * only these few schemas.
 *
 * The cart itself is validated structurally (the fields the cart.json schema requires, plus the ones a
 * host acts on: `continue_url`, `messages`); everything else passes through untouched (loose objects).
 */
import * as z from 'zod/mini';
import { Message, UCP_VERSION } from './common.ts';

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

const Str = z.string().check(z.maxLength(4096));
const Id = z.union([z.string().check(z.maxLength(128)), z.int()]);

/**
 * Anything claiming to be JSON-RPC 2.0. Requests/notifications have `method`; responses have `id` and
 * `result` or `error`. Finer checks happen per kind in the peer.
 */
export const RpcEnvelope = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: z.optional(z.nullable(Id)),
  method: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  params: z.optional(z.record(z.string(), z.unknown())),
  result: z.optional(z.unknown()),
  error: z.optional(z.looseObject({ code: z.int(), message: z.string() })),
});
export type RpcEnvelope = z.infer<typeof RpcEnvelope>;

/** `delegate`: unique dotted lower-case names (the OpenRPC pattern + uniqueItems). */
export const Delegate = z
  .array(z.string().check(z.regex(/^[a-z_]+(?:\.[a-z_]+)*$/), z.maxLength(128)))
  .check(
    z.maxLength(32),
    z.refine((a) => new Set(a).size === a.length, 'delegate items must be unique'),
  );

export const AuthRequest = z.looseObject({ type: z.optional(Str) });

/** `ep.cart.ready` params. */
export const ReadyParams = z.looseObject({ delegate: Delegate, auth: z.optional(AuthRequest) });
export type ReadyParams = z.infer<typeof ReadyParams>;

/** `ep.cart.auth` params. */
export const AuthParams = AuthRequest;

const Total = z.looseObject({ type: Str, amount: z.number() });

/** A full UCP cart (cart.json): required fields checked, the rest passed through. */
export const EpCart = z.looseObject({
  ucp: z.looseObject({ version: Str }),
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  line_items: z
    .array(z.looseObject({ id: Str, item: z.looseObject({ id: Str }), quantity: z.int() }))
    .check(z.maxLength(500)),
  currency: Str,
  totals: z.array(Total).check(z.maxLength(100)),
  messages: z.optional(z.array(Message).check(z.maxLength(500))),
  continue_url: z.optional(Str),
});
export type EpCart = z.infer<typeof EpCart>;

/** `ep.cart.start` / `*.change` / `complete` params. */
export const CartParams = z.looseObject({ cart: EpCart });

const UcpSuccess = z.looseObject({ version: Str, status: z.optional(z.literal('success')) });

/** types/error_response.json (no other properties allowed, at least one message). */
export const EpErrorResponse = z.strictObject({
  ucp: z.looseObject({ version: Str, status: z.literal('error') }),
  messages: z.array(Message).check(z.minLength(1), z.maxLength(50)),
  continue_url: z.optional(Str),
});
export type EpErrorResponse = z.infer<typeof EpErrorResponse>;

/**
 * `ep.cart.error` params: the OpenRPC's `{error: error_response}` (what we send) or the prose's bare
 * `error_response` (accepted, EMBEDDED.md §10). Normalised to the error_response.
 */
export const ErrorParams = z.union([z.looseObject({ error: EpErrorResponse }), EpErrorResponse]);
export const errorOf = (p: z.infer<typeof ErrorParams>): EpErrorResponse => ('error' in p ? p.error : p);

/**
 * A transferred MessagePort. Duck-typed (realms differ: Node vs DOM in tests, and a port never
 * arrives any other way: structured clone and JSON cannot carry functions).
 */
const isPort = (v: unknown): v is MessagePort =>
  typeof v === 'object' && v !== null && ['postMessage', 'start', 'close'].every((k) => typeof (v as Record<string, unknown>)[k] === 'function');

/** `ep.cart.ready` result: success (optionally with a port upgrade / credential) or error_response. */
export const ReadyResult = z.union([
  EpErrorResponse,
  z.looseObject({
    ucp: UcpSuccess,
    upgrade: z.optional(z.looseObject({ port: z.optional(z.custom<MessagePort>(isPort)) })),
    credential: z.optional(Str),
  }),
]);
export type ReadyResult = z.infer<typeof ReadyResult>;

/** `ep.cart.auth` result. */
export const AuthResult = z.union([EpErrorResponse, z.looseObject({ ucp: UcpSuccess, credential: Str })]);

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
