import { sql, type Kysely } from 'kysely';

/**
 * `products.search_text` held the text the search vectors were computed from, read back by the
 * insert into `product_search`. The vectors are now computed from the text passed with the write
 * (server/core/search/search-vectors.ts), so the column only cost every product write a second JSON
 * document (~700 bytes) to parse and store. The vectors already in `product_search` stay.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('products').dropColumn('search_text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  // The text is not recoverable from the vectors; a rewrite of the product restores it.
  await db.schema.alterTable('products').addColumn('search_text', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`)).execute();
}
