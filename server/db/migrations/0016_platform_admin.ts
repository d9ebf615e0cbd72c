import type { Kysely } from 'kysely';

/**
 * Platform administrators (docs/oauth.md "Owners"): an account marked so may, besides its own
 * shop, create owners for any shop of the platform from /admin, as `ucp-storefront owners create`
 * does from the command line. Marked only by the command line (`owners create --platform-admin`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('platform_admin', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
}
