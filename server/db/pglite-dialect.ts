/**
 * A Kysely dialect for PGlite (PostgreSQL compiled to WASM), which runs in a worker thread of this
 * process (server/db/pglite-worker.mjs) so SQL and HTTP work use two cores.
 *
 * PGlite is a single connection, so the driver hands it out under a FIFO lock: a transaction
 * holds the lock from BEGIN to COMMIT and no other query can slip in between. This is the
 * reason the dialect exists (the published one lags PGlite releases and runs in-thread).
 */
import { Worker } from 'node:worker_threads';
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
export class EmbeddedDatabase {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private stopped: Error | undefined;

  private constructor(private readonly worker: Worker) {
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

  /** Starts the worker and opens `dataDir` (`memory://` for a throwaway database); `setup` runs once. */
  static open(dataDir: string, setup: string): Promise<EmbeddedDatabase> {
    const worker = new Worker(new URL('./pglite-worker.mjs', import.meta.url), { workerData: { dataDir, setup } });
    const db = new EmbeddedDatabase(worker);
    return new Promise((resolve, reject) => {
      db.pending.set(0, {
        resolve: (r) => (r.error ? (void worker.terminate(), reject(db.toError(r.error))) : resolve(db)),
        reject,
      });
    });
  }

  private send(message: { sql: string; params: readonly unknown[] } | { close: true }): Promise<Reply> {
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

  async close(): Promise<void> {
    if (!this.stopped) await this.send({ close: true }).catch(() => {});
    this.stopped ??= Object.assign(new Error('The embedded database is closed.'), { code: '08003' });
    await this.worker.terminate();
  }
}

class Lock {
  private tail: Promise<void> = Promise.resolve();
  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const ready = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return ready;
  }
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly db: EmbeddedDatabase) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.db.query<R>(query.sql, query.parameters);
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
  private readonly lock = new Lock();
  private readonly releases = new WeakMap<DatabaseConnection, () => void>();
  private readonly connection: PGliteConnection;

  constructor(private readonly db: EmbeddedDatabase) {
    this.connection = new PGliteConnection(db);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.lock.acquire();
    // One physical connection: wrap it so each acquisition has its own release handle.
    const handle: DatabaseConnection = {
      executeQuery: (q) => this.connection.executeQuery(q),
      streamQuery: () => this.connection.streamQuery(),
    };
    this.releases.set(handle, release);
    return handle;
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await conn.executeQuery(CompiledQuery.raw(`begin${level}`));
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    this.releases.get(conn)?.();
    this.releases.delete(conn);
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
