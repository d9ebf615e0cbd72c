/**
 * Opens the database: embedded PGlite in DATA_DIR by default, a PostgreSQL server when DATABASE_URL
 * is set. Both speak the same SQL through Kysely, so every query in the code base runs on both.
 */
import { mkdirSync } from 'node:fs';
import { Kysely, Migrator, PostgresDialect, sql, type MigrationProvider } from 'kysely';
import type { Database } from './schema.ts';
import { EmbeddedDatabase, PGliteDialect } from './pglite-dialect.ts';
import { migrations } from './migrations/index.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { databaseRecovered } from '../lib/outage.ts';
import { log } from '../lib/log.ts';
import { WriteGate } from './write-gate.ts';

export type DB = Kysely<Database>;

/** Databases owned by this process alone (embedded): keyed by the adapter every transaction shares. */
const singleWriter = new WeakSet<object>();

/** Is this process the only writer of `db` (or of the database a transaction of it runs on)? */
export function isSingleWriter(db: DB): boolean {
  return singleWriter.has(db.getExecutor().adapter);
}

/**
 * One object per database, shared by the Kysely instance and every transaction opened from it (they
 * share the dialect's adapter): the key of per-database state (caches, queues), found the same from
 * inside a transaction.
 */
export function databaseIdentity(db: DB): object {
  return db.getExecutor().adapter;
}

/** What /metrics reads of a database's load: connections (or embedded statements) busy and waiting. */
export interface DatabaseLoad {
  /** PostgreSQL: connections checked out; embedded: 1 while its one connection runs a statement or a transaction holds it. */
  inUse: number;
  /** PostgreSQL: requests waiting for a connection; embedded: queries and transactions queued for the one connection. */
  waiting: number;
}

const loads = new WeakMap<object, { load(): DatabaseLoad; commitSizes?(): Promise<Array<[number, number]>> }>();

/** The database's load now (server/http/metrics.ts). */
export function databaseLoad(db: DB): DatabaseLoad {
  return loads.get(databaseIdentity(db))?.load() ?? { inUse: 0, waiting: 0 };
}

/** Embedded, durable: how many group-commit flushes acknowledged n commits, as [n, flushes] since it opened. */
export function groupCommitSizes(db: DB): Promise<Array<[number, number]>> {
  return loads.get(databaseIdentity(db))?.commitSizes?.() ?? Promise.resolve([]);
}

/** Connections a PostgreSQL server's pool may open, by adapter (the embedded database has one). */
const poolSizes = new WeakMap<object, number>();

/** How many statements `db` can run at once: its pool's size on PostgreSQL, 1 on the embedded database. */
export function connectionsOf(db: DB): number {
  return poolSizes.get(db.getExecutor().adapter) ?? 1;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  /** Directory for PGlite; `memory://` for a throwaway in-memory database (tests). */
  dataDir: string;
  /** On disk: acknowledge commits once flushed to stable storage (default true; config.ts). */
  durableCommits?: boolean;
  /** Embedded: `shared_buffers` in MB (config.ts); PGlite's default when absent. */
  embeddedSharedBuffersMb?: number;
  /** config.ts: pool size and connection wait (PostgreSQL), random page cost (both). */
  pgPoolSize?: number;
  pgConnectTimeoutMs?: number;
  /** A statement unanswered this long closes its connection (failover.ts); 0: no limit. */
  pgQueryTimeoutMs?: number;
  randomPageCost?: number;
  /** Embedded: the server opens it (its lock says `starting` until it listens: data-dir-lock.ts). */
  lockRole?: 'server';
}

/**
 * How long a PostgreSQL statement may go unanswered (PG_QUERY_TIMEOUT_MS). Long enough for the
 * longest statement the server runs itself (a bulk load's index merge, ANALYZE, a migration: seconds
 * at 100,000 products), short enough that a request to a silent host answers 503 within half a
 * minute rather than the ~11 minutes TCP keepalive takes to give up (docs/deploy.md).
 */
export const QUERY_TIMEOUT_MS = 30_000;

/**
 * Planner cost of a random page read. PostgreSQL's default (4) assumes spinning disks; on SSDs and
 * on the in-memory embedded database a random read costs about as much as a sequential one, and
 * with the default the planner scans the whole search table instead of using its GIN index
 * (7-9 ms instead of under 2 ms per query at 10k products). Override with PG_RANDOM_PAGE_COST.
 */
const RANDOM_PAGE_COST = 1.1;

export async function openDatabase(opts: DatabaseOptions): Promise<DB> {
  const randomPageCost = opts.randomPageCost ?? RANDOM_PAGE_COST;
  if (opts.databaseUrl) {
    const { default: pg } = await import('pg');
    // bigint columns hold minor units and positions; they fit in a JS number.
    pg.types.setTypeParser(20, (v) => Number(v));
    // Several hosts and target_session_attrs (libpq's rule): each new connection goes to the host
    // that qualifies, so a promoted standby is reached without a restart (failover.ts).
    const { failoverConnection } = await import('./failover.ts');
    const connectTimeoutMs = opts.pgConnectTimeoutMs ?? 5000;
    // Session settings of every connection, the request pool's and the commit probe's alike.
    const options = `-c random_page_cost=${randomPageCost}`;
    const pool = new pg.Pool({
      ...failoverConnection(opts.databaseUrl, { connectTimeoutMs, queryTimeoutMs: opts.pgQueryTimeoutMs ?? QUERY_TIMEOUT_MS, options }),
      max: opts.pgPoolSize ?? 10,
      // A request waiting for a connection fails (503 + Retry-After) instead of hanging forever.
      connectionTimeoutMillis: connectTimeoutMs,
    });
    // An idle pooled connection that the server drops (restart, failover) emits 'error' on the pool;
    // unhandled, that would kill the process. The pool discards the client and reconnects on demand.
    pool.on('error', (e) => log.error('db', 'idle connection lost', { err: e }));
    // A checked-out connection (e.g. inside a transaction, between two queries) that the server
    // drops emits 'error' on the client itself: without a listener the process would crash. Its
    // next query fails instead (503), and the pool discards the broken client on release.
    pool.on('connect', (client) => {
      client.on('error', (e) => log.error('db', 'connection lost', { err: e }));
      // A new connection after requests were answered 503: the outage is over (lib/outage.ts).
      databaseRecovered('a new connection', { host: `${client.host}:${client.port}` });
    });
    const gate = new WriteGate();
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [gate] });
    gates.set(db.getExecutor().adapter, gate);
    // The commit probe's own two connections (one probes, one can cancel it): a pool spent by
    // stalled writes must not keep the probe from finding out why (commit-probe.ts watchCommits).
    probeOpeners.set(db.getExecutor().adapter, () => {
      const probePool = new pg.Pool({
        ...failoverConnection(opts.databaseUrl!, { connectTimeoutMs: PROBE_CONNECT_MS, queryTimeoutMs: QUERY_TIMEOUT_MS, options }),
        max: 2,
        connectionTimeoutMillis: PROBE_CONNECT_MS,
        idleTimeoutMillis: 60_000,
        allowExitOnIdle: true,
      });
      probePool.on('error', () => {}); // an idle probe connection lost: the next probe opens another
      probePool.on('connect', (client) => client.on('error', () => {}));
      return new Kysely<Database>({ dialect: new PostgresDialect({ pool: probePool }) });
    });
    poolSizes.set(db.getExecutor().adapter, pool.options.max);
    loads.set(db.getExecutor().adapter, { load: () => ({ inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount }) });
    return db;
  }
  let release = () => {};
  if (!opts.dataDir.startsWith('memory://')) {
    mkdirSync(opts.dataDir, { recursive: true });
    release = lockDataDir(opts.dataDir, opts.lockRole); // one process per data directory (data-dir-lock.ts)
  }
  let embedded: EmbeddedDatabase;
  try {
    embedded = await EmbeddedDatabase.open(opts.dataDir, `set random_page_cost = ${randomPageCost}`, { durable: opts.durableCommits !== false, sharedBuffersMb: opts.embeddedSharedBuffersMb, onClose: release });
  } catch (e) {
    release();
    throw e;
  }
  const db = new Kysely<Database>({ dialect: new PGliteDialect(embedded) });
  // Kysely starts its driver on the first query and only stops a started one: start it now, so
  // destroy() always stops the worker and frees the directory, even when nothing was queried.
  await sql`select 1`.execute(db);
  singleWriter.add(db.getExecutor().adapter);
  loads.set(db.getExecutor().adapter, { load: () => embedded.load(), commitSizes: () => embedded.commitSizes() });
  return db;
}

/** PostgreSQL: each database's write gate (write-gate.ts) and the opener of its probe's own small pool. */
const gates = new WeakMap<object, WriteGate>();
const probeOpeners = new WeakMap<object, () => DB>();
/** How long the probe's pool waits for a connection. */
const PROBE_CONNECT_MS = 1500;

/** The write gate of a PostgreSQL database (none on the embedded one: nothing replicates there). */
export function writeGateOf(db: DB): WriteGate | undefined {
  return gates.get(databaseIdentity(db));
}

/** PostgreSQL: a second pool of two connections to the same server, for the commit probe; the caller destroys it. */
export function openProbeDatabase(db: DB): DB | undefined {
  return probeOpeners.get(databaseIdentity(db))?.();
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Applies pending migrations; throws (and the process stops) if one fails. */
export async function migrateToLatest(db: DB): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    // No migration named: none ran (the database could not be reached, or refused us) — say so,
    // and keep the database's error as the cause (server/db/start-failure.ts reads its code).
    const what = failed ? `migration ${failed.migrationName} failed` : 'migrations could not run';
    throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
