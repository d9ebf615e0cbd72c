/**
 * Hand-written validators for exactly the EP shapes host.js checks on incoming traffic. They mirror
 * the zod schemas in src/wire/embedded.ts (the source of truth) so that the browser bundle carries
 * no zod runtime (the 15 KB budget; no eval / `new Function`, host.js runs under a strict CSP).
 * test/embedded-guards.test.ts proves each guard equivalent to its schema with property-based tests
 * (`guard(x) === schema.safeParse(x).success`); change both together. Zod semantics kept here:
 * objects are non-null non-array objects whose declared keys are read with `o[k]` (unknown keys
 * pass), optional = `undefined` or valid, numbers are finite, arrays are checked index by index
 * (holes are `undefined`, hence invalid elements).
 */
import { isErrorResponse, isPort, type EpErrorResponse } from '../wire/ep.ts';

export type Guard<T = unknown> = (x: unknown) => x is T;
type Shape = Record<string, (x: any) => boolean>;

const isObj = (x: unknown): x is Record<string, any> => typeof x === 'object' && x !== null && !Array.isArray(x);
const str = (max: number, min = 0) => (x: unknown) => typeof x === 'string' && x.length >= min && x.length <= max;
const Str = str(4096);
const num = (x: unknown) => typeof x === 'number' && isFinite(x);
const opt = (g: (x: any) => boolean) => (x: unknown) => x === undefined || g(x);
const obj = <T = Record<string, any>>(shape: Shape): Guard<T> => ((x: unknown) => isObj(x) && Object.keys(shape).every((k) => shape[k](x[k]))) as Guard<T>;
const arr = (g: (x: any) => boolean, max: number, min = 0) => (x: unknown): x is any[] => {
  if (!Array.isArray(x) || x.length > max || x.length < min) return false;
  for (let i = 0; i < x.length; i++) if (!g(x[i])) return false;
  return true;
};

/** RpcEnvelope. */
export const isEnvelope = obj<{ id?: unknown; method?: string; params?: object; result?: unknown; error?: { code: number; message: string } }>({
  jsonrpc: (x) => x === '2.0',
  method: opt(str(128, 1)),
  params: opt(isObj),
  error: opt(obj({ code: num, message: (x) => typeof x == 'string' })),
});

const DELEGATION = /^[a-z_]+(?:\.[a-z_]+)*$/;
const Delegate = (x: unknown) =>
  arr((d) => typeof d == 'string', 32)(x) && new Set(x).size === x.length && x.every((d: string) => d.length < 128 && DELEGATION.test(d));

/** AuthParams (= AuthRequest). */
export const isAuthParams = obj<{ type?: string }>({ type: opt(Str) });

/** ReadyParams. */
export const isReadyParams = obj<{ delegate: string[]; auth?: { type?: string } }>({ delegate: Delegate, auth: opt(isAuthParams) });

const TYPES = ['error', 'warning', 'info'];
const Messages = (min: number) =>
  arr(obj({ type: (t) => TYPES.includes(t), content: Str, code: opt(Str), path: opt(Str), severity: opt(Str) }), 500, min);

/** EpCart (the fields host.js relies on; everything else passes through). */
export type EpCart = { id: string; continue_url?: string; [k: string]: unknown };

/** CartParams. */
export const isCartParams = obj<{ cart: EpCart }>({
  cart: obj({
    ucp: obj({ version: Str }),
    id: str(256, 1),
    line_items: arr(obj({ id: Str, item: obj({ id: Str }), quantity: num }), 500),
    currency: Str,
    totals: arr(obj({ type: Str, amount: num }), 100),
    messages: opt(Messages(0)),
    continue_url: opt(Str),
  }),
});

const ERROR_KEYS = ['ucp', 'messages', 'continue_url'];
const errorShape = obj({ ucp: obj({ version: Str, status: (x) => x === 'error' }), messages: Messages(1), continue_url: opt(Str) });

/** EpErrorResponse: closed (zod's output drops an own `__proto__` key, so it is not counted). */
export const isErrorResponseStrict = (x: unknown): x is EpErrorResponse => {
  if (!errorShape(x)) return false;
  for (const k in x) if (k !== '__proto__' && !ERROR_KEYS.includes(k)) return false;
  return true;
};

/** `ep.cart.error` params, `{error: error_response}` or the bare error_response, normalised; else null. */
export function errorParams(p: unknown): EpErrorResponse | null {
  const e = isObj(p) && 'error' in p ? p.error : p;
  return isErrorResponseStrict(e) ? e : null;
}

/** ErrorParams. */
export const isErrorParams = (x: unknown): x is object => isObj(x) && errorParams(x) !== null;

const UcpSuccess = obj({ version: Str, status: opt((x) => x === 'success') });

/** ReadySuccess. */
export const isReadySuccess = obj<{ ucp: object; upgrade?: { port?: MessagePort }; credential?: string }>({
  ucp: UcpSuccess,
  upgrade: opt(obj({ port: opt(isPort) })),
  credential: opt(Str),
});

/** AuthSuccess. */
export const isAuthSuccess = obj<{ ucp: object; credential: string }>({ ucp: UcpSuccess, credential: Str });

/** parseResult of src/wire/embedded.ts, with a guard for the success shape. */
export function parseResult<T>(success: Guard<T>, r: unknown): { ok: true; data: T } | { ok: false; error?: EpErrorResponse } {
  if (isErrorResponse(r)) return { ok: false, error: isErrorResponseStrict(r) ? r : undefined };
  return success(r) ? { ok: true, data: r } : { ok: false };
}
