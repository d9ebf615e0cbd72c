/**
 * The running server keeps scheduled feeds in step (docs/import-feeds.md): every
 * `feedTuning.pollMs` it claims due feeds one at a time (feeds.ts `claimDueFeed`: the claim moves
 * next_due a period on, so of several workers on one database one takes each feed per period) and
 * imports each like `ucp-storefront import URL` with the options stored for it. A run that fails
 * records its error as the feed's last result; the import itself is one transaction, so a worker
 * stopped or killed mid-import leaves the shop as it was, and the feed runs again a period later.
 */
import type { DB } from '../db/index.ts';
import { pollingWorker } from '../db/polling-worker.ts';
import { log } from '../lib/log.ts';
import type { FeedFetchOptions } from './feed-fetch.ts';
import { claimDueFeed, importWithFeeds, recordFeedError, type FeedRow } from './feeds.ts';

/** How often the server looks for due feeds; tests shorten it before starting a server. */
export const feedTuning = { pollMs: 30_000, maxPerPass: 20 };

export interface FeedWorker {
  /** One pass: runs due feeds until none is due (at most maxPerPass); resolves with how many ran. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export interface FeedWorkerOptions {
  mode: 'development' | 'production';
  pollMs?: number;
  /** Feeds one pass runs at most (default feedTuning.maxPerPass, read at each pass). */
  maxPerPass?: number;
  /** Fetch options for tests (limits, another fetch). */
  fetch?: Partial<FeedFetchOptions>;
}

export function startFeedWorker(db: DB, o: FeedWorkerOptions): FeedWorker {
  // Each pass runs due feeds until none is due (at most maxPerPass, read at each pass).
  const worker = pollingWorker(db, 'feeds', o.pollMs ?? feedTuning.pollMs, async (signal) => {
    let n = 0;
    while (n < (o.maxPerPass ?? feedTuning.maxPerPass) && !signal.aborted) {
      const feed = await claimDueFeed(db);
      if (!feed) break;
      n++;
      await runFeed(feed);
    }
    return n;
  });

  const runFeed = async (feed: FeedRow) => {
    try {
      const r = await importWithFeeds(db, {
        urls: [feed.url],
        shop: { id: feed.shop_id },
        format: feed.options.format,
        source: feed.options.source,
        partial: feed.options.partial,
        feedOptions: feed.options,
        existingOnly: true,
        fetch: { mode: o.mode, ...o.fetch, signal: worker.signal },
      });
      log.info('feeds', 'feed imported', { shop: feed.shop_id, url: feed.url, not_modified: r.feeds?.[0]?.not_modified ?? false, ...r.products });
    } catch (e) {
      const message = (e as Error).message ?? String(e);
      log.warn('feeds', 'feed import failed', { shop: feed.shop_id, url: feed.url, error: message });
      await recordFeedError(db, feed.shop_id, feed.url, message).catch((err) => log.error('feeds', 'recording a feed error failed', { err }));
    }
  };

  return { runOnce: worker.runOnce, stop: worker.stop };
}
