import { sql, type Kysely } from 'kysely';

/**
 * Rate-limit buckets are unlogged (issue 39 point 15). Every UCP request takes a token with one
 * committed write (server/http/db-bucket-store.ts); on a logged table that commit waits for the
 * synchronous standby like a cart's, so losing the standby stalled every search as well as every
 * write. A transaction that touched only unlogged tables writes no WAL before its commit, and
 * PostgreSQL then neither flushes nor waits for replication. The cost is the buckets' state: a
 * crash or a failover starts every budget full again, which a limiter can afford (what an
 * in-memory limiter loses on a restart); carts, orders and accounts stay replicated.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table rate_buckets set unlogged`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table rate_buckets set logged`.execute(db);
}
