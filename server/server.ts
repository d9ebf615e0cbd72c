/**
 * Starting and stopping a server process: open the database, migrate, seed the demo when empty,
 * listen. Used by `npm start` and by the integration tests, so tests run the real thing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkConfig, loadConfig, localUrl, logJson, type Config } from './config.ts';
import { configureLog, log } from './lib/log.ts';
import { openDatabase, type DB } from './db/index.ts';
import { recordAddress } from './db/data-dir-lock.ts';
import { createRequestListener } from './app.ts';
import { watchDatabase } from './http/metrics.ts';
import { prepareDatabase } from './seed/prepare.ts';
import { startCartPurge } from './core/carts/carts.ts';
import { startWebhookWorker } from './core/orders/webhooks.ts';
import { startFeedWorker } from './import/feed-worker.ts';
import { DEFAULT_INDEX_BUDGET_MB, dropCatalogIndexes, indexTuning, setSearchIndexBudget } from './core/search/catalog-index.ts';
import { useKeyEncryptionSecret } from './core/access/signing-keys.ts';
import { ensurePublished } from './storefront/host-archive.ts';
import { watchCommits } from './db/commit-probe.ts';

export interface RunningServer {
  db: DB;
  config: Config;
  port: number;
  /** `http://127.0.0.1:PORT` */
  url: string;
  close(): Promise<void>;
}

/** Whether an empty database gets the demo shops: SEED_DEMO when set, else development mode only. */
export function demoShops(config: Pick<Config, 'seedDemo' | 'mode'>): boolean {
  return config.seedDemo ?? config.mode === 'development';
}

/** Config's WEBHOOK_* settings as the worker's options (unset ones keep the worker's defaults). */
function webhookTiming(config: Config) {
  const w = config.webhooks ?? {};
  return {
    ...(w.pollMs ? { intervalMs: w.pollMs } : {}),
    ...(w.retryBaseMs ? { retryBaseMs: w.retryBaseMs } : {}),
    ...(w.maxAttempts ? { maxAttempts: w.maxAttempts } : {}),
    ...(w.leaseMs ? { leaseMs: w.leaseMs } : {}),
  };
}

export async function startServer(overrides: Partial<Config> = {}, opts: { seed?: boolean } = {}): Promise<RunningServer> {
  const config = { ...loadConfig(), ...overrides };
  checkConfig(config);
  configureLog({ json: logJson(config) });
  useKeyEncryptionSecret(config.keyEncryptionSecret);
  const db = await openDatabase({ ...config, lockRole: 'server' });
  // Demo users and apps (docs/oauth.md): development mode only, never in production.
  await prepareDatabase(db, { demo: opts.seed !== false && demoShops(config), accounts: opts.seed !== false && config.mode === 'development' });
  // This build's host.js files join the archive that keeps earlier builds' files answering.
  await ensurePublished(db);
  // No index is built here: a shop's is built in the background when it is first searched (its
  // searches ask the database meanwhile), so start time and idle memory do not grow with the shops.
  setSearchIndexBudget((config.searchIndexBudgetMb ?? DEFAULT_INDEX_BUDGET_MB) * 2 ** 20);
  const { listener, drain } = createRequestListener({ db, config });
  const unwatch = watchDatabase(db); // /metrics reads its pool, search indexes and webhook queue
  const server: Server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject); // e.g. EADDRINUSE: startup fails instead of hanging
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  // The CLI's advice names this address (data-dir-lock.ts); a wildcard host is reached on loopback.
  if (!config.databaseUrl && !config.dataDir.startsWith('memory://')) recordAddress(config.dataDir, localUrl(config.host, port));
  const stopPurge = startCartPurge(db);
  // PostgreSQL: commits probed in the background; a lost synchronous standby stops new writes
  // (503) instead of letting them pile up and spend the pool (db/write-gate.ts).
  const commits = watchCommits(db);
  if (config.searchIndexCheckMs) indexTuning.checkEveryMs = config.searchIndexCheckMs;
  // Webhook deliveries (docs/webhooks.md); poll/retry timings from WEBHOOK_* (config.ts) for tests and ops.
  const webhooks = startWebhookWorker(db, { mode: config.mode, ...webhookTiming(config) });
  // Scheduled feeds (docs/import-feeds.md): each due feed claimed by one worker of the database.
  const feeds = startFeedWorker(db, { mode: config.mode });
  return {
    db,
    config: { ...config, port },
    port,
    url: localUrl(config.host, port),
    async close() {
      stopPurge();
      await webhooks.stop();
      await feeds.stop();
      // Stop accepting, let the handlers in flight finish (a client that hung up does not stop its
      // handler), then close the database under nobody.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await drain(10_000);
      server.closeAllConnections();
      await closed;
      unwatch();
      await commits.stop();
      await db.destroy();
      dropCatalogIndexes(db);
    },
  };
}
