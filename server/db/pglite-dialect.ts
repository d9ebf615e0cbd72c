/**
 * A Kysely dialect for PGlite (PostgreSQL compiled to WASM), which runs in a worker thread of this
 * process (server/db/pglite-worker.mjs) so SQL and HTTP work use two cores.
 *
 * PGlite is a single connection, so the driver shares it under a FIFO lock: a transaction holds the
 * lock from BEGIN to COMMIT and no other query can slip in between; other queries are pipelined. This is the
 * reason the dialect exists (the published one lags PGlite releases and runs in-thread).
 */
import { Worker } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

interface Reply {
  id: number;
  rows?: unknown[];
  affectedRows?: number;
  /** A PostgreSQL error's message and fields (code, detail, constraint, ...). */
  error?: { message: string } & Record<string, unknown>;
}

/** The worker that owns the database, and the queries waiting for its answer. */
let compiled: Promise<WebAssembly.Module | undefined> | undefined;
/**
 * PostgreSQL's WASM, compiled once per process and handed to every database's worker (a module is
 * shared between threads, not copied): each worker compiling its own took about 0.5 s per open.
 * Undefined if it cannot be found; the worker then compiles its own.
 */
function pgliteWasm(): Promise<WebAssembly.Module | undefined> {
  compiled ??= readFile(join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.wasm'))
    .then((bytes) => WebAssembly.compile(bytes))
    .catch(() => undefined);
  return compiled;
}

export class EmbeddedDatabase {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private stopped: Error | undefined;
  /** The one connection's lock, shared by every Kysely connection handle (PGliteDriver). */
  readonly lock = new Lock();

  private constructor(
    private readonly worker: Worker,
    /** Runs once the database is closed (the data directory's lock). */
    private readonly onClose: () => void = () => {},
  ) {
    worker.on('message', (r: Reply) => {
      const p = this.pending.get(r.id);
      this.pending.delete(r.id);
      p?.resolve(r);
    });
    // A crashed worker fails every waiting and later query as a lost connection (503, retryable).
    const fail = (why: string) => {
      this.stopped ??= Object.assign(new Error(`The embedded database stopped: ${why}`), { code: '08006' });
      for (const p of this.pending.values()) p.reject(this.stopped);
      this.pending.clear();
    };
    worker.on('error', (e) => fail(e.message));
    worker.on('exit', (code) => fail(`worker exited with code ${code}`));
  }

  /**
   * Starts the worker and opens `dataDir` (`memory://` for a throwaway database); `setup` runs once.
   * `durable`: on disk, answer a write once its WAL is on stable storage (pglite-durable.mjs).
   * `sharedBuffersMb`: PostgreSQL's `shared_buffers` (PGlite's default when absent).
   */
  static async open(dataDir: string, setup: string, opts: { durable?: boolean; sharedBuffersMb?: number; onClose?: () => void } = {}): Promise<EmbeddedDatabase> {
    const wasm = await pgliteWasm();
    const settings = opts.sharedBuffersMb ? [`shared_buffers=${Math.max(1, Math.round(opts.sharedBuffersMb))}MB`] : [];
    const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), { workerData: { dataDir, setup, durable: opts.durable !== false, wasm, settings } });
    const db = new EmbeddedDatabase(worker, opts.onClose);
    return new Promise((resolve, reject) => {
      db.pending.set(0, {
        resolve: (r) => (r.error ? (void worker.terminate(), reject(db.toError(r.error))) : resolve(db)),
        reject,
      });
    });
  }

  private send(message: { sql: string; params: readonly unknown[] } | { close: true } | { stats: true }): Promise<Reply> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message });
    });
  }

  private toError(fields: NonNullable<Reply['error']>): Error {
    const { message, name: _name, ...rest } = fields;
    return Object.assign(new Error(message), rest);
  }

  async query<R>(sql: string, params: readonly unknown[]): Promise<{ rows: R[]; affectedRows?: number }> {
    const r = await this.send({ sql, params });
    if (r.error) throw this.toError(r.error);
    return { rows: (r.rows ?? []) as R[], affectedRows: r.affectedRows };
  }

  /**
   * The one connection as a pool of one (/metrics): in use while a transaction holds it or a
   * statement runs; waiting, the callers queued for the lock and the statements queued in the
   * worker behind the one it runs.
   */
  load(): { inUse: number; waiting: number } {
    const busy = this.lock.held || this.pending.size > 0;
    return { inUse: busy ? 1 : 0, waiting: this.lock.waiting + Math.max(0, this.pending.size - 1) };
  }

  /** Group-commit flushes by the number of commits each acknowledged, as [commits, flushes] (empty in memory). */
  async commitSizes(): Promise<Array<[number, number]>> {
    const r = await this.send({ stats: true });
    return ((r.rows?.[0] ?? {}) as { commit_sizes?: Array<[number, number]> }).commit_sizes ?? [];
  }

  /** Counts of WAL writes and group-commit flushes since the database opened (0 in memory). */
  async durabilityStats(): Promise<{ walWrites: number; walFlushes: number }> {
    const r = await this.send({ stats: true });
    const row = (r.rows?.[0] ?? {}) as { wal_writes?: number; wal_flushes?: number };
    return { walWrites: row.wal_writes ?? 0, walFlushes: row.wal_flushes ?? 0 };
  }

  async close(): Promise<void> {
    if (!this.stopped) await this.send({ close: true }).catch(() => {});
    this.stopped ??= Object.assign(new Error('The embedded database is closed.'), { code: '08003' });
    await this.worker.terminate();
    this.onClose();
  }
}

class Lock {
  private tail: Promise<void> = Promise.resolve();
  /** Acquisitions not yet granted, and whether one is held (/metrics). */
  waiting = 0;
  held = false;
  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    this.waiting++;
    const ready = this.tail.then(() => {
      this.waiting--;
      this.held = true;
      return () => {
        this.held = false;
        release();
      };
    });
    this.tail = this.tail.then(() => next);
    return ready;
  }
}

/**
 * A Kysely connection over the one embedded database. Outside a transaction a query holds the lock
 * only while it is posted: the worker runs queries in arrival order, so several requests' statements
 * can be queued back to back (pipelined) and the worker never waits for this thread between them.
 * A transaction holds the lock from BEGIN until its COMMIT or ROLLBACK has been answered, so no
 * other statement can land inside it.
 */
class PGliteConnection implements DatabaseConnection {
  /** Set while this connection runs a transaction: the lock's release. */
  release: (() => void) | undefined;
  /** A BEGIN posted but not yet answered: the transaction's first statement goes right behind it. */
  begun: Promise<unknown> | undefined;

  constructor(
    private readonly db: EmbeddedDatabase,
    private readonly lock: Lock,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    let pending: Promise<{ rows: R[]; affectedRows?: number }>;
    if (this.release) {
      const begun = this.begun;
      this.begun = undefined;
      pending = this.db.query<R>(query.sql, query.parameters);
      // The worker runs messages in order, so BEGIN has been answered by the time this one is.
      if (begun) await begun.catch((e) => pending.catch(() => {}).then(() => Promise.reject(e)));
    } else {
      const release = await this.lock.acquire();
      try {
        pending = this.db.query<R>(query.sql, query.parameters); // posted synchronously
      } finally {
        release();
      }
    }
    const result = await pending;
    const affected = result.affectedRows;
    return {
      rows: result.rows,
      ...(affected !== undefined ? { numAffectedRows: BigInt(affected) } : {}),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on the embedded database');
  }
}

class PGliteDriver implements Driver {
  private readonly lock: Lock;

  constructor(private readonly db: EmbeddedDatabase) {
    this.lock = db.lock;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    // One physical connection; each acquisition gets its own handle (and its own transaction state).
    return new PGliteConnection(this.db, this.lock);
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = conn as PGliteConnection;
    c.release = await this.lock.acquire();
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    // Not awaited: one round trip fewer while the lock is held (checked with the next statement).
    c.begun = this.db.query(`begin${level}`, []);
    c.begun.catch(() => {}); // observed later; never an unhandled rejection

  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await this.finish(conn as PGliteConnection, 'commit');
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await this.finish(conn as PGliteConnection, 'rollback');
  }

  private async finish(c: PGliteConnection, statement: 'commit' | 'rollback'): Promise<void> {
    let ended: Promise<unknown>;
    try {
      const begun = c.begun;
      c.begun = undefined;
      if (begun) await begun; // an empty transaction
      // The lock goes as soon as COMMIT is posted, not when it is answered: the worker runs messages
      // in arrival order, so whatever is posted next runs after this transaction ended, and the
      // answer (which waits for the group-commit flush, pglite-durable.mjs) no longer holds every
      // other transaction behind one disk flush. A failed COMMIT ends the transaction too.
      ended = this.db.query(statement, []);
    } finally {
      this.end(c);
    }
    await ended;
  }

  private end(c: PGliteConnection): void {
    const release = c.release;
    c.release = undefined;
    release?.();
  }

  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    this.end(conn as PGliteConnection); // a transaction Kysely never finished must not keep the lock
  }

  async destroy(): Promise<void> {
    await this.db.close();
  }
}

export class PGliteDialect implements Dialect {
  constructor(private readonly db: EmbeddedDatabase) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.db);
  }
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}
