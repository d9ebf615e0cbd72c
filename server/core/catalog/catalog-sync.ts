/**
 * Keeping a shop's catalog in step with an outside source (docs/catalog-import.md "Re-import is
 * sync"): the products a source lists now are created or updated in place, products it brought
 * before and no longer lists become unavailable (not deleted: carts that hold them keep reading),
 * and what did not change is not written at all. Knows nothing of file formats: server/import/
 * turns a platform's export into these records.
 *
 * The records stream in and are written as they come, batch by batch, inside one transaction
 * (all or nothing: a file that breaks off half-way leaves the shop as it was), so memory stays flat
 * however long the file: what is kept to the end is the ids the source listed, for the retirement
 * step. Each batch goes through the catalog's one write path (catalog-store.ts), the next batch
 * parsed while this one is written.
 */
import { isDeepStrictEqual } from 'node:util';
import { sql, type RawBuilder } from 'kysely';
import type { DB } from '../../db/index.ts';
import type { ShopSettings, StoredProduct } from '../../formats/catalog-format.ts';
import { BULK_LOAD_PRODUCTS, BatchStream, compareWithStored, loadTransaction, scratchVectors, storedForm } from './catalog-store.ts';
import { CatalogFileError, MAX_ISSUES } from './catalog-check.ts';
import { MAX_LOGGED_IDS, catalogWritten, recordCatalogChange } from '../search/catalog-index.ts';
import { forgetImageOrigins } from './image-origins.ts';
import { forgetCachedShops } from '../shops/shops.ts';
import type { FieldIssue } from '../shared/errors.ts';
import { detached } from '../shared/strings.ts';

export interface SyncShop {
  id: string;
  domain: string;
  name: string;
  protocol_enabled: boolean;
  settings: ShopSettings;
}

export interface SyncRequest {
  /**
   * The shop row to write: asked when the first records are in (before anything is written) and
   * again after the last (what a source says about its shop may come at its end); may throw to
   * refuse the run, which then writes nothing.
   */
  shop(): SyncShop;
  /** Catalog records the caller checked against `StoredProduct`, each with its `source`, no id twice. */
  products: AsyncIterable<StoredProduct>;
  /** The sources this run read whole (asked after the last record): their products it did not list become unavailable (unless `partial`). */
  sources(): string[];
  /** Only what is listed: nothing becomes unavailable. */
  partial?: boolean;
  /** Let the run make unavailable more of the source's products than it lists (SHRINK_GUARD). */
  allowShrink?: boolean;
  /** Count, write nothing. */
  dryRun?: boolean;
}

export interface SyncCounts {
  created: number;
  updated: number;
  unchanged: number;
  unavailable: number;
  /** Variants of the products the source lists. */
  variants: number;
  /** The shop row did not exist before. */
  shopCreated: boolean;
}

/** Products compared and written together: one read of the stored documents, statements of catalog-store.ts's batch size. */
const SYNC_BATCH = 500;

/**
 * A run that would make unavailable more of its source's products than it lists (and at least this
 * many) is refused unless asked for (`allowShrink`): a file cut short at a line break, or a feed URL
 * that answered a near-empty catalog, reads like a shop that stopped selling most of what it had,
 * and a scheduled feed would retire it unattended. Nothing is written; the message says how to
 * proceed (docs/catalog-import.md "Re-import is sync").
 */
export const SHRINK_GUARD = 10;

/** Syncs, then answers the counts; a write refused for what the shop already holds (a variant id of another product, a domain another shop serves) throws CatalogFileError. */
export async function syncCatalog(db: DB, req: SyncRequest): Promise<SyncCounts> {
  const records = req.products[Symbol.asyncIterator]();
  try {
    return await sync(db, req, records);
  } finally {
    // A refused or failed run lets go of its source (an open file, a feed's response) at once.
    await records.return?.(undefined);
  }
}

async function sync(db: DB, req: SyncRequest, records: AsyncIterator<StoredProduct>): Promise<SyncCounts> {
  // The first records decide how the run writes: a bulk load (index entries merged at the end,
  // vectors computed ahead) from BULK_LOAD_PRODUCTS, else row by row.
  const head: StoredProduct[] = [];
  let ended = false;
  while (head.length < BULK_LOAD_PRODUCTS && !(ended = (await nextOf(records, head)) === undefined));
  const shop = req.shop();
  const existed = await db.selectFrom('shops').select('id').where('id', '=', shop.id).executeTakeFirst();
  const run = new SyncRun(shop, !existed);
  const batches = batchesOf(head, ended ? undefined : records);
  if (req.dryRun) {
    await run.compareAll(db, batches);
    await run.retire(db, req, undefined);
    req.shop(); // a refusal only the end of the file shows (a currency) is one in a dry run too
    return run.counts;
  }
  const bulk = !ended;
  const scratch = bulk ? scratchVectors(db) : undefined;
  try {
    await loadTransaction(db, bulk, async (tx) => {
      // Every read of the run is by key, on tables that grow inside this transaction: statistics
      // from before it (an empty table, on a new data directory) would have the planner scan whole
      // tables per batch, quadratic in the file's length.
      await sql`set local enable_seqscan = off`.execute(tx);
      await run.writeShop(tx, shop);
      const stream = new BatchStream(tx, scratch);
      await run.compareAll(tx, batches, stream);
      run.checkMoves();
      await run.retire(tx, req, stream);
      const final = req.shop();
      if (!isDeepStrictEqual(final, shop)) await run.writeShop(tx, final);
      if (run.written || run.shopChanged) await recordCatalogChange(tx, shop.id, run.written > MAX_LOGGED_IDS ? null : run.writtenIds);
    });
  } finally {
    await scratch?.close();
  }
  if (run.written || run.shopChanged) {
    forgetCachedShops(db);
    await catalogWritten(db, shop.id);
    forgetImageOrigins(db, shop.id);
    // Fresh statistics, or the planner keeps choosing plans for the tables as they were (catalog-load.ts).
    if (bulk) await Promise.all(['products', 'product_search', 'variants'].map((table) => sql`analyze ${sql.table(table)}`.execute(db)));
  }
  return run.counts;
}

/** One run's state: its counts, the ids it listed (for retirement), what it wrote, variant ids it moved. */
class SyncRun {
  readonly counts: SyncCounts;
  readonly listed = new Set<string>();
  readonly writtenIds: string[] = [];
  written = 0;
  shopChanged = false;
  /** Variant id -> the product that held it before this run gave it to another: that product must be listed too (checkMoves). */
  private readonly moved = new Map<string, { from: string; to: string }>();

  constructor(
    private readonly shop: SyncShop,
    created: boolean,
  ) {
    this.counts = { created: 0, updated: 0, unchanged: 0, unavailable: 0, variants: 0, shopCreated: created };
  }

  /** Every batch compared with what is stored and, with a stream, its changed products written; the next batch is read while this one is written. */
  async compareAll(db: DB, batches: AsyncIterable<StoredProduct[]>, stream?: BatchStream): Promise<void> {
    let pending: Promise<void> = Promise.resolve();
    try {
      for await (const batch of batches) {
        const changed = await this.compare(db, batch);
        const before = pending;
        const k = stream && changed.length ? stream.queue({ shop: this.shop, products: changed }) : undefined;
        pending = before.then(() => (k === undefined ? undefined : this.write(db, stream!, k, changed)));
        // Its failure is awaited below; meanwhile no unhandled rejection while the next batch is read.
        pending.catch(() => {});
        await before;
      }
    } catch (e) {
      // A failed write aborts the transaction and so fails what follows it: its error is the one to tell.
      throw (await pending.then(() => undefined, (w: unknown) => w)) ?? e;
    }
    await pending;
  }

  /** The batch's products that differ from what is stored (created or updated), counted. */
  private async compare(db: DB, batch: StoredProduct[]): Promise<StoredProduct[]> {
    // A shop this run creates has nothing stored to compare with.
    const stored = this.counts.shopCreated ? new Map<string, StoredProduct>() : await storedDocs(db, this.shop.id, batch.map((p) => p.id));
    const changed: StoredProduct[] = [];
    for (const p of batch) {
      this.listed.add(detached(p.id));
      this.counts.variants += p.variants.length;
      const { status, stored: next } = compareWithStored(stored.get(p.id), p);
      this.counts[status]++;
      if (status !== 'unchanged') changed.push(next);
    }
    return changed;
  }

  /** Writes a queued batch (in a shop that existed, its moved variants freed first). */
  private async write(tx: DB, stream: BatchStream, k: number, products: StoredProduct[]): Promise<void> {
    const ids = products.map((p) => p.id);
    if (!this.counts.shopCreated) await this.freeMovedVariants(tx, products, ids);
    await stream.write(k);
    this.written += ids.length;
    // Only as many as the change log names (beyond them it logs "everything": catalog-index.ts).
    if (this.writtenIds.length <= MAX_LOGGED_IDS) this.writtenIds.push(...ids);
  }

  /**
   * A variant id the batch gives one product may still be on another product of the shop that a
   * later batch rewrites (a variant moved between products): its row is freed here and the move
   * checked at the end (checkMoves).
   */
  private async freeMovedVariants(tx: DB, products: StoredProduct[], ids: string[]): Promise<void> {
    const taken = await sql<{ id: string; product_id: string }>`select id, product_id from variants
      where shop_id = ${this.shop.id} and id = any(${products.flatMap((p) => p.variants.map((v) => v.id))}::text[]) and product_id <> all(${ids}::text[])`.execute(tx);
    if (taken.rows.length) {
      await sql`delete from variants where shop_id = ${this.shop.id} and id = any(${taken.rows.map((r) => r.id)}::text[])`.execute(tx);
      const owner = new Map(products.flatMap((p) => p.variants.map((v) => [v.id, p.id] as const)));
      for (const r of taken.rows) this.moved.set(r.id, { from: r.product_id, to: owner.get(r.id)! });
    }
  }

  /** Every variant moved from a product the run does not list again stays that product's: refused, in the file's terms. */
  checkMoves(): void {
    const issues: FieldIssue[] = [];
    for (const [id, { from, to }] of this.moved) {
      if (this.listed.has(from) || issues.length >= MAX_ISSUES) continue;
      issues.push({ path: '$', code: 'variant_id_taken', content: `variant id ${id} of product ${to} already belongs to product ${from} of shop ${this.shop.id}, which this file does not list` });
    }
    if (issues.length) throw new CatalogFileError(issues.length === 1 ? 'a variant id belongs to another product' : `${issues.length} variant ids belong to other products`, issues);
  }

  /** Products the run's sources brought before and did not list now become unavailable (counted; written with a stream). */
  async retire(db: DB, req: SyncRequest, stream: BatchStream | undefined): Promise<void> {
    if (req.partial || this.counts.shopCreated) return;
    const listed = [...this.listed];
    // The products that leave: this shop's, from these sources, still available, not listed now.
    const leaving = sql<boolean>`shop_id = ${this.shop.id} and doc->>'source' = any(${req.sources()}::text[])
      and doc->>'status' is distinct from 'unavailable' and id <> all(${listed}::text[])`;
    if (!req.allowShrink) await this.checkShrink(db, leaving, listed.length);
    for (let after = ''; ; ) {
      const rows = await sql<{ id: string; doc: string }>`select id, doc::text as doc from products where ${leaving}
        and id > ${after} order by id limit ${SYNC_BATCH}`.execute(db);
      if (!rows.rows.length) return;
      after = rows.rows.at(-1)!.id;
      this.counts.unavailable += rows.rows.length;
      if (!stream) continue;
      const retired = rows.rows.map((r) => storedForm({ ...(JSON.parse(r.doc) as StoredProduct), status: 'unavailable' }));
      await this.write(db, stream, stream.queue({ shop: this.shop, products: retired }), retired);
    }
  }

  /** Refuses a run that would retire more of its sources' products than it lists (SHRINK_GUARD). */
  private async checkShrink(db: DB, leaving: RawBuilder<boolean>, listed: number): Promise<void> {
    const r = await sql<{ n: number }>`select count(*)::int as n from products where ${leaving}`.execute(db);
    const n = r.rows[0]?.n ?? 0;
    if (n < SHRINK_GUARD || n <= listed) return;
    const words = (x: number) => x.toLocaleString('en-US');
    throw new CatalogFileError(
      `this would make ${words(n)} of shop ${this.shop.id}'s products unavailable and list only ${words(listed)}: a file cut short or a feed that answered a partial catalog looks like this. Nothing was written. Check the file; if the shop no longer sells them, import it again with --allow-shrink (or --partial to make nothing unavailable)`,
      [{ path: '$', code: 'catalog_shrinks', content: `${words(n)} products would become unavailable, ${words(listed)} listed` }],
    );
  }

  /** The shop row, created or updated; a domain another shop serves is refused. */
  async writeShop(tx: DB, s: SyncShop): Promise<void> {
    const domain = s.domain.toLowerCase();
    const owner = await tx.selectFrom('shops').select('id').where('domain', '=', domain).where('id', '<>', s.id).executeTakeFirst();
    if (owner) throw new CatalogFileError(`domain ${s.domain} is already shop ${owner.id}'s`, [{ path: '$.shop.domain', code: 'domain_taken', content: `served by shop ${owner.id}` }]);
    if (!this.counts.shopCreated && !(await shopDiffers(tx, s))) return;
    const row = { domain, name: s.name, protocol_enabled: s.protocol_enabled, settings: JSON.stringify(s.settings) };
    await tx.insertInto('shops').values({ id: s.id, ...row }).onConflict((oc) => oc.column('id').doUpdateSet(row)).execute();
    this.shopChanged = true;
  }
}

/** The head records, then the rest of the stream, in batches of SYNC_BATCH. */
async function* batchesOf(head: StoredProduct[], rest: AsyncIterator<StoredProduct> | undefined): AsyncGenerator<StoredProduct[]> {
  for (let i = 0; i < head.length; i += SYNC_BATCH) yield head.slice(i, i + SYNC_BATCH);
  if (!rest) return;
  head.length = 0;
  for (let batch: StoredProduct[] = []; ; ) {
    const next = await nextOf(rest, batch);
    if (next === undefined || batch.length === SYNC_BATCH) {
      if (batch.length) yield batch;
      if (next === undefined) return;
      batch = [];
    }
  }
}

/** Pulls one record into `into`; undefined at the stream's end. */
async function nextOf(it: AsyncIterator<StoredProduct>, into: StoredProduct[]): Promise<StoredProduct | undefined> {
  const n = await it.next();
  if (n.done) return undefined;
  into.push(n.value);
  return n.value;
}

/** The stored documents of these ids (as the database gives them back). */
async function storedDocs(db: DB, shopId: string, ids: string[]): Promise<Map<string, StoredProduct>> {
  const rows = await sql<{ doc: string }>`select doc::text as doc from products where shop_id = ${shopId} and id = any(${ids}::text[])`.execute(db);
  const stored = new Map<string, StoredProduct>();
  for (const r of rows.rows) {
    const doc = JSON.parse(r.doc) as StoredProduct;
    stored.set(doc.id, doc);
  }
  return stored;
}

async function shopDiffers(db: DB, shop: SyncShop): Promise<boolean> {
  const row = await sql<{ domain: string; name: string; protocol_enabled: boolean; settings: string }>`select domain, name, protocol_enabled, settings::text as settings from shops where id = ${shop.id}`.execute(db);
  const r = row.rows[0];
  if (!r) return true;
  return r.domain !== shop.domain.toLowerCase() || r.name !== shop.name || r.protocol_enabled !== shop.protocol_enabled || !isDeepStrictEqual(JSON.parse(r.settings), JSON.parse(JSON.stringify(shop.settings)));
}
