/**
 * Feeds by URL (docs/import-feeds.md): what is kept per shop and URL in `import_feeds` (the
 * validators of the last successful import, the options a scheduled run imports with, the schedule
 * and the last result), and one import of URLs and files together. A URL's sync source is the URL
 * itself. A URL answered 304 is left out of the run: its products are not touched (a source not in
 * the run keeps its products), and when nothing else is imported the report says `unchanged: true`
 * with every count zero. Validators are stored only after the whole import committed, so a failed
 * or interrupted import fetches the feed in full next time.
 */
import { sql } from 'kysely';
import type { DB } from '../db/index.ts';
import type { ImportFormat } from './adapter.ts';
import { fetchFeed, type FeedFetchOptions, type FeedResponse } from './feed-fetch.ts';
import { fileChunks, spool } from './input.ts';
import { fileSources, runImport, type ImportOptions, type ImportResult } from './run.ts';
import { findShopById } from '../core/shops/shops.ts';

/** Shortest schedule period. */
export const MIN_EVERY_SECONDS = 5 * 60;

/** A scheduled run's import options (what the command was given besides the shop's creation). */
export interface FeedOptions {
  format?: ImportFormat;
  source?: string;
  partial?: boolean;
}

export interface FeedRow {
  shop_id: string;
  url: string;
  etag: string | null;
  last_modified: string | null;
  format: string | null;
  options: FeedOptions;
  interval_seconds: number | null;
  next_due: Date | null;
  last_run_at: Date | null;
  last_status: 'imported' | 'unchanged' | 'failed' | null;
  last_counts: (ImportResult['products'] & { variants: number; skipped: number }) | null;
  last_error: string | null;
}

/** `15m`, `1h`, `1d` (also `90s`, `2w`) in seconds; null when it is not a duration. */
export function parseEvery(text: string): number | null {
  const m = /^(\d+)\s*(s|m|h|d|w)$/i.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400, w: 604800 }[m[2].toLowerCase() as 's']!;
}

/** Seconds back as the largest whole unit: 900 -> 15m. */
export function formatEvery(seconds: number): string {
  for (const [unit, n] of [['w', 604800], ['d', 86400], ['h', 3600], ['m', 60]] as const) if (seconds % n === 0) return `${seconds / n}${unit}`;
  return `${seconds}s`;
}

export async function findFeed(db: DB, shop: string, url: string): Promise<FeedRow | undefined> {
  const { rows } = await sql<FeedRow>`select * from import_feeds where shop_id = ${shop} and url = ${url}`.execute(db);
  return rows[0];
}

/** Scheduled feeds, a shop's or all, by shop then URL. */
export async function listFeeds(db: DB, shop?: string): Promise<FeedRow[]> {
  const { rows } = await sql<FeedRow>`select * from import_feeds where interval_seconds is not null ${shop === undefined ? sql`` : sql`and shop_id = ${shop}`} order by shop_id, url`.execute(db);
  return rows;
}

/** Stops a feed and forgets its validators; false when there was none. */
export async function removeFeed(db: DB, shop: string, url: string): Promise<boolean> {
  const r = await sql`delete from import_feeds where shop_id = ${shop} and url = ${url}`.execute(db);
  return Number(r.numAffectedRows ?? 0) > 0;
}

/**
 * Claims one due feed for this worker: its next_due moves a period on in the same statement, and
 * a row another worker is claiming is skipped, so each due feed is taken once across workers.
 */
export async function claimDueFeed(db: DB): Promise<FeedRow | undefined> {
  const { rows } = await sql<FeedRow>`
    update import_feeds f
       set next_due = now() + make_interval(secs => f.interval_seconds)
     where (f.shop_id, f.url) in (
       select shop_id, url from import_feeds
        where interval_seconds is not null and next_due <= now()
        order by next_due
        limit 1
        for update skip locked)
    returning f.*`.execute(db);
  return rows[0];
}

/** A scheduled run that failed: its error is the feed's last result (validators kept). */
export async function recordFeedError(db: DB, shop: string, url: string, message: string): Promise<void> {
  await sql`update import_feeds set last_run_at = now(), last_status = 'failed', last_error = ${message.slice(0, 2000)} where shop_id = ${shop} and url = ${url}`.execute(db);
}

export interface FeedImportOptions extends Omit<ImportOptions, 'sources'> {
  files?: string[];
  urls: string[];
  /** Scheduled: every this many seconds (the command's --every). */
  every?: number;
  /** Options stored for scheduled runs (default: from the import's). */
  feedOptions?: FeedOptions;
  /** Record the result only on an existing row (a scheduled run: a feed removed meanwhile stays removed). */
  existingOnly?: boolean;
  fetch: Omit<FeedFetchOptions, 'etag' | 'lastModified'>;
}

/** Fetches the URLs (conditionally), imports them with the files, records each feed's result. */
export async function importWithFeeds(db: DB, opts: FeedImportOptions): Promise<ImportResult> {
  const { files = [], urls } = opts;
  // One --source for several sources: a URL left out would look like a source that lists nothing.
  const conditional = !(opts.source && files.length + urls.length > 1);
  const rows = new Map<string, FeedRow | undefined>();
  const fetched: Array<{ url: string; res: FeedResponse }> = [];
  const spooled: Array<{ remove(): Promise<void> }> = [];
  try {
    for (const url of urls) {
      const row = await findFeed(db, opts.shop.id, url);
      rows.set(url, row);
      const validators = conditional && row ? { etag: row.etag, lastModified: row.last_modified } : {};
      fetched.push({ url, res: await fetchFeed(url, { ...opts.fetch, ...validators }) });
    }
    const sources: ImportOptions['sources'] = [...fileSources(files)];
    for (const { url, res } of fetched) {
      if (res.notModified) continue;
      // Received whole before the import's transaction begins (input.ts spool).
      const body = await spool(res.bytes);
      spooled.push(body);
      sources.push({ name: url, key: url, chunks: () => fileChunks(body.path) });
    }
    const result = sources.length ? await runImport(db, { ...opts, sources }) : notModified(opts.shop.id, rows, (await findShopById(db, opts.shop.id))?.settings.currency ?? 'USD');
    result.feeds = fetched.map(({ url, res }) => ({ url, not_modified: res.notModified, ...(opts.every ? { every: formatEvery(opts.every) } : {}) }));
    if (!opts.dryRun) for (const { url, res } of fetched) await recordResult(db, opts, url, res, result, rows.get(url));
    return result;
  } finally {
    for (const { res } of fetched) if (!res.notModified) res.cancel();
    await Promise.all(spooled.map((b) => b.remove()));
  }
}

/** Nothing to import: every URL answered 304. */
function notModified(shop: string, rows: Map<string, FeedRow | undefined>, currency: string): ImportResult {
  const format = ([...rows.values()].find((r) => r?.format)?.format ?? 'google') as ImportFormat;
  return { shop, currency, format, products: { created: 0, updated: 0, unchanged: 0, unavailable: 0 }, variants: 0, skipped: [], warnings: [], dropped_fields: {}, unchanged: true, shop_created: false, dry_run: false };
}

/**
 * A feed's row after an import that committed: the validators of the fetch, the options, the
 * schedule (--every: due a period from now) and the last result. A 304 writes only a scheduled
 * feed's last result (when it was checked), nothing for a feed that is not scheduled.
 */
async function recordResult(db: DB, opts: FeedImportOptions, url: string, res: FeedResponse, result: ImportResult, row: FeedRow | undefined): Promise<void> {
  const scheduled = opts.every ?? row?.interval_seconds ?? null;
  if (res.notModified && !scheduled) return;
  const counts = res.notModified ? null : JSON.stringify({ ...result.products, variants: result.variants, skipped: result.skipped.length });
  const status = res.notModified || result.unchanged ? 'unchanged' : 'imported';
  const options = JSON.stringify(opts.feedOptions ?? { format: opts.format, source: opts.source, partial: opts.partial });
  const shop = opts.shop.id;
  const schedule = opts.every ? sql`interval_seconds = ${opts.every}, next_due = now() + make_interval(secs => ${opts.every}),` : sql``;
  if (res.notModified) {
    await sql`update import_feeds set ${schedule} last_run_at = now(), last_status = 'unchanged', last_error = null where shop_id = ${shop} and url = ${url}`.execute(db);
    return;
  }
  const validators = sql`etag = ${res.etag}, last_modified = ${res.lastModified}, format = ${result.format}, options = ${options}::jsonb`;
  const last = sql`last_run_at = now(), last_status = ${status}, last_counts = ${counts}::jsonb, last_error = null`;
  if (opts.existingOnly || row) {
    await sql`update import_feeds set ${schedule} ${validators}, ${last} where shop_id = ${shop} and url = ${url}`.execute(db);
    return;
  }
  await sql`
    insert into import_feeds (shop_id, url, etag, last_modified, format, options, interval_seconds, next_due, last_run_at, last_status, last_counts)
    values (${shop}, ${url}, ${res.etag}, ${res.lastModified}, ${result.format}, ${options}::jsonb, ${scheduled},
            ${scheduled ? sql`now() + make_interval(secs => ${scheduled})` : null}, now(), ${status}, ${counts}::jsonb)
    on conflict (shop_id, url) do update set ${schedule} ${validators}, ${last}`.execute(db);
}
