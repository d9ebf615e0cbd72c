import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('shops')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('domain', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('protocol_enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('settings', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('products')
    .addColumn('shop_id', 'text', (c) => c.notNull().references('shops.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('handle', 'text', (c) => c.notNull())
    .addColumn('position', 'bigserial', (c) => c.notNull())
    .addColumn('doc', 'jsonb', (c) => c.notNull())
    .addColumn('price_min', 'bigint', (c) => c.notNull())
    .addColumn('price_max', 'bigint', (c) => c.notNull())
    .addColumn('categories', 'jsonb', (c) => c.notNull())
    .addColumn('search_text', 'jsonb', (c) => c.notNull())
    // Per-language stemming: english and french configs over their own text, 'simple' over ids and SKUs.
    .addColumn('tsv', sql`tsvector`, (c) =>
      c.generatedAlwaysAs(
        sql`to_tsvector('english'::regconfig, coalesce(search_text->>'en', '')) || to_tsvector('french'::regconfig, coalesce(search_text->>'fr', '')) || to_tsvector('simple'::regconfig, coalesce(search_text->>'_', ''))`,
      ).stored(),
    )
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('products_pk', ['shop_id', 'id'])
    .execute();
  await db.schema.createIndex('products_tsv_idx').on('products').using('gin').column('tsv').execute();
  await db.schema.createIndex('products_shop_position_idx').on('products').columns(['shop_id', 'position']).execute();
  await db.schema.createIndex('products_shop_handle_idx').on('products').columns(['shop_id', 'handle']).execute();
  await db.schema.createIndex('products_categories_idx').on('products').using('gin').column('categories').execute();

  await db.schema
    .createTable('variants')
    .addColumn('shop_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('sku', 'text')
    .addPrimaryKeyConstraint('variants_pk', ['shop_id', 'id'])
    .addForeignKeyConstraint('variants_product_fk', ['shop_id', 'product_id'], 'products', ['shop_id', 'id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('variants_product_idx').on('variants').columns(['shop_id', 'product_id']).execute();
  await db.schema.createIndex('variants_sku_idx').on('variants').columns(['shop_id', 'sku']).execute();
}
