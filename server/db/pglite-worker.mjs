// @ts-check
/**
 * The embedded database's own thread. PGlite is PostgreSQL compiled to WASM: every query's CPU time
 * blocks the thread it runs on. Here that is this worker, not the server's event loop, so HTTP
 * parsing, rendering and JSON work overlap with SQL on a second core, and a slow query no longer
 * stalls every other request (measured in docs/benchmarks.md).
 *
 * Plain JavaScript on purpose: Node 20 does not apply the parent's TypeScript loader (tsx) to worker
 * threads, and this file is small enough to read whole.
 *
 * Protocol (server/db/pglite-dialect.ts is the other end, with the message types): the parent posts
 * `{ id, sql, params }`, the worker answers `{ id, rows, affectedRows }` or `{ id, error }`;
 * `{ id, close: true }` closes the database; `{ id, stats: true }` answers one row with the counts of
 * WAL writes and group-commit flushes (tests and benchmarks) and the flushes by commits acknowledged (/metrics). Messages run one at a time, in the order they arrive:
 * the parent may post several statements without waiting (see the dialect's lock).
 * The first message, id 0, says the database is open (or why it could not be).
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite, parse, protocol, types } from '@electric-sql/pglite';
import { DurableNodeFS, WalFlusher, durableStartParams } from './pglite-durable.mjs';

/**
 * A new database starts from a snapshot of an empty cluster instead of running initdb: initdb in WASM
 * takes about 2 s on a quiet machine (5-6 s on a busy one), restoring the snapshot about 0.35 s
 * (docs/benchmarks.md). Tests open hundreds of in-memory databases; every sandbox, demo and
 * `seed` into a new data directory opens one on disk.
 * The snapshot is made by the first process that needs it, right after initdb (before any setting
 * or data), and kept in the OS temp directory per PGlite version; a file that does not restore is
 * removed and the cluster made from scratch. On disk this changes nothing about durability: PGlite's
 * own initdb also runs in memory and unpacks its result into the directory the same way.
 */
function snapshotFile() {
  const pkg = join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), '..', 'package.json');
  return join(tmpdir(), `ucp-storefront-pglite-${JSON.parse(readFileSync(pkg, 'utf8')).version}-empty.tar`);
}

/** Saves a new cluster's files as the snapshot: written whole under a private name, then renamed. */
async function saveSnapshot(/** @type {PGlite} */ db) {
  const file = snapshotFile();
  await db.exec('CHECKPOINT');
  const bytes = Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer());
  const tmp = `${file}.${process.pid}.${threadId}`;
  await writeFile(tmp, bytes)
    .then(() => rename(tmp, file))
    .catch(() => rm(tmp, { force: true }));
  return bytes;
}

/**
 * A database restored from `snapshot` (about 40 MB). PGlite keeps the options object it was given,
 * and with it the Blob: an idle server would hold that copy for ever. So the Blob goes in an object
 * of ours that PGlite uses as is (the object form of `create`; the string form makes a copy), and is
 * taken out again once PGlite has read it; its copies are then garbage for `collectOnce()`.
 * @param {import('@electric-sql/pglite').PGliteOptions} options @param {Buffer} snapshot
 */
async function createFromSnapshot(options, snapshot) {
  const o = { ...options, loadDataDir: new Blob([snapshot]) };
  try {
    return await PGlite.create(o);
  } finally {
    delete o.loadDataDir;
  }
}

/**
 * One full garbage collection, right after the database opened. An idle worker allocates nothing,
 * so V8 would never collect the snapshot's copies made at the restore or the first statements'
 * garbage, and the idle server would keep them in its RSS (docs/packaging.md "Sandbox memory").
 * `--expose-gc` set at run time applies to contexts made afterwards, hence the new context (the way
 * test runners such as Jest do it).
 */
async function collectOnce() {
  const [{ setFlagsFromString }, { runInNewContext }] = await Promise.all([import('node:v8'), import('node:vm')]);
  setFlagsFromString('--expose-gc');
  runInNewContext('gc')();
}

/** @param {import('@electric-sql/pglite').PGliteOptions} options */
async function createInMemory(options) {
  const file = snapshotFile();
  const snapshot = await readFile(file).catch(() => null);
  if (snapshot) {
    try {
      return await createFromSnapshot({ ...options, dataDir: 'memory://' }, snapshot);
    } catch {
      await rm(file, { force: true });
    }
  }
  const db = await PGlite.create('memory://', options);
  await saveSnapshot(db);
  return db;
}

/**
 * A database in `dataDir`: a directory without a cluster gets the snapshot's (made first, in memory,
 * when there is none). `options()` gives fresh options each time (a file system object is used once).
 * A snapshot that fails to restore leaves nothing behind: the entries it added are removed (the
 * directory had no cluster, and the lock file was there before), the file too, and a new one is
 * made and tried once; should that fail as well, initdb runs in the directory as PGlite does it.
 * @param {string} dataDir @param {() => import('@electric-sql/pglite').PGliteOptions} options
 * @param {boolean} [retried] a snapshot already failed once: the next failure runs initdb here
 */
async function createOnDisk(dataDir, options, retried = false) {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return PGlite.create(options());
  const file = snapshotFile();
  let snapshot = await readFile(file).catch(() => null);
  if (!snapshot) {
    const scratch = await PGlite.create('memory://', { parsers: options().parsers, pgliteWasmModule: options().pgliteWasmModule });
    snapshot = await saveSnapshot(scratch).finally(() => scratch.close());
  }
  await mkdir(dataDir, { recursive: true }); // as PGlite's own file system would
  const before = new Set(await readdir(dataDir));
  try {
    return await createFromSnapshot(options(), snapshot);
  } catch {
    for (const entry of await readdir(dataDir)) if (!before.has(entry)) await rm(join(dataDir, entry), { recursive: true, force: true });
    await rm(file, { force: true });
    return retried ? PGlite.create(options()) : createOnDisk(dataDir, options, true);
  }
}

/**
 * Statements with parameters run as named prepared statements: parsed and planned once per SQL text,
 * then each call is one Bind + Describe + Execute + Sync in a single call into PostgreSQL, where
 * PGlite's `query` sends Parse, Describe, Bind, Describe, Execute and Sync one by one and parses
 * and plans the text every time (a cart insert: 214-258 µs that way, docs/benchmarks.md). Results
 * are read by PGlite's own parser, so rows come back exactly as `query` returns them. Kysely writes
 * one text per shape (an `in` list of n ids is its own text), so the cache is bounded; past it, and
 * for statements without parameters (begin, commit, DDL), `query` as before.
 * @param {PGlite} db
 */
function preparedRunner(db) {
  const { serialize } = protocol;
  /** @type {Map<string, { name: string, types: number[] }>} */
  const statements = new Map();
  const MAX = 1000;
  let named = 0;
  const concat = (/** @type {Uint8Array[]} */ parts) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  /** @param {string} sql @param {unknown[]} params */
  return async (sql, params) => {
    let st = statements.get(sql);
    if (!st) {
      if (!params?.length || statements.size >= MAX) return db.query(sql, params, { rowMode: 'object' });
      const name = `ucp_${++named}`;
      const { messages } = await db.execProtocol(concat([serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name }), serialize.sync()]), { syncToFs: false });
      st = { name, types: parse.parseDescribeStatementResults(messages) };
      statements.set(sql, st);
    }
    const { types: oids } = st;
    const values = params.map((v, i) => {
      if (v === null || v === undefined) return null;
      const serializer = db.serializers[oids[i]];
      return serializer ? serializer(v) : String(v);
    });
    try {
      const { messages } = await db.execProtocol(concat([serialize.bind({ statement: st.name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]));
      return parse.parseResults(messages, db.parsers, { rowMode: 'object' })[0];
    } catch (e) {
      // A table the statement reads changed shape since it was prepared: forget it, run it afresh.
      if (/** @type {{ code?: string }} */ (e).code !== '0A000') throw e;
      statements.delete(sql);
      if (db.isInTransaction()) throw e; // the transaction is aborted either way; the next call prepares again
      return db.query(sql, params, { rowMode: 'object' });
    }
  };
}

/** A PostgreSQL error's fields (code, detail, constraint, ...): posting an Error object drops them. */
function serialize(/** @type {unknown} */ e) {
  if (!(e instanceof Error)) return { message: String(e) };
  /** @type {Record<string, unknown>} */
  const out = { message: e.message, name: e.name };
  for (const [k, v] of Object.entries(e)) if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
  return out;
}

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
const { dataDir, setup, durable, wasm, settings = [] } = /** @type {{ dataDir: string, setup: string, durable: boolean, wasm?: WebAssembly.Module, settings?: string[] }} */ (workerData);
/** PGlite's start parameters with our settings (`name=value`, e.g. shared_buffers) appended. */
const startParams = (/** @type {string[]} */ base) => [...base, ...settings.flatMap((s) => ['-c', s])];
try {
  // bigint columns hold minor units and positions; they fit in a JS number.
  const parsers = { [types.INT8]: (/** @type {string} */ v) => Number(v) };
  // PostgreSQL's WASM as the parent compiled it once for every database of the process.
  const compiled = wasm ? { pgliteWasmModule: wasm } : {};
  // On disk, a commit is acknowledged only once its WAL is on stable storage (pglite-durable.mjs);
  // a throwaway in-memory database has nothing to flush.
  const flusher = durable && !dataDir.startsWith('memory://') ? new WalFlusher() : undefined;
  const db = dataDir.startsWith('memory://')
    ? await createInMemory({ startParams: startParams(PGlite.defaultStartParams), parsers, ...compiled })
    : await createOnDisk(dataDir, () =>
        flusher
          ? { fs: new DurableNodeFS(dataDir, flusher), startParams: startParams(durableStartParams(PGlite.defaultStartParams)), parsers, ...compiled }
          : { dataDir, startParams: startParams(PGlite.defaultStartParams), parsers, ...compiled },
      );
  await db.exec(setup);
  await collectOnce();
  const run = preparedRunner(db);
  /** @param {number} id @param {unknown} error */
  const fail = (id, error) => port.postMessage({ id, error: serialize(error) });
  /** @param {{ id: number, sql?: string, params?: unknown[], close?: boolean }} m */
  const handle = async (m) => {
    if (m.close) {
      if (flusher) await new Promise((resolve) => flusher.afterFlush(resolve)); // answer what is waiting first
      await db.close().catch(() => {});
      flusher?.close();
      port.postMessage({ id: m.id });
      return;
    }
    if (m.stats) {
      port.postMessage({ id: m.id, rows: [{ wal_writes: flusher?.writes ?? 0, wal_flushes: flusher?.flushes ?? 0, commit_sizes: [...(flusher?.sizes ?? [])] }], affectedRows: 0 });
      return;
    }
    const walBefore = flusher?.writes ?? 0;
    /** @type {{ id: number, rows?: unknown[], affectedRows?: number, error?: unknown }} */
    let reply;
    try {
      const r = await run(/** @type {string} */ (m.sql), m.params ?? []);
      reply = { id: m.id, rows: r.rows, affectedRows: r.affectedRows };
    } catch (e) {
      reply = { id: m.id, error: serialize(e) };
    }
    // Inside a transaction block nothing is committed yet, so nothing needs to be on disk: a bulk
    // load's large statements fill the WAL buffers and write WAL mid-transaction, and used to wait
    // for a flush each. Those writes stay in the flusher's set for the commit's flush.
    if (!flusher || flusher.writes === walBefore || db.isInTransaction()) {
      port.postMessage(reply);
      return;
    }
    // This statement wrote WAL and left no transaction open (a commit): answer once that WAL is on
    // disk. The queue moves on meanwhile, so the next commits join the next flush.
    flusher.afterFlush((error) => {
      if (!error) port.postMessage(reply);
      else fail(m.id, Object.assign(new Error(`the commit could not be flushed to disk: ${error.message}`), { code: '58030' }));
    });
  };
  // Strictly in arrival order: the parent pipelines statements and relies on that order.
  let queue = Promise.resolve();
  port.on('message', (m) => {
    queue = queue.then(() => handle(m));
  });
  port.postMessage({ id: 0 });
} catch (e) {
  port.postMessage({ id: 0, error: serialize(e) });
}
