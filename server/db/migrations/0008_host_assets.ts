import { sql, type Kysely } from 'kysely';

/**
 * Every host.js file a build of this server has served (the entry's immutable twin
 * `host.<hash>.js` and the lazily imported `host-*.js` chunks), kept after later builds replace
 * them: a storefront that pinned a versioned URL with SRI, or a browser holding a cached entry
 * that imports its own build's chunks, keeps working after a deploy (server/storefront/host-archive.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('host_assets')
    .addColumn('file', 'text', (c) => c.primaryKey())
    .addColumn('body', 'bytea', (c) => c.notNull())
    .addColumn('first_seen', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    // The last time a running server's current build contained this file; retention counts from it.
    .addColumn('last_current', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('host_assets').execute();
}
