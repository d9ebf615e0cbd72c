/**
 * Rate-limit buckets in the database (server/http/db-bucket-store.ts): the same arithmetic as the
 * in-memory store, step for step, and one budget for every process that shares the database.
 * Runs on the embedded database and again on PostgreSQL (scripts/test-all.sh).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { DatabaseBucketStore, bucketStoreFor, purgeRateBuckets } from '../server/http/db-bucket-store.ts';
import { MemoryBucketStore } from '../server/http/rate-limit.ts';
import { isSingleWriter } from '../server/db/index.ts';
import { startTestServer, type TestServer } from './support/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

describe('DatabaseBucketStore', () => {
  it('takes, refuses with the wait until a token is back, refills with time', async () => {
    const store = new DatabaseBucketStore(s.db);
    const key = randomUUID();
    const policy = { capacity: 3, refillPerSecond: 1 };
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) expect(await store.take(key, policy, t0, 1)).toMatchObject({ allowed: true, remaining: 2 - i });
    const refused = await store.take(key, policy, t0, 1);
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(refused.retryAfterMs).toBeCloseTo(1000);
    expect(refused.resetMs).toBeCloseTo(3000);
    expect(await store.take(key, policy, t0 + 1000, 1)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await store.take(key, policy, t0 + 1000, 0)).toMatchObject({ allowed: true, remaining: 0 }); // a look costs nothing
    expect(await store.take(key, policy, t0 + 500, 1)).toMatchObject({ allowed: false }); // the clock stepping back refills nothing
    expect(await store.take(key, policy, t0 + 60_000, 0)).toMatchObject({ remaining: 3 }); // capped at capacity
  });

  it('agrees with the in-memory store on any sequence of takes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ capacity: fc.integer({ min: 1, max: 20 }), refillPerSecond: fc.constantFrom(0.5, 1, 10) }),
        fc.array(fc.record({ dt: fc.integer({ min: 0, max: 3000 }), cost: fc.constantFrom(0, 1, 1, 1, 2) }), { minLength: 1, maxLength: 25 }),
        async (policy, steps) => {
          const db = new DatabaseBucketStore(s.db);
          const mem = new MemoryBucketStore();
          const key = randomUUID();
          let now = 5_000_000;
          for (const { dt, cost } of steps) {
            now += dt;
            const a = await db.take(key, policy, now, cost);
            const b = mem.take(key, policy, now, cost);
            expect(a.allowed).toBe(b.allowed);
            expect(a.remaining).toBe(b.remaining);
            expect(a.retryAfterMs).toBeCloseTo(b.retryAfterMs, 3);
            expect(a.resetMs).toBeCloseTo(b.resetMs, 3);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('two stores on one database (two processes) draw from one budget, also when racing', async () => {
    const a = new DatabaseBucketStore(s.db);
    const b = new DatabaseBucketStore(s.db);
    const key = randomUUID();
    const policy = { capacity: 10, refillPerSecond: 0.001 };
    const now = Date.now();
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? a : b).take(key, policy, now, 1)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
  });

  it('idle buckets are purged after a day', async () => {
    const store = new DatabaseBucketStore(s.db);
    const key = randomUUID();
    const now = Date.now();
    await store.take(key, { capacity: 1, refillPerSecond: 1 }, now - 2 * 86_400_000, 1);
    expect(await purgeRateBuckets(s.db, now)).toBeGreaterThanOrEqual(1);
    expect(await s.db.selectFrom('rate_buckets').select('key').where('key', '=', key).executeTakeFirst()).toBeUndefined();
  });

  it('bucketStoreFor: memory on the embedded database (one process), the table on PostgreSQL', () => {
    const store = bucketStoreFor(s.db);
    expect(store).toBeInstanceOf(isSingleWriter(s.db) ? MemoryBucketStore : DatabaseBucketStore);
    expect(bucketStoreFor(s.db)).toBe(store);
  });
});
