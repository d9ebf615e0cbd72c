import type { Kysely } from 'kysely';

/**
 * Token buckets shared by every process on one PostgreSQL database (server/http/db-bucket-store.ts):
 * the GraphQL rate limit and the account service's failure budgets hold across processes instead
 * of each process granting its own. `updated_at` is a clock reading in milliseconds.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rate_buckets')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('tokens', 'float8', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('allowed', 'boolean', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_buckets_updated_idx').on('rate_buckets').column('updated_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_buckets').execute();
}
