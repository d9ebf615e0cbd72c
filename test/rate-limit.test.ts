import { describe, it, expect } from 'vitest';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { MemoryBucketStore, clientAddress, rateLimit, takeToken } from '../server/http/rate-limit.ts';
import type { BucketState, BucketStore, RateLimitOptions } from '../server/http/rate-limit.ts';

function clock(start = 1_000_000) {
  const c = { t: start, now: () => c.t, advance: (ms: number) => void (c.t += ms) };
  return c;
}

function appWith(opts: RateLimitOptions): Hono {
  const app = new Hono();
  app.use('*', rateLimit(opts));
  app.get('/', (c) => c.text('ok'));
  return app;
}

const asClient = (app: Hono, key: string) => app.request('/', { headers: { 'x-client': key } });
const byHeader = (c: { req: { header: (n: string) => string | undefined } }) => c.req.header('x-client') ?? 'anon';

describe('takeToken', () => {
  const policy = { capacity: 3, refillPerSecond: 2 };

  it('starts full, drains, and refills continuously up to capacity', () => {
    let state: BucketState | undefined;
    const results = [];
    for (let i = 0; i < 4; i++) {
      const r = takeToken(state, policy, 0);
      state = r.state;
      results.push(r.result);
    }
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    expect(results[3].retryAfterMs).toBe(500); // one token at 2/s
    expect(results[2].resetMs).toBe(1500); // three tokens to refill

    expect(takeToken(state, policy, 499).result.allowed).toBe(false);
    expect(takeToken(state, policy, 500).result.allowed).toBe(true);
    const later = takeToken(state, policy, 60_000); // long idle: capped at capacity
    expect(later.result.remaining).toBe(2);
  });

  it('never drains when the clock steps back', () => {
    const { state } = takeToken(undefined, policy, 10_000);
    expect(takeToken(state, policy, 0).state.tokens).toBe(1);
  });
});

describe('rateLimit middleware', () => {
  it('answers 429 with Retry-After once the bucket is empty, and recovers as the clock advances', async () => {
    const c = clock();
    const app = appWith({ capacity: 2, refillPerSecond: 0.5, now: c.now, key: byHeader });
    const a = await asClient(app, 'a');
    expect(a.status).toBe(200);
    expect(a.headers.get('ratelimit-limit')).toBe('2');
    expect(a.headers.get('ratelimit-remaining')).toBe('1');
    expect(a.headers.get('ratelimit-reset')).toBe('2');
    expect(a.headers.get('ratelimit-policy')).toBe('2;w=4');
    expect((await asClient(app, 'a')).status).toBe(200);

    const limited = await asClient(app, 'a');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(await limited.json()).toEqual({ error: 'rate_limited', message: 'Too many requests' });

    c.advance(1999);
    expect((await asClient(app, 'a')).status).toBe(429);
    c.advance(1);
    expect((await asClient(app, 'a')).status).toBe(200);
    expect((await asClient(app, 'a')).status).toBe(429);
  });

  it('rounds Retry-After up to whole seconds, at least 1', async () => {
    const c = clock();
    const app = appWith({ capacity: 1, refillPerSecond: 4, now: c.now, key: byHeader });
    await asClient(app, 'a');
    const res = await asClient(app, 'a');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1'); // 250 ms → 1 s
  });

  it('keeps an independent bucket per client key', async () => {
    const c = clock();
    const app = appWith({ capacity: 1, refillPerSecond: 1, now: c.now, key: byHeader });
    expect((await asClient(app, 'a')).status).toBe(200);
    expect((await asClient(app, 'a')).status).toBe(429);
    expect((await asClient(app, 'b')).status).toBe(200);
    expect((await asClient(app, 'b')).status).toBe(429);
    expect((await asClient(app, 'c')).status).toBe(200);
  });

  it('uses a custom onLimited body and still adds the headers', async () => {
    const app = appWith({
      capacity: 1,
      refillPerSecond: 1,
      now: () => 0,
      onLimited: (c, retryAfter) => c.json({ slow_down: retryAfter }, 429),
    });
    await app.request('/');
    const res = await app.request('/');
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ slow_down: 1 });
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('ratelimit-limit')).toBe('1');
  });

  it('ignores X-Forwarded-For unless trustProxy is set; then uses the last hop', async () => {
    const untrusting = appWith({ capacity: 1, refillPerSecond: 1, now: () => 0 });
    const xff = (app: Hono, v: string) => app.request('/', { headers: { 'x-forwarded-for': v } });
    expect((await xff(untrusting, '198.51.100.1')).status).toBe(200);
    expect((await xff(untrusting, '198.51.100.2')).status).toBe(429); // same socket key ('unknown' here)

    const trusting = appWith({ capacity: 1, refillPerSecond: 1, now: () => 0, trustProxy: true });
    expect((await xff(trusting, '10.0.0.9, 198.51.100.1')).status).toBe(200);
    expect((await xff(trusting, '10.0.0.8, 198.51.100.1')).status).toBe(429); // spoofed first hop does not help
    expect((await xff(trusting, '198.51.100.2')).status).toBe(200);
  });

  it('keys on the socket address when served by @hono/node-server', async () => {
    const app = new Hono();
    app.get('/', (c) => c.text(clientAddress(c)));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    try {
      const { port } = server.address() as { port: number };
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('127.0.0.1');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('accepts any (async) BucketStore and namespaces keys by limiter name', async () => {
    const seen: string[] = [];
    const memory = new MemoryBucketStore();
    const store: BucketStore = {
      async take(key, policy, now, cost) {
        seen.push(key);
        return memory.take(key, policy, now, cost);
      },
    };
    const app = new Hono();
    app.use('/a', rateLimit({ capacity: 1, refillPerSecond: 1, store, name: 'a', now: () => 0, key: () => 'k' }));
    app.use('/b', rateLimit({ capacity: 1, refillPerSecond: 1, store, name: 'b', now: () => 0, key: () => 'k' }));
    app.get('/a', (c) => c.text('a'));
    app.get('/b', (c) => c.text('b'));
    expect((await app.request('/a')).status).toBe(200);
    expect((await app.request('/b')).status).toBe(200); // same client, separate budget
    expect((await app.request('/a')).status).toBe(429);
    expect(seen).toEqual(['a:k', 'b:k', 'a:k']);
  });

  it('rejects nonsensical configuration', () => {
    expect(() => rateLimit({ capacity: 0, refillPerSecond: 1 })).toThrow(RangeError);
    expect(() => rateLimit({ capacity: 1, refillPerSecond: 0 })).toThrow(RangeError);
  });
});

describe('MemoryBucketStore', () => {
  const policy = { capacity: 5, refillPerSecond: 1 };

  it('is bounded: evicts the least recently used bucket beyond maxKeys', () => {
    const store = new MemoryBucketStore({ maxKeys: 3 });
    store.take('a', policy, 0, 1);
    store.take('b', policy, 0, 1);
    store.take('c', policy, 0, 1);
    store.take('a', policy, 0, 1); // a becomes most recent; b is now the oldest
    store.take('d', policy, 0, 1);
    expect(store.size).toBe(3);
    expect(store.has('b')).toBe(false);
    expect(['a', 'c', 'd'].every((k) => store.has(k))).toBe(true);

    for (let i = 0; i < 1000; i++) store.take(`k${i}`, policy, 0, 1);
    expect(store.size).toBe(3);
  });

  it('defaults to a 10,000-key cap', () => {
    const store = new MemoryBucketStore();
    expect(store.maxKeys).toBe(10_000);
    for (let i = 0; i < 10_050; i++) store.take(`k${i}`, policy, 0, 1);
    expect(store.size).toBe(10_000);
  });

  it('drops buckets that have refilled completely (idle) as it goes', () => {
    const store = new MemoryBucketStore();
    store.take('idle1', policy, 0, 1);
    store.take('idle2', policy, 0, 1);
    expect(store.size).toBe(2);
    // one token taken at t=0 with 1/s refill: full again at t=1000
    store.take('busy', policy, 999, 1);
    expect(store.size).toBe(3);
    store.take('busy', policy, 1000, 1);
    expect(store.has('idle1')).toBe(false);
    expect(store.has('idle2')).toBe(false);
    expect(store.size).toBe(1);
  });

  it('a bucket evicted under pressure comes back full, never emptier', () => {
    const store = new MemoryBucketStore({ maxKeys: 1 });
    for (let i = 0; i < 5; i++) store.take('a', policy, 0, 1);
    expect(store.take('a', policy, 0, 1).allowed).toBe(false);
    store.take('b', policy, 0, 1); // evicts a
    expect(store.take('a', policy, 0, 1)).toMatchObject({ allowed: true, remaining: 4 });
  });
});
