/**
 * Keeps each shop's in-memory search index (search-index.ts) in step with the database, which stays
 * the source of truth:
 * - built from product_search on start (`warmCatalogIndexes`) or on a shop's first search; until
 *   it is ready, search asks the database as before;
 * - every catalog write records the products it touched under a new catalog version in the same
 *   transaction (`recordCatalogChange`, migration 0012), and the writing process brings its index
 *   up to that version before the write returns (`catalogWritten`): a process reads its own writes;
 * - on PostgreSQL other processes write too: before searching, an index checks the shop's version
 *   when its last check is older than `indexTuning.checkEveryMs` and re-reads the products changed
 *   since. A write through another process is searchable here within that bound (docs/ucp.md);
 * - a change an index cannot patch drops it and rebuilds it in the background (`buildInBackground`):
 *   searches ask the database meanwhile instead of waiting seconds for it.
 *
 * Queries are tokenized and stemmed by PostgreSQL itself (`websearch_to_tsquery`, English, French and
 * identifiers), once per distinct query per database: the index compares the same lexemes the
 * full-text columns hold, so its answers are the SQL search's (test/search-index.test.ts proves it
 * over hundreds of generated queries).
 */
import { sql } from 'kysely';
import type { DB } from '../db/index.ts';
import { databaseIdentity, isSingleWriter } from '../db/index.ts';
import { catalogChanged } from './product-cache.ts';
import { SearchIndex, type IndexRow } from './search-index.ts';
import { parseTsQuery, type TsQuery } from './tsquery.ts';
import { log } from '../lib/log.ts';

export const indexTuning = {
  /** Off: every search asks the database (the equivalence test compares both). */
  enabled: true,
  /** How stale another process's writes may be here (PostgreSQL): the version check's period. */
  checkEveryMs: 100,
  /** Rows read per query while building. */
  buildChunk: 10_000,
};

/** A catalog write listing more products than this logs "rebuild" instead of the list. */
const MAX_LOGGED_IDS = 5_000;
/** After a failed build, how long searches use SQL before the next try. */
const BUILD_RETRY_MS = 5_000;
/** Change-log entries kept per shop. */
const KEEP_CHANGES = 1_000;

interface Entry {
  index?: SearchIndex;
  /** Serializes builds and refreshes of this shop's index. */
  chain: Promise<void>;
  building: boolean;
  /** When the last build failed: the next try waits BUILD_RETRY_MS (searches use SQL meanwhile). */
  failedAt: number;
  checkedAt: number;
  /** A refresh after a write failed: check before the next search. */
  dirty: boolean;
}

const entries = new WeakMap<object, Map<string, Entry>>();

function entryOf(db: DB, shopId: string): Entry {
  const key = databaseIdentity(db);
  let shops = entries.get(key);
  if (!shops) {
    entries.set(key, (shops = new Map()));
    liveShopMaps.add(new WeakRef(shops));
  }
  let e = shops.get(shopId);
  if (!e) shops.set(shopId, (e = { chain: Promise.resolve(), building: false, failedAt: 0, checkedAt: 0, dirty: false }));
  return e;
}

function serialize(e: Entry, work: () => Promise<void>): Promise<void> {
  const run = e.chain.then(work);
  e.chain = run.catch(() => {});
  return run;
}

type Row = { product_id: string; position: number; categories: string; price_min: number; price_max: number; lexemes: string; title_lexemes: string };

function toIndexRow(r: Row): IndexRow {
  return {
    productId: r.product_id,
    position: Number(r.position),
    categories: JSON.parse(r.categories) as string[],
    priceMin: Number(r.price_min),
    priceMax: Number(r.price_max),
    lexemes: words(r.lexemes),
    titleLexemes: words(r.title_lexemes),
  };
}

/**
 * Lexemes travel as one space-separated text per vector: PostgreSQL's parser splits words at
 * whitespace, so no lexeme of ours holds a space, and one string per row instead of an array of
 * sixty builds 100,000 products in 3.8 s instead of 4.6 s.
 */
const ROW_COLUMNS = sql`product_id, position, categories::text as categories, price_min, price_max,
  array_to_string(tsvector_to_array(tsv), ' ') as lexemes, array_to_string(tsvector_to_array(title_tsv), ' ') as title_lexemes`;
const words = (text: string): string[] => (text ? text.split(' ') : []);

async function shopVersion(db: DB, shopId: string): Promise<number> {
  const row = await db.selectFrom('catalog_versions').select('version').where('shop_id', '=', shopId).executeTakeFirst();
  return Number(row?.version ?? 0);
}

/** Reads the whole shop into a new index, in chunks in catalog order. */
async function build(db: DB, shopId: string): Promise<SearchIndex> {
  // The version first: rows read after it may be newer, and re-applying those changes is harmless.
  const version = await shopVersion(db, shopId);
  const rows: IndexRow[] = [];
  let after = -1;
  for (;;) {
    const chunk = await sql<Row>`select ${ROW_COLUMNS} from product_search
      where shop_id = ${shopId} and position > ${after} order by position limit ${indexTuning.buildChunk}`.execute(db);
    for (const r of chunk.rows) rows.push(toIndexRow(r));
    if (chunk.rows.length < indexTuning.buildChunk) break;
    after = rows[rows.length - 1].position;
  }
  return new SearchIndex(rows, version);
}

async function rebuild(db: DB, shopId: string, e: Entry): Promise<void> {
  e.building = true;
  try {
    e.index = await build(db, shopId);
  } finally {
    e.building = false;
  }
}

/**
 * Builds the shop's index in the background (after whatever refresh is under way); until it is
 * ready the shop has no index, so searches ask the database instead of waiting (seconds at 100,000
 * products). A failed build is retried after BUILD_RETRY_MS.
 */
function buildInBackground(db: DB, shopId: string, e: Entry): void {
  e.index = undefined;
  e.building = true;
  serialize(e, () => rebuild(db, shopId, e)).catch((err) => {
    e.failedAt = Date.now();
    log.error('search-index', 'build failed', { shop: shopId, err });
  });
}

/** Brings the index up to the shop's current version (one query when nothing changed). */
async function refresh(db: DB, shopId: string, e: Entry): Promise<void> {
  const index = e.index;
  if (!index) return;
  const startedAt = Date.now();
  const changes = await db
    .selectFrom('catalog_changes')
    .select(['version', 'product_ids'])
    .where('shop_id', '=', shopId)
    .where('version', '>', index.version)
    .orderBy('version')
    .execute();
  if (changes.length) {
    const contiguous = Number(changes[0].version) === index.version + 1;
    const ids = [...new Set(changes.flatMap((c) => c.product_ids ?? []))];
    let patched = false;
    if (contiguous && changes.every((c) => c.product_ids)) {
      const rows = (await sql<Row>`select ${ROW_COLUMNS} from product_search where shop_id = ${shopId} and product_id = any(${sql.val(ids)}::text[])`.execute(db)).rows.map(toIndexRow);
      const present = new Set(rows.map((r) => r.productId));
      patched = index.patch(rows, ids.filter((id) => !present.has(id)));
      if (patched) index.version = Number(changes[changes.length - 1].version);
    }
    // Too far behind, or a change the index cannot patch: rebuilt in the background, and searches
    // use the database meanwhile (which is current) rather than wait.
    if (!patched) buildInBackground(db, shopId, e);
  }
  e.checkedAt = startedAt;
  e.dirty = false;
}

/**
 * The shop's index, current (within `checkEveryMs` of other processes' writes), or undefined while
 * it is being built or when turned off: the caller then asks the database.
 */
export async function catalogIndex(db: DB, shopId: string): Promise<SearchIndex | undefined> {
  if (!indexTuning.enabled) return undefined;
  const e = entryOf(db, shopId);
  if (!e.index) {
    if (!e.building && Date.now() - e.failedAt >= BUILD_RETRY_MS) buildInBackground(db, shopId, e);
    return undefined;
  }
  if (e.dirty || (!isSingleWriter(db) && Date.now() - e.checkedAt >= indexTuning.checkEveryMs)) {
    await serialize(e, () => (e.dirty || Date.now() - e.checkedAt >= indexTuning.checkEveryMs ? refresh(db, shopId, e) : Promise.resolve()));
  }
  return e.index;
}

/** Builds every shop's index (at start, in the background); resolves with what each took. */
export async function warmCatalogIndexes(db: DB): Promise<Array<{ shopId: string; products: number; bytes: number; ms: number }>> {
  const shops = await db.selectFrom('shops').select('id').orderBy('id').execute();
  const out = [];
  for (const { id } of shops) {
    const e = entryOf(db, id);
    const t0 = performance.now();
    await serialize(e, () => (e.index ? refresh(db, id, e) : rebuild(db, id, e)));
    out.push({ shopId: id, products: e.index?.size ?? 0, bytes: e.index?.stats().bytes ?? 0, ms: Math.round(performance.now() - t0) });
  }
  return out;
}

/**
 * Inside a catalog write's transaction: the shop's next version, and the products it touched
 * (`null`: too many, or all of them — indexes rebuild).
 */
export async function recordCatalogChange(tx: DB, shopId: string, productIds: string[] | null): Promise<void> {
  const { version } = await tx
    .insertInto('catalog_versions')
    .values({ shop_id: shopId, version: 1 })
    .onConflict((oc) => oc.column('shop_id').doUpdateSet({ version: sql`catalog_versions.version + 1` }))
    .returning('version')
    .executeTakeFirstOrThrow();
  const ids = productIds && productIds.length <= MAX_LOGGED_IDS ? productIds : null;
  await sql`insert into catalog_changes (shop_id, version, product_ids) values (${shopId}, ${version}, ${ids === null ? null : sql`${sql.val(ids)}::text[]`})`.execute(tx);
  if (Number(version) % 100 === 0) await tx.deleteFrom('catalog_changes').where('shop_id', '=', shopId).where('version', '<=', Number(version) - KEEP_CHANGES).execute();
}

/**
 * After a catalog write commits: this process's caches follow it before the write is acknowledged.
 * A failed refresh does not fail the committed write; the next search checks again.
 */
export async function catalogWritten(db: DB, shopId: string): Promise<void> {
  catalogChanged(db, shopId);
  const e = entryOf(db, shopId);
  // A build under way may have read the catalog before this write: refresh after it.
  if (!e.index && !e.building) return;
  await serialize(e, () => refresh(db, shopId, e)).catch((err) => {
    e.dirty = true;
    log.error('search-index', 'refresh failed', { shop: shopId, err });
  });
}

/** Parsed queries per database: PostgreSQL's tokenizer and stemmers, asked once per distinct query. */
const parsed = new WeakMap<object, Map<string, TsQuery | null | 'positional'>>();
const MAX_PARSED = 10_000;
/** Longer queries are parsed every time: the memo stays small whatever clients send. */
const MAX_PARSED_LENGTH = 200;

/**
 * The query as the SQL search reads it: the language's stemming OR'd with identifiers as typed.
 * 'positional' means "let SQL answer" (phrases, prefixes, or a form the reader does not know).
 */
export async function parseQuery(db: DB, config: string, query: string): Promise<TsQuery | null | 'positional'> {
  const key = databaseIdentity(db);
  let memo = parsed.get(key);
  if (!memo) parsed.set(key, (memo = new Map()));
  const k = `${config}\n${query}`;
  const hit = memo.get(k);
  if (hit !== undefined) return hit;
  const row = await sql<{ q: string }>`select (websearch_to_tsquery(${config}::regconfig, ${query}) || websearch_to_tsquery('simple'::regconfig, ${query}))::text as q`.execute(db);
  let tree: TsQuery | null | 'positional';
  try {
    tree = parseTsQuery(row.rows[0].q);
  } catch (err) {
    // A form this reader does not know: SQL answers it (never a failed search), and we hear of it.
    log.error('search-index', 'query form not understood; SQL answers it', { err });
    tree = 'positional';
  }
  if (query.length > MAX_PARSED_LENGTH) return tree;
  if (memo.size >= MAX_PARSED) memo.clear();
  memo.set(k, tree);
  return tree;
}

/** Every database's shop map, weakly: searchIndexStats() reads them without keeping a closed database's indexes alive. */
const liveShopMaps = new Set<WeakRef<Map<string, Entry>>>();
/** An index's size estimate, by index, recomputed when its version moves (stats() walks every posting list). */
const sizes = new WeakMap<SearchIndex, { version: number; bytes: number }>();

/**
 * This process's in-memory indexes, for /metrics: their estimated bytes, how many shops have one,
 * and how many were evicted (none: this version keeps every index; the budgeted one evicts).
 */
export function searchIndexStats(): { bytes: number; shops: number; evictions: number } {
  let bytes = 0;
  let shops = 0;
  for (const ref of liveShopMaps) {
    const map = ref.deref();
    if (!map) {
      liveShopMaps.delete(ref);
      continue;
    }
    for (const e of map.values()) {
      if (!e.index) continue;
      let s = sizes.get(e.index);
      if (!s || s.version !== e.index.version) sizes.set(e.index, (s = { version: e.index.version, bytes: e.index.stats().bytes }));
      bytes += s.bytes;
      shops++;
    }
  }
  return { bytes, shops, evictions: 0 };
}
