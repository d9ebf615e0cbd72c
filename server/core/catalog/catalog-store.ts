/**
 * Writes to the catalog's products. Used by catalog files (catalog-load.ts: the seed command, demo
 * data, reset) and the merchant API, so a product written either way is searchable at once (its
 * search row is written in the same transaction, and the catalog version bumped for the in-memory
 * indexes: catalog-index.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import { sql } from 'kysely';
import type { DB } from '../../db/index.ts';
import { connectionsOf, isSingleWriter } from '../../db/index.ts';
import type { StoredProduct } from '../../formats/catalog-format.ts';
import type { Shop } from '../../formats/types.ts';
import { catalogWritten, recordCatalogChange } from '../search/catalog-index.ts';
import { forgetImageOrigins } from './image-origins.ts';
import { ScratchVectors, VECTORS, VECTOR_TEXT_COLUMNS, vectorText, type ProductVectors } from '../search/search-vectors.ts';

/** Rows per statement: each batch is one JSON parameter per table (`jsonb_to_recordset`). */
const BATCH = 500;

/**
 * Called after each batch (inside the load's transaction): products written so far, and in all;
 * then once with `finishing` when a bulk load has written every row and merges its search index
 * entries (seconds at 100,000 products), so a progress display does not look stuck at 100 %.
 */
export type LoadProgress = (done: number, total: number, stage?: 'finishing') => void;

/** The search indexes written one entry at a time in normal use (fastupdate off, migration 0006). */
const SEARCH_INDEXES = ['product_search_tsv_idx', 'product_search_title_idx'];
/**
 * GIN indexes whose pending list a bulk load merges at its end: the search indexes, and the
 * categories index (fastupdate on, its default), whose list category browses scan until something
 * merges it, and the embedded database has no autovacuum to do so.
 */
const MERGED_AFTER_BULK = [...SEARCH_INDEXES, 'products_categories_idx'];
/** From this many products in one transaction (one call, or one group of a many-file load), a load is bulk: its index entries are merged at the end. */
export const BULK_LOAD_PRODUCTS = 1000;

/** The shop a batch of products belongs to: its id, and its languages for the search text. */
export type ShopRef = Pick<Shop, 'id' | 'settings'>;

/** Inserts or replaces products (with their search and variant rows) in one transaction. */
export async function upsertProducts(db: DB, shop: ShopRef, products: StoredProduct[], onProgress?: LoadProgress): Promise<void> {
  const bulk = products.length >= BULK_LOAD_PRODUCTS;
  const scratch = bulk ? scratchVectors(db) : undefined;
  try {
    const batches = batchesOf(shop, products);
    const ahead = new VectorsAhead(scratch, batches);
    await loadTransaction(
      db,
      bulk,
      async (tx) => {
        await writeBatches(tx, batches, 0, ahead, onProgress);
        await recordCatalogChange(tx, shop.id, products.map((p) => p.id));
      },
      () => onProgress?.(products.length, products.length, 'finishing'),
    );
  } finally {
    await scratch?.close();
  }
  await catalogWritten(db, shop.id);
  forgetImageOrigins(db, shop.id);
}

/**
 * Where a bulk load's vectors are computed ahead, beside the writes (search-vectors.ts): on the
 * embedded database (the only single writer) in a scratch database; on PostgreSQL over a second
 * connection, so only with a pool that has one. Undefined: each insert computes its own.
 */
export function scratchVectors(db: DB): ScratchVectors | undefined {
  return isSingleWriter(db) ? new ScratchVectors() : connectionsOf(db) > 1 ? new ScratchVectors(db) : undefined;
}

/**
 * Runs `write` in one transaction, set up for a bulk load when `bulk` (from BULK_LOAD_PRODUCTS
 * products): per-row key checks off and the search indexes' entries merged once at the end, where
 * the role may. `finishing` is called when every row is written and the merge begins.
 */
export async function loadTransaction<T>(db: DB, bulk: boolean, write: (tx: DB) => Promise<T>, finishing?: () => void): Promise<T> {
  return db.transaction().execute(async (tx) => {
    const may = bulk ? await bulkPrivileges(tx) : undefined;
    // Every variant and search row is written from its product in the same batch, so the
    // per-row foreign-key checks (a query and a row lock each, 300,000 of them at 100,000
    // products: 15 % of the load) can prove nothing: skipped for this transaction where the
    // database lets us (a superuser: always on the embedded database). Keys are checked again
    // from the commit on; test/catalog-bulk-load.test.ts proves the rows satisfy them.
    if (may?.skipTriggers) await sql`set local session_replication_role = replica`.execute(tx);
    // A bulk load puts the search indexes' new entries in GIN's pending list and merges the list
    // once at the end (sorted, like an index build) instead of updating the posting trees row by
    // row: at 10,000 products that was 6.5 of 8.4 s of writing the search rows. Changing
    // `fastupdate` takes a lock that readers and writers do not wait for, so a running store keeps
    // searching (a query also scans the pending list until the merge); a search index is never
    // missing. Inside the transaction: a failed load leaves the settings as they were. Only the
    // indexes' owner may change or merge them: a role that did not run the migrations loads row by row.
    if (may?.alterIndexes) {
      await sql`set local gin_pending_list_limit = '1GB'`.execute(tx);
      for (const index of SEARCH_INDEXES) await sql`alter index ${sql.id(index)} set (fastupdate = on)`.execute(tx);
    }
    const out = await write(tx);
    if (bulk) finishing?.();
    if (may?.alterIndexes) {
      for (const index of MERGED_AFTER_BULK) await sql`select gin_clean_pending_list(${index}::regclass)`.execute(tx);
      for (const index of SEARCH_INDEXES) await sql`alter index ${sql.id(index)} set (fastupdate = off)`.execute(tx);
    }
    return out;
  });
}

/**
 * What this connection's role may do for a bulk load: turn off triggers (foreign-key checks) for
 * its own transaction (a superuser), and change the search indexes' settings (their owner: the
 * role that ran the migrations). A hosted PostgreSQL's application role may be neither.
 */
async function bulkPrivileges(tx: DB): Promise<{ skipTriggers: boolean; alterIndexes: boolean }> {
  const r = await sql<{ superuser: boolean | null; owner: boolean | null }>`
    select (select rolsuper from pg_roles where rolname = current_user) as superuser,
           (select bool_and(pg_has_role(current_user, c.relowner, 'USAGE')) from pg_class c
             where c.relkind = 'i' and c.relname = any(${MERGED_AFTER_BULK}::text[]) and pg_table_is_visible(c.oid)) as owner`.execute(tx);
  return { skipTriggers: r.rows[0]?.superuser === true, alterIndexes: r.rows[0]?.owner === true };
}

/** Products in statements of BATCH, each batch with its shop: the unit vectors are computed ahead for. */
export interface Batch {
  shop: ShopRef;
  products: StoredProduct[];
}

export function batchesOf(shop: ShopRef, products: StoredProduct[]): Batch[] {
  const out: Batch[] = [];
  for (let i = 0; i < products.length; i += BATCH) out.push({ shop, products: products.slice(i, i + BATCH) });
  return out;
}

/**
 * The vectors of a load's batches, each computed by the scratch database while the batch before it
 * is written. A load of many shop files is one list of batches, so the next file's first batch is
 * computed while this file's last one is written.
 */
export class VectorsAhead {
  private readonly started = new Map<number, Promise<Map<string, ProductVectors> | undefined>>();
  constructor(
    private readonly scratch: ScratchVectors | undefined,
    private readonly batches: Batch[],
  ) {}

  /** Batch k's vectors (undefined: its insert computes them); starts batch k + 1's. */
  async take(k: number): Promise<Map<string, ProductVectors> | undefined> {
    const mine = this.started.get(k);
    this.started.delete(k);
    const vectors = await mine;
    this.start(k + 1);
    return vectors;
  }

  /** Starts batch k's vectors, when the scratch database is ready and they are not under way. */
  start(k: number): void {
    const batch = this.batches[k];
    if (!batch || !this.scratch?.ready || this.started.has(k)) return;
    this.started.set(k, this.scratch.compute(batch.products.map((p) => vectorText(p, batch.shop.settings.languages))));
  }
}

/**
 * Writes `count` batches from `first` (one shop's), each table's rows in one statement over one
 * JSON parameter (PostgreSQL reads that in about half the time of a `text[]` per column or a VALUES
 * list). A batch without vectors computed ahead (scratch not open yet, or failed) computes its own.
 */
export async function writeBatches(tx: DB, batches: Batch[], first: number, ahead: VectorsAhead, onProgress?: LoadProgress, count = batches.length - first): Promise<void> {
  const total = batches.slice(first, first + count).reduce((n, b) => n + b.products.length, 0);
  let done = 0;
  for (let k = first; k < first + count; k++) {
    await writeBatch(tx, batches[k], await ahead.take(k));
    done += batches[k].products.length;
    onProgress?.(done, total);
    ahead.start(k + 1); // the scratch database opened during this batch
  }
}

/**
 * Batches written one at a time as a stream delivers them (an import: catalog-sync.ts), in one
 * transaction: each batch's vectors start computing when it is queued (while the batch before it
 * is written), and a written batch is let go, so a long stream holds only the batches in flight.
 */
export class BatchStream {
  private readonly batches: Batch[] = [];
  private readonly ahead: VectorsAhead;

  constructor(
    private readonly tx: DB,
    scratch: ScratchVectors | undefined,
  ) {
    this.ahead = new VectorsAhead(scratch, this.batches);
  }

  /** Queues a batch: its number, for `write`. */
  queue(batch: Batch): number {
    const k = this.batches.push(batch) - 1;
    this.ahead.start(k);
    return k;
  }

  async write(k: number): Promise<void> {
    await writeBatch(this.tx, this.batches[k], await this.ahead.take(k));
    delete this.batches[k];
  }
}

/** Offered in search and browsing: `active` (or no status). Hidden and unavailable products have no search row. */
export function isListed(p: Pick<StoredProduct, 'status'>): boolean {
  return p.status === undefined || p.status === 'active';
}

/**
 * A product as stored: an unavailable one's variants all answer `discontinued`, so every path that
 * sells (carts, orders, the catalog's availability: core/products/stock.ts) refuses it by the one
 * stock rule, without a second check. Its real statuses come back with the next import that lists it.
 */
export function storedForm(p: StoredProduct): StoredProduct {
  if (p.status !== 'unavailable' || p.variants.every((v) => v.status === 'discontinued')) return p;
  return { ...p, variants: p.variants.map((v) => ({ ...v, status: 'discontinued' as const })) };
}

/**
 * How a product compares with its stored document: `created` (none), `unchanged` (equal, so not
 * written again), or `updated`; `stored` is what to write. One rule for every writer that skips
 * unchanged products (an import's sync, the merchant API's batch).
 */
export function compareWithStored(before: StoredProduct | undefined, product: StoredProduct): { status: 'created' | 'updated' | 'unchanged'; stored: StoredProduct } {
  if (!before) return { status: 'created', stored: storedForm(product) };
  // As the database gives it back (no undefined members), so an unchanged product compares equal.
  const stored = JSON.parse(JSON.stringify(storedForm(product))) as StoredProduct;
  return { status: isDeepStrictEqual(before, stored) ? 'unchanged' : 'updated', stored };
}

async function writeBatch(tx: DB, { shop, products: given }: Batch, vectors: Map<string, ProductVectors> | undefined): Promise<void> {
  const batch = given.map(storedForm);
  const rows = batch.map((p) => {
    const prices = p.variants.map((v) => v.price);
    return { id: p.id, price_min: Math.min(...prices), price_max: Math.max(...prices), categories: p.categories };
  });
  const written = await sql<{ id: string; position: number; replaced: boolean }>`
    insert into products (shop_id, id, handle, doc, price_min, price_max, categories)
    select ${shop.id}, r.id, r.handle, r.doc, r.price_min, r.price_max, r.categories
    from jsonb_to_recordset(${JSON.stringify(batch.map((p, k) => ({ ...rows[k], handle: p.handle, doc: p })))}::jsonb)
      as r(id text, price_min bigint, price_max bigint, categories jsonb, handle text, doc jsonb)
    on conflict (shop_id, id) do update set handle = excluded.handle, doc = excluded.doc, price_min = excluded.price_min,
      price_max = excluded.price_max, categories = excluded.categories, updated_at = now()
    returning id, position, xmax <> 0 as replaced`.execute(tx);
  // A row version written by the conflict's update has xmax set: only replaced products have variants to drop.
  const replaced = written.rows.filter((r) => r.replaced).map((r) => r.id);
  if (replaced.length) await sql`delete from variants where shop_id = ${shop.id} and product_id = any(${replaced}::text[])`.execute(tx);
  // The search row carries the product row's position, categories and prices, written together.
  const position = new Map(written.rows.map((r) => [r.id, r.position]));
  const search = batch.flatMap((p, k) => (isListed(p) ? [{ ...rows[k], position: position.get(p.id), ...(vectors?.get(p.id) ?? vectorText(p, shop.settings.languages)) }] : []));
  const unlisted = batch.filter((p) => !isListed(p)).map((p) => p.id);
  if (unlisted.length) await sql`delete from product_search where shop_id = ${shop.id} and product_id = any(${unlisted}::text[])`.execute(tx);
  if (search.length) await sql`insert into product_search (shop_id, product_id, position, categories, price_min, price_max, tsv, title_tsv)
    select ${shop.id}, v.id, v.position, v.categories, v.price_min, v.price_max, ${vectors ? sql`v.tsv, v.title_tsv` : VECTORS}
    from jsonb_to_recordset(${JSON.stringify(search)}::jsonb)
      as v(id text, price_min bigint, price_max bigint, categories jsonb, position bigint, ${vectors ? sql`tsv tsvector, title_tsv tsvector` : VECTOR_TEXT_COLUMNS})
    on conflict (shop_id, product_id) do update set position = excluded.position, categories = excluded.categories,
      price_min = excluded.price_min, price_max = excluded.price_max, tsv = excluded.tsv, title_tsv = excluded.title_tsv`.execute(tx);
  const variants = batch.flatMap((p) => p.variants.map((v) => ({ id: v.id, product_id: p.id, sku: v.sku ?? null })));
  await sql`insert into variants (shop_id, id, product_id, sku)
    select ${shop.id}, r.id, r.product_id, r.sku from jsonb_to_recordset(${JSON.stringify(variants)}::jsonb) as r(id text, product_id text, sku text)`.execute(tx);
}

export async function deleteProduct(db: DB, shopId: string, productId: string): Promise<boolean> {
  const deleted = await db.transaction().execute(async (tx) => {
    const res = await tx.deleteFrom('products').where('shop_id', '=', shopId).where('id', '=', productId).executeTakeFirst();
    if (!Number(res.numDeletedRows)) return false;
    await recordCatalogChange(tx, shopId, [productId]);
    return true;
  });
  if (deleted) await catalogWritten(db, shopId);
  return deleted;
}
