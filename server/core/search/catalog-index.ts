/**
 * Keeps each shop's in-memory search index (search-index.ts) in step with the database, which stays
 * the source of truth:
 * - built from product_search in the background when a shop is searched, never at start (start time
 *   and idle memory do not grow with the number of shops); until it is ready, search asks the
 *   database, which answers the same (test/search-index.test.ts);
 * - all of a process's indexes fit in a budget (`indexTuning.budgetBytes`, SEARCH_INDEX_BUDGET_MB):
 *   past it the least recently searched shops' indexes are dropped, and rebuilt when next searched.
 *   A shop whose index alone is larger than the budget is searched in SQL (docs/deploy.md);
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
import type { DB } from '../../db/index.ts';
import { databaseIdentity, isSingleWriter } from '../../db/index.ts';
import { catalogChanged } from '../products/product-cache.ts';
import { SearchIndex, type IndexRow } from './search-index.ts';
import { parseTsQuery, type TsQuery } from './tsquery.ts';
import { log } from '../../lib/log.ts';

/** SEARCH_INDEX_BUDGET_MB's default (config.ts): about 250,000 generated products (1-2 KB each; docs/deploy.md). */
export const DEFAULT_INDEX_BUDGET_MB = 256;

export const indexTuning = {
  /** Off: every search asks the database (the equivalence test compares both). */
  enabled: true,
  /** How stale another process's writes may be here (PostgreSQL): the version check's period. */
  checkEveryMs: 100,
  /** Rows read per query while building. */
  buildChunk: 10_000,
  /** Bytes (SearchIndex.bytes) all of this process's indexes may hold; 0: no index, SQL only. */
  budgetBytes: DEFAULT_INDEX_BUDGET_MB * 2 ** 20,
  /**
   * Builds running at once in this process; more wait their turn (searching in SQL meanwhile), so a
   * burst of searches over many cold shops does not take every database connection from requests.
   */
  concurrentBuilds: 2,
  /**
   * Builds a search may start while this many are pending (running or waiting); past it the shop
   * stays in SQL and its next search asks again. When the shops searched do not fit the budget,
   * each search of an evicted shop would otherwise queue a build whose index is soon evicted again.
   */
  pendingBuilds: 4,
  /**
   * Thrashing: more evictions within this window than there are live indexes (at least 4) means the
   * shops being searched do not fit the budget, and each rebuild would only evict another index
   * about to be searched. New builds then wait (their shops are searched in SQL, as cheaply as
   * without an index; measured in docs/benchmarks.md) and the indexes in memory stay.
   */
  thrashWindowMs: 60_000,
};

/** A catalog write listing more products than this logs "rebuild" instead of the list. */
export const MAX_LOGGED_IDS = 5_000;
/** After a failed build, how long searches use SQL before the next try. */
const BUILD_RETRY_MS = 5_000;
/** Change-log entries kept per shop. */
const KEEP_CHANGES = 1_000;
/** After a build found the shop's index larger than the whole budget: SQL for this long, then a new try. */
const OVERSIZE_RETRY_MS = 10 * 60_000;
/** Builds of at least this many products are logged with their time and size. */
const LOGGED_BUILD = 10_000;

interface Entry {
  shopId: string;
  index?: SearchIndex;
  /** The index's bytes as counted in `liveBytes` (0 when it has none). */
  bytes: number;
  /** Serializes builds and refreshes of this shop's index. */
  chain: Promise<void>;
  building: boolean;
  /** When the last build failed: the next try waits BUILD_RETRY_MS (searches use SQL meanwhile). */
  failedAt: number;
  checkedAt: number;
  /** Check before the next search: a refresh after a write failed, or a write landed during a build. */
  dirty: boolean;
  /** When a build found the index larger than the budget (0: never): SQL until OVERSIZE_RETRY_MS later. */
  oversizeAt: number;
  /** Its database was closed (`dropCatalogIndexes`): a build still under way keeps nothing. */
  dropped: boolean;
}

const entries = new WeakMap<object, Map<string, Entry>>();

function entryOf(db: DB, shopId: string): Entry {
  const key = databaseIdentity(db);
  let shops = entries.get(key);
  if (!shops) entries.set(key, (shops = new Map()));
  let e = shops.get(shopId);
  if (!e) shops.set(shopId, (e = { shopId, bytes: 0, chain: Promise.resolve(), building: false, failedAt: 0, checkedAt: 0, dirty: false, oversizeAt: 0, dropped: false }));
  return e;
}

/**
 * Every live index of this process (all databases: tests open several), least recently searched
 * first: a Set keeps insertion order, and a search moves its shop to the end. `liveBytes` is their
 * sum. Dropping an index from here and from its entry leaves nothing referring to it (a search
 * already walking it finishes first), so the collector gives its memory back.
 */
const live = new Set<Entry>();
let liveBytes = 0;
let evictions = 0;
/** Times of the evictions within `indexTuning.thrashWindowMs`, oldest first. */
const recentEvictions: number[] = [];
let thrashWarned = false;

function thrashing(now: number): boolean {
  while (recentEvictions.length && now - recentEvictions[0] >= indexTuning.thrashWindowMs) recentEvictions.shift();
  const yes = recentEvictions.length > Math.max(4, live.size);
  if (yes && !thrashWarned) {
    log.warn('search-index', `${recentEvictions.length} indexes evicted within ${indexTuning.thrashWindowMs / 1000} s: the shops searched do not fit SEARCH_INDEX_BUDGET_MB (${(indexTuning.budgetBytes / 2 ** 20).toFixed(1)} MB); new builds wait and those shops are searched in SQL (docs/deploy.md)`);
  }
  thrashWarned = yes;
  return yes;
}

/** Bytes and shops of the live indexes, and indexes evicted for the budget since start (for metrics). */
export function searchIndexStats(): { bytes: number; shops: number; evictions: number } {
  return { bytes: liveBytes, shops: live.size, evictions };
}

/** The shops of this database with an index in memory, least recently searched first. */
export function indexedShops(db: DB): string[] {
  const shops = entries.get(databaseIdentity(db));
  return [...live].filter((e) => shops?.get(e.shopId) === e).map((e) => e.shopId);
}

/** Sets the budget (server start), evicting at once what no longer fits. */
export function setSearchIndexBudget(bytes: number): void {
  indexTuning.budgetBytes = bytes;
  fitBudget();
}

/** A search used the shop's index: it becomes the most recently searched. */
function touch(e: Entry): void {
  if (live.delete(e)) live.add(e);
}

/** Replaces the entry's index (undefined: none) and keeps the accounting and the budget. */
function install(e: Entry, index: SearchIndex | undefined): void {
  if (live.delete(e)) liveBytes -= e.bytes;
  e.index = undefined;
  e.bytes = 0;
  if (!index || e.dropped) return;
  if (index.bytes > indexTuning.budgetBytes) return oversize(e, index.bytes);
  e.index = index;
  e.bytes = index.bytes;
  liveBytes += e.bytes;
  live.add(e);
  fitBudget();
}

/** After a patch: the index's new size counts. */
function resized(e: Entry): void {
  if (!e.index || !live.has(e)) return;
  if (e.index.bytes > indexTuning.budgetBytes) return oversize(e, e.index.bytes);
  liveBytes += e.index.bytes - e.bytes;
  e.bytes = e.index.bytes;
  fitBudget();
}

/** Evicts the least recently searched indexes until the rest fit the budget. */
function fitBudget(): void {
  for (const e of live) {
    if (liveBytes <= indexTuning.budgetBytes) return;
    install(e, undefined);
    evictions++;
    recentEvictions.push(Date.now());
    if (recentEvictions.length > 10_000) recentEvictions.shift();
  }
}

function oversize(e: Entry, bytes: number): void {
  install(e, undefined);
  e.oversizeAt = Date.now();
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;
  log.warn('search-index', `${e.shopId}: its index (${mb(bytes)}) is larger than the whole SEARCH_INDEX_BUDGET_MB (${mb(indexTuning.budgetBytes)}): its searches run in SQL (docs/deploy.md)`);
}

/** Closing a database: its indexes go, and builds still under way keep nothing. */
export function dropCatalogIndexes(db: DB): void {
  const key = databaseIdentity(db);
  for (const e of entries.get(key)?.values() ?? []) {
    e.dropped = true;
    install(e, undefined);
  }
  entries.delete(key);
}

/** At most `indexTuning.concurrentBuilds` builds at once; the rest queue in order. */
let buildsPending = 0;
let buildsRunning = 0;
const buildQueue: Array<() => void> = [];
async function withBuildSlot<T>(work: () => Promise<T>): Promise<T> {
  if (buildsRunning >= indexTuning.concurrentBuilds) await new Promise<void>((resolve) => buildQueue.push(resolve));
  else buildsRunning++;
  try {
    return await work();
  } finally {
    // The slot passes straight to the next build waiting, if any.
    const next = buildQueue.shift();
    if (next) next();
    else buildsRunning--;
  }
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
    await withBuildSlot(async () => {
      if (e.dropped) return;
      const t0 = performance.now();
      const index = await build(db, shopId);
      install(e, index);
      if (e.index && index.size >= LOGGED_BUILD) {
        log.info('search-index', `${shopId}: ${index.size} products indexed in ${((performance.now() - t0) / 1000).toFixed(1)} s (${(index.bytes / 1e6).toFixed(1)} MB)`);
      }
    });
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
  install(e, undefined);
  e.building = true;
  buildsPending++;
  serialize(e, () => rebuild(db, shopId, e))
    .catch((err) => {
      e.failedAt = Date.now();
      log.error('search-index', 'build failed', { shop: shopId, err });
    })
    .finally(() => buildsPending--);
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
      // Evicted meanwhile: nothing to keep current (the next search builds afresh).
      if (e.index !== index) return;
      const present = new Set(rows.map((r) => r.productId));
      patched = index.patch(rows, ids.filter((id) => !present.has(id)));
      if (patched) {
        index.version = Number(changes[changes.length - 1].version);
        resized(e);
      }
    }
    if (e.index !== index) return;
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
  if (!indexTuning.enabled || indexTuning.budgetBytes <= 0) return undefined;
  const e = entryOf(db, shopId);
  if (!e.index) {
    const now = Date.now();
    const due = !e.building && now - e.failedAt >= BUILD_RETRY_MS && now - e.oversizeAt >= OVERSIZE_RETRY_MS;
    if (due && buildsPending < indexTuning.pendingBuilds && !thrashing(now)) buildInBackground(db, shopId, e);
    return undefined;
  }
  touch(e);
  if (e.dirty || (!isSingleWriter(db) && Date.now() - e.checkedAt >= indexTuning.checkEveryMs)) {
    await serialize(e, () => (e.dirty || Date.now() - e.checkedAt >= indexTuning.checkEveryMs ? refresh(db, shopId, e) : Promise.resolve()));
  }
  // Undefined if it was evicted or dropped for a rebuild meanwhile: the database answers.
  return e.index;
}

/**
 * The shop's index once built (for benchmarks and tests: searching would build it in the
 * background), or undefined when it cannot be (larger than the budget, turned off, build failed).
 */
export async function readyCatalogIndex(db: DB, shopId: string): Promise<SearchIndex | undefined> {
  const index = await catalogIndex(db, shopId);
  if (index) return index;
  await entryOf(db, shopId).chain;
  return entryOf(db, shopId).index ? catalogIndex(db, shopId) : undefined;
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
  if (!e.index) {
    // A build queued or under way may read the catalog before this write: the next search refreshes
    // the index first (searches meanwhile ask the database). The write does not wait for the build.
    if (e.building) e.dirty = true;
    return;
  }
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
