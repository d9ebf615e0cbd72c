import type { Kysely } from 'kysely';

/**
 * A write counter per cart. An update without an idempotency key reads the cart, prepares the new
 * state, then writes it in one statement only if the counter is still the one read (optimistic
 * concurrency, server/core/carts/carts.ts `updateCartUnlocked`): no transaction held across round trips.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('carts').addColumn('version', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('carts').dropColumn('version').execute();
}
