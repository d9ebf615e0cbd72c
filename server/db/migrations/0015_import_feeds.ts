import { sql, type Kysely } from 'kysely';

/**
 * Feeds imported by URL (docs/import-feeds.md): per shop and URL, the validators of the last
 * successful fetch (ETag, Last-Modified) for a conditional GET next time, the options a scheduled
 * run imports with, the schedule (`interval_seconds` null: not scheduled, only remembered), and the
 * last result. Workers claim a due feed by moving `next_due` on (`for update skip locked`), so one
 * of several workers on a database fetches it once per period.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('import_feeds')
    .addColumn('shop_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('etag', 'text')
    .addColumn('last_modified', 'text')
    .addColumn('format', 'text')
    .addColumn('options', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('interval_seconds', 'integer')
    .addColumn('next_due', 'timestamptz')
    .addColumn('last_run_at', 'timestamptz')
    .addColumn('last_status', 'text')
    .addColumn('last_counts', 'jsonb')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('import_feeds_pk', ['shop_id', 'url'])
    .execute();
  await db.schema.createIndex('import_feeds_due').on('import_feeds').column('next_due').where(sql.ref('interval_seconds'), 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('import_feeds').execute();
}
