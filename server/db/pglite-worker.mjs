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
 * WAL writes and group-commit flushes (tests and benchmarks). Messages run one at a time, in the order they arrive:
 * the parent may post several statements without waiting (see the dialect's lock).
 * The first message, id 0, says the database is open (or why it could not be).
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite, types } from '@electric-sql/pglite';
import { DurableNodeFS, WalFlusher, durableStartParams } from './pglite-durable.mjs';

/**
 * A throwaway in-memory database starts from a snapshot of an empty cluster: initdb in WASM takes
 * about 2 s, restoring the snapshot about 0.35 s (docs/benchmarks.md), and tests open hundreds.
 * The snapshot is made by the first process that needs it, right after initdb (before any setting
 * or data), and kept in the OS temp directory per PGlite version; a file that does not restore is
 * removed and the cluster made from scratch.
 * @param {import('@electric-sql/pglite').PGliteOptions} options
 */
async function createInMemory(options) {
  const pkg = join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), '..', 'package.json');
  const file = join(tmpdir(), `ucp-storefront-pglite-${JSON.parse(readFileSync(pkg, 'utf8')).version}-empty.tar`);
  const snapshot = await readFile(file).catch(() => null);
  if (snapshot) {
    try {
      return await PGlite.create('memory://', { ...options, loadDataDir: new Blob([snapshot]) });
    } catch {
      await rm(file, { force: true });
    }
  }
  const db = await PGlite.create('memory://', options);
  await db.exec('CHECKPOINT');
  const tmp = `${file}.${process.pid}.${threadId}`;
  // Written whole under a private name, then renamed: a reader never sees half a snapshot.
  await writeFile(tmp, Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer()))
    .then(() => rename(tmp, file))
    .catch(() => rm(tmp, { force: true }));
  return db;
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
const { dataDir, setup, durable, wasm } = /** @type {{ dataDir: string, setup: string, durable: boolean, wasm?: WebAssembly.Module }} */ (workerData);
try {
  // bigint columns hold minor units and positions; they fit in a JS number.
  const parsers = { [types.INT8]: (/** @type {string} */ v) => Number(v) };
  // PostgreSQL's WASM as the parent compiled it once for every database of the process.
  const compiled = wasm ? { pgliteWasmModule: wasm } : {};
  // On disk, a commit is acknowledged only once its WAL is on stable storage (pglite-durable.mjs);
  // a throwaway in-memory database has nothing to flush.
  const flusher = durable && !dataDir.startsWith('memory://') ? new WalFlusher() : undefined;
  const db = flusher
    ? await PGlite.create({ fs: new DurableNodeFS(dataDir, flusher), startParams: durableStartParams(PGlite.defaultStartParams), parsers, ...compiled })
    : dataDir.startsWith('memory://')
      ? await createInMemory({ parsers, ...compiled })
      : await PGlite.create(dataDir, { parsers, ...compiled });
  await db.exec(setup);
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
      port.postMessage({ id: m.id, rows: [{ wal_writes: flusher?.writes ?? 0, wal_flushes: flusher?.flushes ?? 0 }], affectedRows: 0 });
      return;
    }
    const walBefore = flusher?.writes ?? 0;
    /** @type {{ id: number, rows?: unknown[], affectedRows?: number, error?: unknown }} */
    let reply;
    try {
      const r = await db.query(/** @type {string} */ (m.sql), m.params, { rowMode: 'object' });
      reply = { id: m.id, rows: r.rows, affectedRows: r.affectedRows };
    } catch (e) {
      reply = { id: m.id, error: serialize(e) };
    }
    if (!flusher || flusher.writes === walBefore) {
      port.postMessage(reply);
      return;
    }
    // This statement wrote WAL (a commit): answer once that WAL is on disk. The queue moves on
    // meanwhile, so the next commits join the next flush.
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
