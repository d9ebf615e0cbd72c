/** Carts, idempotency keys (shared by REST and MCP) and each shop's discount codes. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('carts')
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('context', 'jsonb', (c) => c.notNull())
    .addColumn('buyer', 'jsonb')
    .addColumn('line_items', 'jsonb', (c) => c.notNull())
    .addColumn('discounts', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('carts_pk', ['shop_id', 'id'])
    .execute();
  await db.schema.createIndex('carts_expires_idx').on('carts').column('expires_at').execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('shop_id', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('idempotency_keys_unique', ['shop_id', 'operation', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();

  await db.schema
    .createTable('discounts')
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('doc', 'jsonb', (c) => c.notNull())
    .addPrimaryKeyConstraint('discounts_pk', ['shop_id', 'code'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('discounts').execute();
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema.dropTable('carts').execute();
}
