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
 * `{ id, close: true }` closes the database. Messages run one at a time, in the order they arrive:
 * the parent may post several statements without waiting (see the dialect's lock).
 * The first message, id 0, says the database is open (or why it could not be).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, types } from '@electric-sql/pglite';

/** A PostgreSQL error's fields (code, detail, constraint, ...): posting an Error object drops them. */
function serialize(/** @type {unknown} */ e) {
  if (!(e instanceof Error)) return { message: String(e) };
  /** @type {Record<string, unknown>} */
  const out = { message: e.message, name: e.name };
  for (const [k, v] of Object.entries(e)) if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
  return out;
}

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
const { dataDir, setup } = /** @type {{ dataDir: string, setup: string }} */ (workerData);
try {
  // bigint columns hold minor units and positions; they fit in a JS number.
  const db = await PGlite.create(dataDir, { parsers: { [types.INT8]: (/** @type {string} */ v) => Number(v) } });
  await db.exec(setup);
  /** @param {{ id: number, sql?: string, params?: unknown[], close?: boolean }} m */
  const handle = async (m) => {
    if (m.close) {
      await db.close().catch(() => {});
      port.postMessage({ id: m.id });
      return;
    }
    try {
      const r = await db.query(/** @type {string} */ (m.sql), m.params, { rowMode: 'object' });
      port.postMessage({ id: m.id, rows: r.rows, affectedRows: r.affectedRows });
    } catch (e) {
      port.postMessage({ id: m.id, error: serialize(e) });
    }
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
