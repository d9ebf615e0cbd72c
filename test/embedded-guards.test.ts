/**
 * host.js validates incoming EP traffic with the hand-written guards of src/embedded/guards.ts (no
 * zod in the bundle: the 15 KB budget). The zod schemas of src/wire/embedded.ts stay the source of
 * truth; this file proves each guard equivalent to its schema by property-based testing:
 * `guard(x) === schema.safeParse(x).success` for values built to the schema (incl. boundary lengths,
 * optional keys absent / undefined, unknown keys), for mutations of those (keys deleted, replaced by
 * garbage, `__proto__` / extra keys added, array holes and overflows) and for pure garbage.
 * GUARD_RUNS (default 1,500) runs per shape and per kind of input.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as z from 'zod/mini';
import * as W from '../src/wire/embedded.ts';
import * as G from '../src/embedded/guards.ts';
import { UCP_VERSION } from '../src/wire/common.ts';

const RUNS = Number(process.env.GUARD_RUNS ?? 1500);

// ---- value generators built to the schemas -------------------------------------------------

/** Strings around the schema's length limits. */
const str = (max: number, min = 0) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.string({ minLength: min, maxLength: Math.min(12, max) }) },
    { weight: 1, arbitrary: fc.constantFrom(...[min, max, max + 1, Math.max(0, min - 1)].map((n) => 'x'.repeat(n))) },
  );
const S = str(4096);
const num = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, NaN, Infinity, -Infinity));
const extra = fc.dictionary(fc.constantFrom('extra', 'title', 'totals', 'kind', 'ucp2'), fc.anything({ maxDepth: 1 }), { maxKeys: 2 });
/** A loose object: the shape's keys (optional ones may be absent) plus unknown keys. */
const loose = <T extends Record<string, fc.Arbitrary<unknown>>>(shape: T, required: Array<keyof T & string>) =>
  fc.tuple(fc.record(shape, { requiredKeys: required }), extra).map(([r, e]) => ({ ...e, ...r }));
const arrayOf = <T,>(a: fc.Arbitrary<T>, max: number, min = 0) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.array(a, { minLength: min, maxLength: Math.min(max, 4) }) },
    { weight: 1, arbitrary: fc.tuple(a, fc.constantFrom(max, max + 1, min)).map(([v, n]) => Array.from({ length: n }, () => v)) },
  );

const delegateName = fc.stringMatching(/^[a-z_]{1,6}(\.[a-z_]{1,6}){0,2}$/);
const delegate = fc.oneof(
  { weight: 6, arbitrary: fc.uniqueArray(delegateName, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(32, 33).map((n) => Array.from({ length: n }, (_, i) => `d${'abcdefghijklmnopqrstuvwxyzabcdefgh'[i]}`.replace(/d/, 'x'))) },
  { weight: 1, arbitrary: fc.constantFrom(['a'.repeat(127)], ['a'.repeat(128)], ['a', 'a'], ['A'], ['a.'], ['.a'], ['a..b'], ['a\n']) },
);
const auth = loose({ type: S }, []);
const message = loose({ type: fc.constantFrom('error', 'warning', 'info', 'fatal', 'Error'), content: S, code: S, path: S, severity: S }, ['type', 'content']);
const cart = loose(
  {
    ucp: loose({ version: S }, ['version']),
    id: str(256, 1),
    line_items: arrayOf(loose({ id: S, item: loose({ id: S }, ['id']), quantity: num }, ['id', 'item', 'quantity']), 500),
    currency: S,
    totals: arrayOf(loose({ type: S, amount: num }, ['type', 'amount']), 100),
    messages: arrayOf(message, 500),
    continue_url: S,
  },
  ['ucp', 'id', 'line_items', 'currency', 'totals'],
);
const errorResponse = fc.record(
  {
    ucp: loose({ version: S, status: fc.constantFrom('error', 'error', 'success') }, ['version', 'status']),
    messages: arrayOf(message, 500, 1),
    continue_url: S,
  },
  { requiredKeys: ['ucp', 'messages'] },
);
/** error_response is closed: sometimes add one more top-level key (an own `__proto__` included). */
const closed = fc
  .tuple(errorResponse, fc.option(fc.constantFrom('__proto__', 'extra', 'error', 'continue_url'), { freq: 3 }), fc.anything({ maxDepth: 1 }))
  .map(([e, k, v]) => (k === null ? e : Object.defineProperty({ ...e }, k, { value: v, enumerable: true, writable: true, configurable: true })));
const fakePort = fc.constantFrom(
  { postMessage() {}, start() {}, close() {} },
  { postMessage() {}, start() {} },
  new MessageChannel().port1,
);
const ucpSuccess = loose({ version: S, status: fc.constantFrom('success', 'error', 'ok') }, ['version']);
const envelope = fc.record(
  {
    jsonrpc: fc.constantFrom('2.0', '2.0', '2', 2),
    id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
    method: str(128, 1),
    params: fc.oneof(fc.dictionary(fc.string(), fc.anything({ maxDepth: 1 })), fc.constant([1])),
    result: fc.anything({ maxDepth: 1 }),
    error: loose({ code: num, message: fc.oneof(fc.string(), fc.integer()) }, ['code', 'message']),
  },
  { requiredKeys: ['jsonrpc'] },
);

// ---- mutations and garbage -----------------------------------------------------------------

const garbage = fc.oneof(
  fc.anything({ maxDepth: 2, withNullPrototype: true, withSparseArray: true, withBoxedValues: true, withDate: true, withMap: true, withSet: true }),
  fc.constantFrom(undefined, null, NaN, Infinity, -0, '', '2.0', 'error', 'success', [], {}, [undefined], 'x'.repeat(4097), { postMessage() {}, start() {}, close() {} }),
);

const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v));

/** Deep copy of plain data (own `__proto__` keys, holes and non-plain leaves such as ports kept). */
function clone(v: unknown, seen = new Map<unknown, unknown>()): unknown {
  if (seen.has(v)) return seen.get(v);
  if (Array.isArray(v)) {
    const a: unknown[] = new Array(v.length);
    seen.set(v, a);
    v.forEach((x, i) => (a[i] = clone(x, seen)));
    return a;
  }
  if (!isPlain(v)) return v;
  const o: Record<string, unknown> = Object.getPrototypeOf(v) === null ? Object.create(null) : {};
  seen.set(v, o);
  for (const k of Object.keys(v)) Object.defineProperty(o, k, { value: clone(v[k], seen), enumerable: true, writable: true, configurable: true });
  return o;
}

function containers(v: unknown, out: Array<Record<string, unknown> | unknown[]> = []) {
  if (out.includes(v as never)) return out;
  if (Array.isArray(v)) {
    out.push(v);
    v.forEach((x) => containers(x, out));
  } else if (isPlain(v)) {
    out.push(v);
    for (const k of Object.keys(v)) containers(v[k], out);
  }
  return out;
}

const NEW_KEYS = ['__proto__', 'error', 'extra', 'continue_url', 'ucp', 'messages', 'status', 'port', 'delegate', 'params', 'method', 'id'];
type Op = [number, number, number, unknown];
const ops = fc.array(fc.tuple(fc.nat(), fc.nat(7), fc.nat(), garbage), { minLength: 1, maxLength: 3 });

function mutate(valid: unknown, steps: Op[]): unknown {
  const root = { v: clone(valid) } as Record<string, unknown>;
  for (const [pick, op, k, g0] of steps) {
    const g = clone(g0);
    const all = containers(root);
    const c = all[pick % all.length];
    const keys = Object.keys(c);
    const key = keys.length ? keys[k % keys.length] : '0';
    const set = (name: string, value: unknown) => Object.defineProperty(c, name, { value, enumerable: true, writable: true, configurable: true });
    if (op === 0 || op === 1) set(key, g); // replace by garbage
    else if (op === 2) delete (c as Record<string, unknown>)[key]; // remove (a hole in an array)
    else if (op === 3) set(Array.isArray(c) ? String(c.length) : NEW_KEYS[k % NEW_KEYS.length], g); // add
    else if (op === 4) set(key, undefined);
    else if (op === 5 && Array.isArray(c)) c.length = k % (c.length + 2);
    else if (op === 6 && typeof (c as Record<string, unknown>)[key] === 'string') set(key, (c as Record<string, string>)[key] + 'x'.repeat(k % 5000));
    else if (op === 7 && Array.isArray(c)) c.push(...Array.from({ length: k % 40 }, () => c[0]));
  }
  return root.v;
}

// ---- the equivalence ---------------------------------------------------------------------

const zodOk = (s: z.ZodMiniType, x: unknown) => z.safeParse(s, x).success;

const cases: Array<[string, z.ZodMiniType, (x: unknown) => boolean, fc.Arbitrary<unknown>]> = [
  ['RpcEnvelope', W.RpcEnvelope, G.isEnvelope, envelope],
  ['ReadyParams', W.ReadyParams, G.isReadyParams, loose({ delegate, auth }, ['delegate'])],
  ['AuthParams', W.AuthParams, G.isAuthParams, auth],
  ['CartParams', W.CartParams, G.isCartParams, loose({ cart }, ['cart'])],
  ['EpErrorResponse', W.EpErrorResponse, G.isErrorResponseStrict, closed],
  ['ErrorParams', W.ErrorParams, G.isErrorParams, fc.oneof(closed, loose({ error: closed }, ['error']))],
  ['ReadySuccess', W.ReadySuccess, G.isReadySuccess, loose({ ucp: ucpSuccess, upgrade: loose({ port: fakePort }, []), credential: S }, ['ucp'])],
  ['AuthSuccess', W.AuthSuccess, G.isAuthSuccess, loose({ ucp: ucpSuccess, credential: S }, ['ucp', 'credential'])],
];

describe('EP guards ≡ zod schemas (property-based)', () => {
  it('EP_VERSION is the UCP version', () => {
    expect(W.EP_VERSION).toBe(UCP_VERSION);
  });

  for (const [name, schema, guard, valid] of cases) {
    describe(name, () => {
      const same = (x: unknown) => {
        expect(guard(x), JSON.stringify(x, (_k, v) => (v === undefined ? '<undefined>' : v))?.slice(0, 400)).toBe(zodOk(schema, x));
      };

      it('agrees on values built to the schema (and they are mostly valid)', () => {
        let accepted = 0;
        fc.assert(
          fc.property(valid, (x) => {
            same(x);
            if (zodOk(schema, x)) accepted++;
          }),
          { numRuns: RUNS },
        );
        expect(accepted).toBeGreaterThan(RUNS / 20);
      });

      it('agrees on mutated values', () => {
        fc.assert(fc.property(valid, ops, (x, steps) => same(mutate(x, steps))), { numRuns: RUNS });
      });

      it('agrees on garbage', () => {
        fc.assert(fc.property(garbage, same), { numRuns: RUNS });
      });
    });
  }

  it('errorParams and parseResult give the same answers as the zod versions', () => {
    const anyResult = fc.oneof(errorResponse, loose({ ucp: ucpSuccess, credential: S }, ['ucp']), garbage);
    fc.assert(
      fc.property(fc.oneof(closed, loose({ error: closed }, ['error']), garbage), ops, fc.boolean(), (x, steps, m) => {
        const v = m ? mutate(x, steps) : x;
        expect(G.errorParams(v) === null).toBe(W.errorParams(v) === null);
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(anyResult, ops, fc.boolean(), (x, steps, m) => {
        const v = m ? mutate(x, steps) : x;
        for (const [g, s] of [[G.isAuthSuccess, W.AuthSuccess], [G.isReadySuccess, W.ReadySuccess]] as const) {
          const a = G.parseResult(g, v);
          const b = W.parseResult(s, v);
          expect([a.ok, a.ok ? undefined : a.error === undefined]).toEqual([b.ok, b.ok ? undefined : b.error === undefined]);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
