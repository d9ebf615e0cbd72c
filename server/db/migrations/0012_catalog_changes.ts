import { sql, type Kysely } from 'kysely';

/**
 * What each process's in-memory search index (server/core/search/catalog-index.ts) reads to stay in step
 * with the catalog. Every catalog write bumps its shop's version (the row lock serializes writers
 * per shop, so versions commit in order) and logs the products it touched under that version;
 * `product_ids` null means "too many to list: rebuild". A process that is behind reads the log past
 * its version and re-reads only those products. The log keeps a shop's last 1,000 entries: an index
 * further behind than that rebuilds.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('catalog_versions')
    .addColumn('shop_id', 'text', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('catalog_changes')
    .addColumn('shop_id', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('product_ids', sql`text[]`)
    .addPrimaryKeyConstraint('catalog_changes_pk', ['shop_id', 'version'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('catalog_changes').execute();
  await db.schema.dropTable('catalog_versions').execute();
}
