/**
 * Order webhooks: per-shop signing keys (private halves encrypted at rest), webhook endpoints and
 * the durable delivery outbox/log. Deliveries are written in the same transaction as the order, so
 * an order never exists without its events, and the worker picks them up after any restart.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('shop_signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('public_jwk', 'jsonb', (c) => c.notNull())
    /** AES-256-GCM(PKCS#8 DER), base64 of iv(12) || tag(16) || ciphertext; key derived from KEY_ENCRYPTION_SECRET. */
    .addColumn('private_key_enc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    /** null: the shop's current signing key. Set on rotation: published until then, never used to sign again. */
    .addColumn('retire_at', 'timestamptz')
    .execute();
  // At most one current key per shop (concurrent ensureShopKey calls race on this index).
  await sql`create unique index shop_signing_keys_current on shop_signing_keys (shop_id) where retire_at is null`.execute(db);

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'jsonb', (c) => c.notNull())
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('position', 'bigserial', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('webhook_endpoints_shop').on('webhook_endpoints').columns(['shop_id', 'position']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    /** uuid; also the Webhook-Id header, stable across retries so receivers can de-duplicate. */
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    /** The exact JSON text that is sent (and digested) on every attempt. */
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    /** When pending: due time. A claim pushes it forward by the lease, so a crashed attempt comes back. */
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_kid', 'text')
    .addColumn('position', 'bigserial', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('delivered_at', 'timestamptz')
    .execute();
  await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(db);
  await db.schema.createIndex('webhook_deliveries_shop').on('webhook_deliveries').columns(['shop_id', 'position']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
  await db.schema.dropTable('shop_signing_keys').execute();
}
