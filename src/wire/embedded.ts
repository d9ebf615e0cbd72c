/**
 * Embedded Cart Protocol (EP) wire shapes at 2026-04-08: the JSON-RPC 2.0 envelope and the params /
 * results of every `ep.cart.*` method in services/shopping/embedded.openrpc.json. Used by host.js in
 * both roles (docs/embedded.md). These zod schemas are the source of truth; host.js itself validates
 * with the hand-written, dependency-free guards in src/embedded/guards.ts (the 15 KB budget), which
 * test/embedded-guards.test.ts proves equivalent to these schemas by property-based testing.
 *
 * The cart itself is validated structurally (the fields the cart.json schema requires, plus the ones a
 * host acts on: `continue_url`, `messages`); everything else passes through untouched (loose objects).
 */
import * as z from 'zod/mini';

export { EP_VERSION, RPC, EP, epError, epSuccess, isErrorResponse } from './ep.ts';
import { isErrorResponse, isPort } from './ep.ts';

const Str = z.string().check(z.maxLength(4096));
const Obj = z.looseObject({});

/**
 * Anything claiming to be JSON-RPC 2.0. Requests/notifications have `method`; responses have `id` and
 * `result` or `error`. `id` is checked (string | number) by the peer; `params` must be by-name.
 */
export const RpcEnvelope = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: z.optional(z.unknown()),
  method: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
  params: z.optional(Obj),
  result: z.optional(z.unknown()),
  error: z.optional(z.looseObject({ code: z.number(), message: z.string() })),
});
export type RpcEnvelope = z.infer<typeof RpcEnvelope>;

const DELEGATION = /^[a-z_]+(?:\.[a-z_]+)*$/;

/** `delegate`: unique dotted lower-case names (the OpenRPC pattern + uniqueItems). */
export const Delegate = z
  .array(z.string())
  .check(
    z.maxLength(32),
    z.refine((a) => new Set(a).size === a.length && a.every((d) => d.length < 128 && DELEGATION.test(d)), 'delegate: unique names matching ^[a-z_]+(\\.[a-z_]+)*$'),
  );

export const AuthRequest = z.looseObject({ type: z.optional(Str) });

/** `ep.cart.ready` params. */
export const ReadyParams = z.looseObject({ delegate: Delegate, auth: z.optional(AuthRequest) });
export type ReadyParams = z.infer<typeof ReadyParams>;

/** `ep.cart.auth` params. */
export const AuthParams = AuthRequest;

const MESSAGE_TYPES = ['error', 'warning', 'info'];

/** message.json, as far as a host acts on it (`type`, `content`, `code`, `path`, `severity`). */
export const EpMessage = z.looseObject({
  type: z.string().check(z.refine((t) => MESSAGE_TYPES.includes(t), 'type: error | warning | info')),
  content: Str,
  code: z.optional(Str),
  path: z.optional(Str),
  severity: z.optional(Str),
});

const Messages = z.array(EpMessage).check(z.maxLength(500));

/** A full UCP cart (cart.json): required fields checked, the rest passed through. */
export const EpCart = z.looseObject({
  ucp: z.looseObject({ version: Str }),
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  line_items: z.array(z.looseObject({ id: Str, item: z.looseObject({ id: Str }), quantity: z.number() })).check(z.maxLength(500)),
  currency: Str,
  totals: z.array(z.looseObject({ type: Str, amount: z.number() })).check(z.maxLength(100)),
  messages: z.optional(Messages),
  continue_url: z.optional(Str),
});
export type EpCart = z.infer<typeof EpCart>;

/** `ep.cart.start` / `*.change` / `complete` params. */
export const CartParams = z.looseObject({ cart: EpCart });

const ERROR_KEYS = ['ucp', 'messages', 'continue_url'];

/** types/error_response.json (no other properties allowed, at least one message). */
export const EpErrorResponse = z
  .looseObject({
    ucp: z.looseObject({ version: Str, status: z.literal('error') }),
    messages: Messages.check(z.minLength(1)),
    continue_url: z.optional(Str),
  })
  .check(z.refine((o) => Object.keys(o).every((k) => ERROR_KEYS.includes(k)), 'error_response: no other properties'));
export type EpErrorResponse = z.infer<typeof EpErrorResponse>;

/**
 * `ep.cart.error` params: the OpenRPC's `{error: error_response}` (what we send) or the prose's bare
 * `error_response` (accepted, EMBEDDED.md §10). `errorParams` normalises to the error_response.
 */
export const ErrorParams = z.looseObject({}).check(z.refine((p) => errorParams(p) !== null, 'error_response expected'));
export function errorParams(p: unknown): EpErrorResponse | null {
  const e = typeof p === 'object' && p !== null && 'error' in p ? (p as { error: unknown }).error : p;
  const r = z.safeParse(EpErrorResponse, e);
  return r.success ? r.data : null;
}

const UcpSuccess = z.looseObject({ version: Str, status: z.optional(z.literal('success')) });

/** `ep.cart.ready` success result (optionally with a port upgrade / credential). */
export const ReadySuccess = z.looseObject({
  ucp: UcpSuccess,
  upgrade: z.optional(z.looseObject({ port: z.optional(z.custom<MessagePort>(isPort)) })),
  credential: z.optional(Str),
});
export type ReadySuccess = z.infer<typeof ReadySuccess>;

/** `ep.cart.auth` success result. */
export const AuthSuccess = z.looseObject({ ucp: UcpSuccess, credential: Str });

/**
 * A request's result: success (validated against `success`), a valid error_response, or invalid.
 * (The OpenRPC `oneOf`, discriminated by `ucp.status`.)
 */
export function parseResult<T>(success: z.ZodMiniType<T>, r: unknown): { ok: true; data: T } | { ok: false; error?: EpErrorResponse } {
  if (isErrorResponse(r)) {
    const e = z.safeParse(EpErrorResponse, r);
    return { ok: false, error: e.success ? e.data : undefined };
  }
  const s = z.safeParse(success, r);
  return s.success ? { ok: true, data: s.data } : { ok: false };
}
