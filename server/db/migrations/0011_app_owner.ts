import type { Kysely } from 'kysely';

/**
 * OAuth apps registered on the admin page (/admin/{merchant_id}) belong to the user who registered
 * them: only that user sees and deletes them there. Apps registered with `npm run apps` and the demo
 * apps have no owner (null). An app goes with its owner's account.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('oauth_clients')
    .addColumn('owner_user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('oauth_clients_owner_idx').on('oauth_clients').column('owner_user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('oauth_clients_owner_idx').execute();
  await db.schema.alterTable('oauth_clients').dropColumn('owner_user_id').execute();
}
