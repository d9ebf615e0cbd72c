/**
 * `npm run start:cluster` (or `WORKERS=N tsx server/cluster.ts`): N stateless server processes on
 * one database, sharing one port (node:cluster hands accepted connections to the workers).
 *
 * The primary opens the database once to run migrations and the first-run seeds, closes it, then
 * forks the workers; a worker that dies is replaced (with a short back-off). Nothing needed for
 * correctness lives in a worker's memory (docs/deploy.md), so any worker may answer any request.
 *
 * The embedded database (PGlite) can be opened by one process only: WORKERS > 1 requires
 * DATABASE_URL (a PostgreSQL server). Default WORKERS: the CPU count with DATABASE_URL, else 1.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { checkConfig, ConfigError, loadConfig, logJson, type Config } from './config.ts';
import { configureLog, log } from './lib/log.ts';
import { useKeyEncryptionSecret } from './core/access/signing-keys.ts';
import { openDatabase } from './db/index.ts';
import { prepareDatabase } from './seed/prepare.ts';
import { demoShops, startServer } from './server.ts';
import { serveClusterMetrics } from './http/metrics-cluster.ts';
import { logFatalErrors, notStarting } from './main.ts';

interface Ready {
  type: 'ready';
  port: number;
}

/** The settings, checked once here rather than per respawned worker; exits on a refusal. */
function primarySettings(): { config: Config; workers: number } {
  const config = loadConfig();
  configureLog({ json: logJson(config) });
  logFatalErrors();
  try {
    checkConfig(config); // as each worker's startServer will: refuse once here, not per respawned worker
  } catch (e) {
    notStarting(e, config);
  }
  useKeyEncryptionSecret(config.keyEncryptionSecret);
  const workers = config.workers ?? (config.databaseUrl ? availableParallelism() : 1);
  if (!Number.isInteger(workers) || workers < 1) notStarting(new ConfigError(`WORKERS must be a positive integer (got '${config.workers}').`), config);
  if (workers > 1 && !config.databaseUrl) {
    notStarting(
      new ConfigError(
        `WORKERS=${workers} needs DATABASE_URL: the embedded database (${config.dataDir}) can be opened by one process only. ` +
          'Set DATABASE_URL=postgres://... to run several processes, or use WORKERS=1 / npm start.',
      ),
      config,
    );
  }
  return { config, workers };
}

/** Migrations and first-run seeds once, here, before any worker serves; exits naming the cause when the database fails. */
async function prepareOnce(config: Config): Promise<void> {
  try {
    const db = await openDatabase(config); // a DATABASE_URL that cannot work is a ConfigError (db/hosts.ts)
    try {
      await prepareDatabase(db, { demo: demoShops(config), accounts: config.mode === 'development' });
    } finally {
      await db.destroy();
    }
  } catch (e) {
    notStarting(e, config);
  }
}

/** Forks the workers, replaces one that dies (backing off when they pile up), announces once all are ready. */
function superviseWorkers(config: Config, workers: number): { stopping: () => boolean; stop: () => void } {
  let stopping = false;
  let announced = false;
  const ready = new Set<number>();
  const restarts: number[] = [];

  const fork = (): Worker => {
    const w = cluster.fork({ UCP_CLUSTER_WORKER: '1' });
    w.on('message', (m: Ready) => {
      if (m?.type !== 'ready') return;
      ready.add(w.id);
      if (!announced && ready.size === workers) {
        announced = true;
        log.info(
          'cluster',
          `UCP storefront cluster listening on http://${config.host}:${m.port} (${workers} worker${workers > 1 ? 's' : ''}, ` +
            `${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`})`,
        );
      }
    });
    return w;
  };

  cluster.on('exit', (w, code, signal) => {
    ready.delete(w.id);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    log.error('cluster', 'worker exited; starting a new one', { pid: w.process.pid, exit: signal ?? code });
    const now = Date.now();
    restarts.push(now);
    while (restarts.length && restarts[0] < now - 60_000) restarts.shift();
    // A worker that cannot start at all should not spin: back off when restarts pile up.
    setTimeout(fork, restarts.length > 5 ? 5_000 : 100);
  });
  for (let i = 0; i < workers; i++) fork();
  return {
    stopping: () => stopping,
    stop: () => {
      stopping = true;
    },
  };
}

/** SIGINT/SIGTERM: SIGTERM to every worker (each stops cleanly), exit when all are gone or after 10 s. */
function stopOnSignals(supervisor: { stopping: () => boolean; stop: () => void }): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (supervisor.stopping()) return;
      supervisor.stop();
      log.info('cluster', `${signal}: stopping the workers`);
      const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
      if (!alive.length) process.exit(0);
      for (const w of alive) w.process.kill('SIGTERM');
      setTimeout(() => process.exit(0), 10_000).unref();
    });
  }
}

async function primary(): Promise<void> {
  const { config, workers } = primarySettings();
  await prepareOnce(config);
  // A scrape of any worker's /metrics is answered with every worker's (http/metrics-cluster.ts).
  serveClusterMetrics();
  stopOnSignals(superviseWorkers(config, workers));
}

async function worker(): Promise<void> {
  // Migrations already ran in the primary; startServer's own pass is a no-op check. No seeding here.
  const running = await startServer({}, { seed: false });
  logFatalErrors(); // after startServer set the log's format
  process.send?.({ type: 'ready', port: running.port } satisfies Ready);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      running.close().finally(() => process.exit(0));
    });
  }
}

if (cluster.isPrimary) await primary();
else await worker();
