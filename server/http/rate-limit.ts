/**
 * Reusable per-client token-bucket rate limiting for Hono.
 *
 * Every client key owns a bucket of `capacity` tokens that refills continuously at `refillPerSecond`.
 * A request takes one token; with none left the request is answered 429 with `Retry-After` (whole
 * seconds until a token is back) and never reaches the handler. Every response carries the IETF
 * RateLimit header draft fields (draft-ietf-httpapi-ratelimit-headers):
 *
 *   RateLimit-Limit: <capacity>
 *   RateLimit-Remaining: <whole tokens left>
 *   RateLimit-Reset: <seconds until the bucket is full again>
 *   RateLimit-Policy: <capacity>;w=<seconds to refill from empty>
 *
 * Buckets live in a {@link BucketStore}. {@link MemoryBucketStore} is per process and bounded (LRU cap,
 * idle buckets dropped); a shared store (database, Redis) implements the same one-method interface so
 * several processes can enforce one budget. The clock is injectable so tests never sleep.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

/** The shape of one bucket: how big and how fast it refills. */
export interface BucketPolicy {
  capacity: number;
  refillPerSecond: number;
}

/** What a store persists per key. `updatedAt` is the clock reading (ms) `tokens` was computed at. */
export interface BucketState {
  tokens: number;
  updatedAt: number;
}

export interface TakeResult {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** When refused: milliseconds until enough tokens are back. 0 when allowed. */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

/**
 * Storage for buckets. `take` must be atomic per key (refill, then take `cost` tokens if there are
 * enough). A database implementation does the same arithmetic as {@link takeToken} inside a transaction
 * or a single UPDATE ... RETURNING.
 */
export interface BucketStore {
  take(key: string, policy: BucketPolicy, now: number, cost: number): TakeResult | Promise<TakeResult>;
}

/** The token-bucket arithmetic, pure, for any store. A missing state is a full bucket. */
export function takeToken(
  state: BucketState | undefined,
  policy: BucketPolicy,
  now: number,
  cost = 1,
): { state: BucketState; result: TakeResult } {
  const { capacity, refillPerSecond } = policy;
  const perMs = refillPerSecond / 1000;
  let tokens = capacity;
  if (state) {
    const elapsed = Math.max(0, now - state.updatedAt); // a clock stepping back never drains a bucket
    tokens = Math.min(capacity, state.tokens + elapsed * perMs);
  }
  let allowed = false;
  let retryAfterMs = 0;
  if (tokens >= cost) {
    tokens -= cost;
    allowed = true;
  } else {
    retryAfterMs = perMs > 0 ? (cost - tokens) / perMs : Number.POSITIVE_INFINITY;
  }
  const resetMs = perMs > 0 ? (capacity - tokens) / perMs : 0;
  return {
    state: { tokens, updatedAt: now },
    result: { allowed, remaining: Math.floor(tokens), retryAfterMs, resetMs },
  };
}

interface MemoryEntry extends BucketState {
  /** Clock reading at which this bucket is full again; from then on it equals a missing entry. */
  fullAt: number;
}

/**
 * In-process store. Bounded two ways: at most `maxKeys` buckets (least recently used evicted first, which
 * at worst hands that client a fresh bucket), and buckets that have refilled completely are dropped as
 * they reach the LRU end, since a full bucket is the same as no bucket.
 */
export class MemoryBucketStore implements BucketStore {
  readonly maxKeys: number;
  readonly #buckets = new Map<string, MemoryEntry>();

  constructor(opts: { maxKeys?: number } = {}) {
    this.maxKeys = Math.max(1, opts.maxKeys ?? 10_000);
  }

  get size(): number {
    return this.#buckets.size;
  }

  has(key: string): boolean {
    return this.#buckets.has(key);
  }

  clear(): void {
    this.#buckets.clear();
  }

  take(key: string, policy: BucketPolicy, now: number, cost: number): TakeResult {
    const previous = this.#buckets.get(key);
    const { state, result } = takeToken(previous, policy, now, cost);
    // Map iteration order is insertion order: delete + set moves the key to the most-recent end.
    this.#buckets.delete(key);
    this.#buckets.set(key, { ...state, fullAt: now + result.resetMs });
    this.#evict(now);
    return result;
  }

  #evict(now: number): void {
    // Drop a couple of idle (already refilled) buckets from the old end: amortised O(1) per request.
    for (let i = 0; i < 2; i++) {
      const oldest = this.#buckets.entries().next();
      if (oldest.done || oldest.value[1].fullAt > now) break;
      this.#buckets.delete(oldest.value[0]);
    }
    while (this.#buckets.size > this.maxKeys) {
      const oldestKey = this.#buckets.keys().next().value as string;
      this.#buckets.delete(oldestKey);
    }
  }
}

export interface RateLimitOptions extends BucketPolicy {
  /** Client key. Default: the socket's remote address ({@link clientAddress}), or `unknown`. */
  key?: (c: Context) => string | Promise<string>;
  /** With the default key, use the last `X-Forwarded-For` hop (the one our proxy appended). Only behind a proxy you trust. */
  trustProxy?: boolean;
  /** Default: a private {@link MemoryBucketStore} with the 10,000-key cap. */
  store?: BucketStore;
  /** Namespaces keys so several limiters can share one store. Default `default`. */
  name?: string;
  /** Tokens a request costs. Default 1. */
  cost?: number;
  /** Clock in milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Builds the 429 response. `Retry-After` and RateLimit-* headers are added afterwards. */
  onLimited?: (c: Context, retryAfterSeconds: number) => Response | Promise<Response>;
}

/** A Hono middleware produced by {@link rateLimit}. */
export type RateLimiter = MiddlewareHandler;

/**
 * The client's address: the value the edge already resolved for this request (`c.var.client`), else
 * the socket peer, or with `trustProxy` the last `X-Forwarded-For` entry. Never throws.
 */
export function clientAddress(c: Context, trustProxy = false): string {
  const resolved = (c.var as { client?: string }).client;
  if (resolved) return resolved;
  if (trustProxy) {
    const hops = (c.req.header('x-forwarded-for') ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    if (hops.length) return hops[hops.length - 1];
  }
  try {
    return getConnInfo(c).remote.address || 'unknown';
  } catch {
    return 'unknown'; // not served by @hono/node-server (e.g. app.request in tests)
  }
}

const defaultOnLimited = (c: Context): Response =>
  c.json({ error: 'rate_limited', message: 'Too many requests' }, 429);

export function rateLimit(opts: RateLimitOptions): RateLimiter {
  const { capacity, refillPerSecond } = opts;
  if (!(capacity >= 1) || !(refillPerSecond > 0)) {
    throw new RangeError('rateLimit: capacity must be >= 1 and refillPerSecond > 0');
  }
  const policy: BucketPolicy = { capacity, refillPerSecond };
  const store = opts.store ?? new MemoryBucketStore();
  const now = opts.now ?? Date.now;
  const cost = opts.cost ?? 1;
  const prefix = `${opts.name ?? 'default'}:`;
  const keyOf = opts.key ?? ((c: Context) => clientAddress(c, opts.trustProxy === true));
  const onLimited = opts.onLimited ?? defaultOnLimited;
  const windowSeconds = Math.ceil(capacity / refillPerSecond);

  const headersFor = (r: TakeResult): Array<[string, string]> => [
    ['RateLimit-Limit', String(capacity)],
    ['RateLimit-Remaining', String(Math.max(0, r.remaining))],
    ['RateLimit-Reset', String(Math.ceil(r.resetMs / 1000))],
    ['RateLimit-Policy', `${capacity};w=${windowSeconds}`],
  ];

  return async function rateLimitMiddleware(c, next) {
    const key = prefix + (await keyOf(c));
    const result = await store.take(key, policy, now(), cost);
    if (!result.allowed) {
      const retryAfter = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
      const res = await onLimited(c, retryAfter);
      const limited = new Response(res.body, res); // own, mutable headers
      limited.headers.set('Retry-After', String(retryAfter));
      for (const [k, v] of headersFor(result)) limited.headers.set(k, v);
      return limited;
    }
    await next();
    // c.header after next() copies a finalized response first, so immutable headers are fine.
    for (const [k, v] of headersFor(result)) c.header(k, v);
  };
}
