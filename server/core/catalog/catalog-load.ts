/**
 * Loading catalog files (docs/catalog-format.md "Loading files"): one shop per file, any number of
 * files in one run (`ucp-storefront seed`, the demo data, reset).
 *
 * - **Each file is atomic.** Its shop row, products, variants, search rows, discounts and catalog
 *   version are written inside one savepoint; a file that fails is rolled back to it and leaves
 *   nothing, its shop row included. The other files of the run are loaded: the run reports each
 *   failed file and the caller decides the exit code.
 * - **Many small files load at the bulk rate.** Files are written in groups of about
 *   `loadTuning.groupProducts` products, one transaction per group: a group of 1,000 products or more
 *   is a bulk load (catalog-store.ts: search-index entries merged once per group, vectors computed
 *   ahead across file boundaries), where a file of 300 products alone would write its index entries
 *   row by row. A crash loses at most the group being written; the files already committed stay.
 * - **Statistics are refreshed once per run**, after the last group, not per file: `ANALYZE` samples
 *   whole tables, so per file its cost grew with the platform (~0.3 s per file at 100,000 products).
 */
import { sql } from 'kysely';
import type { DB } from '../../db/index.ts';
import type { CatalogFile } from '../../formats/catalog-format.ts';
import { catalogWritten, recordCatalogChange } from '../search/catalog-index.ts';
import { BULK_LOAD_PRODUCTS, VectorsAhead, batchesOf, loadTransaction, scratchVectors, writeBatches, type Batch, type LoadProgress } from './catalog-store.ts';
import { CatalogFileError, MAX_ISSUES, checkCatalogFile } from './catalog-check.ts';
import { writeShopDiscounts } from './discount-store.ts';
import { forgetImageOrigins } from './image-origins.ts';
import type { FieldIssue } from '../shared/errors.ts';
import { forgetCachedShops } from '../shops/shops.ts';
import type { ScratchVectors } from '../search/search-vectors.ts';

export const loadTuning = {
  /** Products per transaction in a run of many files (the last file of a group may take it past this). */
  groupProducts: 10_000,
};

export interface CatalogSource {
  /** How results and errors name the file (its path). */
  name: string;
  /** The file's JSON document; throws an Error with a one-line message when it cannot be read. */
  read(): unknown;
  /** The document is an update of part of the shop (an import, catalog-sync.ts): the shop's discount codes are kept, not replaced. */
  keepDiscounts?: boolean;
  /** `read()` gives a document its caller already checked record by record (catalog-sync.ts): not parsed a second time. */
  checked?: boolean;
}

export interface FileResult {
  file: string;
  shop?: string;
  products?: number;
  /** Why nothing of the file was loaded. */
  error?: string;
  /** Not written: the caller's fence found the shop already there (LoadHooks.fence). */
  skipped?: boolean;
  issues?: FieldIssue[];
}

export interface LoadHooks {
  /** Each file's result once known: a refused file at once, a loaded one when its group commits. */
  file?(result: FileResult, index: number): void;
  /** A run of one file: products written so far (per batch). */
  products?: LoadProgress;
  /** Every row of a bulk group is written and its index entries are being merged, or the run's statistics refreshed. */
  stage?(stage: 'merging' | 'statistics'): void;
  /**
   * Where bulk groups compute their vectors ahead, opened by the caller (kept open: the caller
   * closes it). Default: one opened for the run, whose first batches compute their own while it
   * opens. Tests pass a ready one so that computing ahead does not depend on the machine's speed.
   */
  vectors?: ScratchVectors;
  /**
   * Runs first in each group's transaction, on its connection, with the group's shop ids; false:
   * the group writes nothing and its files are reported `skipped`. The first-run seed takes a
   * transaction-level lock here and checks its shops are still missing (server/seed/prepare.ts).
   */
  fence?(tx: DB, shops: string[]): Promise<boolean>;
}

/** Loads each source as one shop, in order; never throws for a file's fault (see FileResult.error). */
export async function loadCatalogs(db: DB, sources: CatalogSource[], hooks: LoadHooks = {}): Promise<FileResult[]> {
  const results: FileResult[] = [];
  const report = (index: number, result: FileResult) => {
    results[index] = result;
    hooks.file?.(result, index);
  };
  let scratch: ScratchVectors | undefined = hooks.vectors;
  let written = false;
  try {
    for (let next = 0; next < sources.length; ) {
      const group: Entry[] = [];
      let products = 0;
      for (; next < sources.length && products < loadTuning.groupProducts; next++) {
        try {
          const file = sources[next].checked ? (sources[next].read() as CatalogFile) : checkCatalogFile(sources[next].read());
          group.push({ index: next, file, keepDiscounts: sources[next].keepDiscounts });
          products += file.products.length;
        } catch (e) {
          report(next, failure(sources[next].name, e));
        }
      }
      if (!group.length) continue;
      const bulk = products >= BULK_LOAD_PRODUCTS;
      if (bulk) scratch ??= scratchVectors(db);
      try {
        await writeGroup(db, group, bulk, bulk ? scratch : undefined, sources.length === 1 ? hooks : { stage: hooks.stage, fence: hooks.fence });
      } catch (e) {
        // The group's transaction itself failed (the database went away, the commit failed): none
        // of its files was written, and what follows would likely fail the same way.
        for (const g of group) report(g.index, failure(sources[g.index].name, e));
        for (; next < sources.length; next++) report(next, { file: sources[next].name, error: 'not loaded: the run stopped at the failure above' });
        break;
      }
      forgetCachedShops(db);
      for (const g of group) {
        if (g.skipped) report(g.index, { file: sources[g.index].name, shop: g.file.shop.id, skipped: true });
        else if (g.error) report(g.index, failure(sources[g.index].name, g.error));
        else {
          written = true;
          await catalogWritten(db, g.file.shop.id);
          forgetImageOrigins(db, g.file.shop.id);
          report(g.index, { file: sources[g.index].name, shop: g.file.shop.id, products: g.file.products.length });
        }
      }
    }
    if (written) {
      // Fresh statistics, or the planner keeps choosing plans for an empty table (e.g. scanning the
      // shop index instead of the full-text index). On PostgreSQL the three run at once, each on a
      // connection of its own.
      hooks.stage?.('statistics');
      await Promise.all(['products', 'product_search', 'variants'].map((table) => sql`analyze ${sql.table(table)}`.execute(db)));
    }
  } finally {
    if (scratch !== hooks.vectors) await scratch?.close();
  }
  return results;
}

/** One file as a caller that loads a single document expects it: the result, or the file's error thrown. */
export async function loadCatalogFile(db: DB, input: unknown, onProgress?: LoadProgress, vectors?: ScratchVectors): Promise<{ shopId: string; products: number }> {
  let total = 0;
  const [r] = await loadCatalogs(db, [{ name: 'catalog file', read: () => input }], {
    vectors,
    products: (done, all) => onProgress?.(done, (total = all)),
    stage: (stage) => stage === 'merging' && onProgress?.(total, total, 'finishing'),
  });
  if (r.error) throw failed.get(r) ?? new Error(r.error);
  return { shopId: r.shop!, products: r.products! };
}

interface Entry {
  index: number;
  file: CatalogFile;
  /** Why the file was rolled back to its savepoint. */
  error?: unknown;
  /** The fence kept the group from writing (LoadHooks.fence). */
  skipped?: boolean;
  keepDiscounts?: boolean;
}

/** The error behind each failed result, for callers that rethrow it (loadCatalogFile). */
const failed = new WeakMap<FileResult, unknown>();

function failure(file: string, e: unknown): FileResult {
  const result: FileResult = { file, error: e instanceof Error ? e.message : String(e) };
  if (e instanceof CatalogFileError && e.issues.length) result.issues = e.issues;
  failed.set(result, e);
  return result;
}

/** Writes a group of files in one transaction, each inside its own savepoint (a failed file: `entry.error`). */
async function writeGroup(db: DB, group: Entry[], bulk: boolean, scratch: ScratchVectors | undefined, hooks: LoadHooks): Promise<void> {
  const batches: Batch[] = [];
  const ranges = group.map(({ file }) => {
    const first = batches.length;
    batches.push(...batchesOf(file.shop, file.products));
    return { first, count: batches.length - first };
  });
  const ahead = new VectorsAhead(scratch, batches);
  ahead.start(0);
  await loadTransaction(
    db,
    bulk,
    async (tx) => {
      if (hooks.fence && !(await hooks.fence(tx, group.map((g) => g.file.shop.id)))) {
        for (const entry of group) entry.skipped = true;
        return;
      }
      for (const [k, entry] of group.entries()) {
        await sql`savepoint catalog_file`.execute(tx);
        try {
          await writeFile(tx, entry, () => writeBatches(tx, batches, ranges[k].first, ahead, hooks.products, ranges[k].count));
          await sql`release savepoint catalog_file`.execute(tx);
        } catch (e) {
          await sql`rollback to savepoint catalog_file`.execute(tx);
          entry.error = await explainWriteError(tx, entry.file, e);
        }
      }
    },
    () => hooks.stage?.('merging'),
  );
}

/** The shop row (created or updated by id), its products, its discount codes and its catalog version. */
async function writeFile(tx: DB, { file, keepDiscounts }: Entry, writeProducts: () => Promise<void>): Promise<void> {
  const s = file.shop;
  const row = { domain: s.domain.toLowerCase(), name: s.name, protocol_enabled: s.protocol_enabled, settings: JSON.stringify(s.settings) };
  const shop = await tx
    .insertInto('shops')
    .values({ id: s.id, ...row })
    .onConflict((oc) => oc.column('id').doUpdateSet(row))
    .returning(sql<boolean>`xmax <> 0`.as('existed'))
    .executeTakeFirstOrThrow();
  // Loading a shop again: its products' variants go first, so a variant the file moves from one of
  // its products to another is free whichever batch writes it (each batch drops only its own).
  if (shop.existed && file.products.length) await sql`delete from variants where shop_id = ${s.id} and product_id = any(${file.products.map((p) => p.id)}::text[])`.execute(tx);
  await writeProducts();
  if (!keepDiscounts) await writeShopDiscounts(tx, s.id, file.discounts);
  await recordCatalogChange(tx, s.id, file.products.map((p) => p.id));
}

/**
 * A write the database refused, said in the file's terms. The checks before writing catch what a
 * file says about itself; these are collisions with what the database already holds.
 */
async function explainWriteError(tx: DB, file: CatalogFile, e: unknown): Promise<unknown> {
  const err = e as { code?: string; constraint?: string };
  if (err.code !== '23505') return e;
  if (err.constraint === 'variants_pk') {
    // A variant id the file gives one product while the shop's stored catalog has it on a product the file does not list.
    const ids = file.products.flatMap((p) => p.variants.map((v) => v.id));
    const taken = await sql<{ id: string; product_id: string }>`select id, product_id from variants
      where shop_id = ${file.shop.id} and id = any(${ids}::text[]) and product_id <> all(${file.products.map((p) => p.id)}::text[])
      order by id limit ${MAX_ISSUES}`.execute(tx);
    const at = new Map(file.products.flatMap((p, i) => p.variants.map((v, j) => [v.id, { p, i, j }] as const)));
    const issues = taken.rows.map(({ id, product_id }) => {
      const { p, i, j } = at.get(id)!;
      return { path: `$.products[${i}].variants[${j}].id`, code: 'variant_id_taken', content: `variant id ${id} of product ${p.id} already belongs to product ${product_id} of shop ${file.shop.id}, which this file does not list` };
    });
    if (issues.length) return new CatalogFileError(issues.length === 1 ? 'a variant id belongs to another product' : `${issues.length} variant ids belong to other products`, issues);
  }
  if (err.constraint === 'shops_domain_key') {
    const owner = await tx.selectFrom('shops').select('id').where('domain', '=', file.shop.domain.toLowerCase()).executeTakeFirst();
    if (owner) return new CatalogFileError(`domain ${file.shop.domain} is already shop ${owner.id}'s`, [{ path: '$.shop.domain', code: 'domain_taken', content: `served by shop ${owner.id}` }]);
  }
  return e;
}
