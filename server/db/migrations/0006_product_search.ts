import { sql, type Kysely } from 'kysely';

/**
 * Full-text search moves to a narrow table of its own. Ranking has to read the vector of every
 * matching product; on the wide `products` rows (document, search text, vector) a broad word on a
 * large catalog touched several times more pages than on these narrow rows (measured in
 * docs/benchmarks.md). The filters search combines with travel along.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('product_search')
    .addColumn('shop_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('position', 'bigint', (c) => c.notNull())
    .addColumn('categories', 'jsonb', (c) => c.notNull())
    .addColumn('price_min', 'bigint', (c) => c.notNull())
    .addColumn('price_max', 'bigint', (c) => c.notNull())
    .addColumn('tsv', sql`tsvector`, (c) => c.notNull())
    .addPrimaryKeyConstraint('product_search_pk', ['shop_id', 'product_id'])
    .addForeignKeyConstraint('product_search_product_fk', ['shop_id', 'product_id'], 'products', ['shop_id', 'id'], (fk) => fk.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('product_search_tsv_idx').on('product_search').using('gin').column('tsv').execute();
  await sql`insert into product_search (shop_id, product_id, position, categories, price_min, price_max, tsv)
    select shop_id, id, position, categories, price_min, price_max, tsv from products`.execute(db);
  await db.schema.dropIndex('products_tsv_idx').execute();
  await db.schema.alterTable('products').dropColumn('tsv').execute();
}
