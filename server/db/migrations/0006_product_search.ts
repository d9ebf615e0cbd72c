import { sql, type Kysely } from 'kysely';

/**
 * Full-text search moves to a table of its own, built for the ranking query:
 * - `tsv`, the full vector (titles, descriptions, identifiers), is only matched through its GIN
 *   index, so it is pushed out of line (TOAST) and the heap rows stay narrow;
 * - `title_tsv`, a small vector of the titles alone, is what ranking reads for every match.
 * Ranking the full vector of every match on the wide `products` rows cost 7-9 ms per broad query
 * at 10k products; this layout costs under 1.5 ms (docs/benchmarks.md). Filters travel along.
 */
export const TITLE_VECTOR_SQL = `to_tsvector('english'::regconfig, coalesce(case jsonb_typeof(doc->'title') when 'string' then doc->>'title' else doc->'title'->>'en' end, '')) || to_tsvector('french'::regconfig, coalesce(doc->'title'->>'fr', ''))`;

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
    .addColumn('title_tsv', sql`tsvector`, (c) => c.notNull())
    .addPrimaryKeyConstraint('product_search_pk', ['shop_id', 'product_id'])
    .addForeignKeyConstraint('product_search_product_fk', ['shop_id', 'product_id'], 'products', ['shop_id', 'id'], (fk) => fk.onDelete('cascade'))
    .modifyEnd(sql`with (toast_tuple_target = 128)`)
    .execute();
  await sql`alter table product_search alter column tsv set storage external`.execute(db);
  // fastupdate off: new entries go straight into the index instead of a pending list that every
  // search would scan linearly until the next vacuum (after a bulk load that list is most of the index).
  await sql`create index product_search_tsv_idx on product_search using gin (tsv) with (fastupdate = off)`.execute(db);
  await sql`insert into product_search (shop_id, product_id, position, categories, price_min, price_max, tsv, title_tsv)
    select shop_id, id, position, categories, price_min, price_max, tsv, ${sql.raw(TITLE_VECTOR_SQL)} from products`.execute(db);
  await db.schema.dropIndex('products_tsv_idx').execute();
  await db.schema.alterTable('products').dropColumn('tsv').execute();
}
