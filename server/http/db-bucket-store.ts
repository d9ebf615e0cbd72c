/**
 * Rate-limit buckets in the database, for several processes on one PostgreSQL server: one
 * statement per take (insert, or refill-and-take on the existing row under its row lock), so
 * concurrent requests from different processes draw from one budget. The arithmetic is
 * `takeToken`'s (rate-limit.ts), written in SQL. On the embedded database one process is the only
 * one, so an in-memory store does the same job without a round trip: {@link bucketStoreFor} picks.
 */
import { sql } from 'kysely';
import { isSingleWriter, type DB } from '../db/index.ts';
import { MemoryBucketStore, type BucketPolicy, type BucketStore, type TakeResult } from './rate-limit.ts';
import { log } from '../lib/log.ts';

export class DatabaseBucketStore implements BucketStore {
  private takes = 0;

  constructor(private readonly db: DB) {}

  async take(key: string, policy: BucketPolicy, now: number, cost: number): Promise<TakeResult> {
    // Buckets idle for a day go now and then (every 1,000 takes of this process), in the background.
    if (++this.takes % 1000 === 0) void purgeRateBuckets(this.db, now).catch((e: Error) => log.error('rate-limit', 'purge failed', { err: e }));
    const { capacity, refillPerSecond } = policy;
    const perMs = refillPerSecond / 1000;
    // Tokens after refilling from the stored state (a clock stepping back never drains a bucket).
    const refilled = sql<number>`least(${capacity}::float8, b.tokens + greatest(0, ${now}::bigint - b.updated_at) * ${perMs}::float8)`;
    const { rows } = await sql<{ tokens: number; allowed: boolean }>`
      insert into rate_buckets as b (key, tokens, updated_at, allowed)
      values (${key}, ${capacity >= cost ? capacity - cost : capacity}::float8, ${now}::bigint, ${capacity >= cost})
      on conflict (key) do update set
        tokens = case when ${refilled} >= ${cost}::float8 then ${refilled} - ${cost}::float8 else ${refilled} end,
        allowed = ${refilled} >= ${cost}::float8,
        updated_at = greatest(b.updated_at, ${now}::bigint)
      returning tokens, allowed`.execute(this.db);
    const { tokens, allowed } = rows[0];
    return {
      allowed,
      remaining: Math.floor(tokens),
      retryAfterMs: allowed ? 0 : perMs > 0 ? (cost - tokens) / perMs : Number.POSITIVE_INFINITY,
      resetMs: perMs > 0 ? (capacity - tokens) / perMs : 0,
    };
  }
}

/** Drops buckets untouched for a day (every policy here has refilled long before). */
export async function purgeRateBuckets(db: DB, now = Date.now()): Promise<number> {
  const r = await db.deleteFrom('rate_buckets').where('updated_at', '<', now - 86_400_000).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}

const stores = new WeakMap<DB, BucketStore>();

/** The store for limits that should hold for the whole deployment: memory on the embedded database, the table on PostgreSQL. */
export function bucketStoreFor(db: DB): BucketStore {
  let s = stores.get(db);
  if (!s) stores.set(db, (s = isSingleWriter(db) ? new MemoryBucketStore() : new DatabaseBucketStore(db)));
  return s;
}

/**
 * Failure budgets: token buckets that only failures drain, so honest traffic never pays. `wait`
 * is checked before the work (a throttled caller costs no password hashing) and answers the
 * seconds until the first exhausted budget has room again, or 0; `fail` charges one failure to
 * every budget. Buckets are shared by every process on one PostgreSQL database (bucketStoreFor).
 * Used by the sign-in forms and the token endpoint (oauth/budgets.ts) and the metrics token.
 */
export const failures = {
  async wait(db: DB, budgets: Array<[key: string, policy: BucketPolicy]>): Promise<number> {
    for (const [key, policy] of budgets) {
      const r = await bucketStoreFor(db).take(key, policy, Date.now(), 0);
      if (r.remaining < 1) return Math.ceil(1 / policy.refillPerSecond); // at most one refill period
    }
    return 0;
  },
  async fail(db: DB, budgets: Array<[key: string, policy: BucketPolicy]>): Promise<void> {
    for (const [key, policy] of budgets) await bucketStoreFor(db).take(key, policy, Date.now(), 1);
  },
};
