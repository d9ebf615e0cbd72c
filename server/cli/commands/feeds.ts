/**
 * `ucp-storefront feeds list|remove` (docs/cli.md "feeds", docs/import-feeds.md): the feeds a shop
 * imports by URL on a schedule (`import URL --every 1h`), each with its last result, and stopping
 * one. With the embedded database held by a running server, through its control routes
 * (server/control/routes.ts), as `import` does.
 */
import { loadConfig } from '../../config.ts';
import { runningServer } from '../server-address.ts';
import { formatEvery, listFeeds, removeFeed, type FeedRow } from '../../import/feeds.ts';
import { CliError, printList, printRecord, required, subcommand, UsageError, type Command, type Io } from '../cli.ts';
import { withDb } from '../open.ts';

export const feeds: Command = {
  name: 'feeds',
  summary: 'list the feeds imported by URL on a schedule, with their last result; remove one',
  usage: `usage: ucp-storefront feeds list [--shop ID] [--json]
       ucp-storefront feeds remove --shop ID --url URL [--json]

  list     every scheduled feed (or one shop's): its URL, period, when it is due next and its last
           result (when; created/updated/unchanged/unavailable counts, unchanged, or the error)
  remove   stops a feed: the server no longer imports it (its products stay as they are)

  Schedule a feed with: ucp-storefront import --shop ID --every 1h URL`,
  options: { shop: { type: 'string' }, url: { type: 'string' } },
  positionals: true,
  async run({ values, positionals, io }) {
    const sub = subcommand(positionals, ['list', 'remove']);
    const json = !!values.json;
    const config = loadConfig(io.env);
    const lock = await runningServer(config, io);
    const server = lock?.url && lock.token ? { url: lock.url, token: lock.token } : null;
    if (sub === 'list') {
      if (values.url !== undefined) throw new UsageError('list takes only --shop');
      const rows = server ? await control<FeedRow[]>(server, 'GET', new URLSearchParams(values.shop ? { shop: values.shop } : {})) : await withDb(io, (db) => listFeeds(db, values.shop));
      return printFeeds(io, json, rows);
    }
    required(values, 'shop', 'url');
    const q = new URLSearchParams({ shop: values.shop, url: values.url });
    const removed = server ? (await control<{ removed: boolean }>(server, 'DELETE', q)).removed : await withDb(io, (db) => removeFeed(db, values.shop, values.url));
    if (!removed) throw new CliError(`No feed ${values.url} for shop ${values.shop}.`);
    printRecord(io, json, { shop: values.shop, url: values.url, removed: true }, ['The server no longer imports it; its products stay as they are.']);
  },
};

function printFeeds(io: Io, json: boolean, rows: FeedRow[]): void {
  const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
  printList(io, json, [['shop', 'SHOP'], ['url', 'URL'], ['every', 'EVERY'], ['next_due', 'NEXT'], ['last_run_at', 'LAST RUN'], ['result', 'LAST RESULT']],
    rows.map((f) => ({
      shop: f.shop_id,
      url: f.url,
      every: formatEvery(f.interval_seconds!),
      next_due: iso(f.next_due),
      last_run_at: iso(f.last_run_at),
      ...(json ? { last_status: f.last_status, last_counts: f.last_counts, last_error: f.last_error } : { result: lastResult(f) }),
    })));
}

/** The last result in words: `unchanged`, the counts, or `failed: why`. */
export function lastResult(f: Pick<FeedRow, 'last_status' | 'last_counts' | 'last_error'>): string {
  if (f.last_status === 'failed') return `failed: ${f.last_error}`;
  if (f.last_status === 'unchanged' && !f.last_counts) return 'unchanged (not modified)';
  const c = f.last_counts;
  if (!c) return 'not run yet';
  return `${f.last_status}: created ${c.created}, updated ${c.updated}, unchanged ${c.unchanged}, unavailable ${c.unavailable}`;
}

async function control<T>(server: { url: string; token: string }, method: string, q: URLSearchParams): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${server.url}/control/feeds?${q}`, { method, headers: { authorization: `Bearer ${server.token}` } });
  } catch (e) {
    throw new CliError(`the running server at ${server.url} (recorded in DATA_DIR's lock) did not answer: ${(e as Error).message}`);
  }
  const body = (await res.json().catch(() => ({}))) as T & { message?: string };
  if (!res.ok) throw new CliError(body.message ?? `the server answered ${res.status}`);
  return body;
}
