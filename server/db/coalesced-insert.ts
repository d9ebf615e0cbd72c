/**
 * Single-row inserts that arrive together, written as one statement (group insert).
 *
 * A cart create writes one row. On the embedded database every statement runs on one thread, and
 * most of a one-row INSERT's cost there is the statement and its commit, not the row (a cart row
 * alone: ~140-280 µs of that thread; in a batch of 8-16: ~70-85 µs each, docs/benchmarks.md). So
 * while the database is busy with earlier inserts, new rows wait in a queue and go out together, as one
 * `insert … select … from jsonb_to_recordset($1)`: one statement, one commit, one WAL flush for all
 * of them. With nothing in flight a row goes at once, alone: an idle server adds no latency.
 *
 * Each caller's promise settles with its own row's outcome: if a batch fails, its rows are retried
 * one by one (each as its single-row statement), so one bad row never fails another request. A row
 * is acknowledged only when its statement's commit is (durably: pglite-worker.mjs). Inside a
 * transaction the row goes as its single-row statement (it must see the transaction).
 *
 * Both statements, the batch's and the single row's, are built here from one column list, so a
 * table's row is described in one place (for carts: server/core/carts/carts.ts `cartColumns`).
 */
import { sql, type RawBuilder } from 'kysely';
import { connectionsOf, databaseIdentity, isSingleWriter, type DB } from './index.ts';
import { groupInsertRows } from '../lib/metrics.ts';

/** A column's value as it goes into the batch's JSON: text, numbers, null, or JSON text spliced as is. */
export type ColumnValue = string | number | boolean | null | Date | { json: string };

export interface CoalescedTable<Row extends Record<string, ColumnValue>> {
  table: string;
  /** Each column and its SQL type, in the order of the insert. */
  columns: ReadonlyArray<readonly [keyof Row & string, string]>;
  /** Rows per statement at most. */
  maxRows?: number;
}

interface Waiting<Row> {
  row: Row;
  resolve: () => void;
  reject: (e: unknown) => void;
}

interface Queue<Row> {
  waiting: Waiting<Row>[];
  inFlight: number;
}

/**
 * Statements in flight at once per database. The embedded database: one, so everything that
 * arrives meanwhile (its commit's WAL flush included) goes out in the next batch. Allowing a second
 * one in flight lets the thread start on it during the flush, but makes smaller batches, and on two
 * cores the CPU saved per row is worth more: 1 measured 3,350 creates/s, 2 and 3 measured
 * 2,700-2,750 (half of those bodies were refused carts, writing nothing); with bodies that all
 * create, 1 gave 24.3 % of the group-commit reference and 2 gave 23.7 % (2026-12-02,
 * docs/benchmarks-history.md). A PostgreSQL pool: as many as it has connections, so a row waits
 * only when every connection is busy.
 */
const EMBEDDED_IN_FLIGHT = 1;

const isJson = (v: ColumnValue): v is { json: string } => v !== null && typeof v === 'object' && !(v instanceof Date);

function columnJson(v: ColumnValue): string {
  return isJson(v) ? v.json : JSON.stringify(v);
}

/** A column's value as a statement parameter: JSON as its text (the statement casts it). */
const param = (v: ColumnValue) => (isJson(v) ? v.json : v);

/** What an inserter does: a row, coalesced; and the same row as a statement of its own. */
export interface Inserter<Row> {
  /** Writes `row`, coalesced with others when `db` is the database itself; settles once committed. */
  (db: DB, row: Row): Promise<void>;
  /**
   * The row's own single-row statement, performed only where `when` holds (default: always), e.g. a
   * condition that claims something in the same statement. Used inside transactions, for the rows
   * of a failed batch, and by callers who need the condition.
   */
  single(row: Row, when?: RawBuilder<boolean>): RawBuilder<unknown>;
}

/** The inserter for one table, both of its statements built from `spec`. */
export function coalescedInsert<Row extends Record<string, ColumnValue>>(spec: CoalescedTable<Row>): Inserter<Row> {
  const maxRows = spec.maxRows ?? 64;
  const names = spec.columns.map(([name]) => name);
  const columnList = sql.join(names.map((n) => sql.id(n)));
  const single = (row: Row, when: RawBuilder<boolean> = sql<boolean>`true`) =>
    sql`insert into ${sql.id(spec.table)} (${columnList})
      select ${sql.join(spec.columns.map(([n, type]) => sql`${param(row[n])}::${sql.raw(type)}`))}
      where ${when}`;
  const statement = (json: string) =>
    sql`insert into ${sql.id(spec.table)} (${columnList})
      select ${sql.join(names.map((n) => sql`r.${sql.id(n)}`))}
      from jsonb_to_recordset(${json}::jsonb) as r(${sql.raw(spec.columns.map(([n, type]) => `"${n}" ${type}`).join(', '))})`;
  const keys = names.map((n) => JSON.stringify(n));
  const rowJson = (row: Row) => `{${names.map((n, i) => `${keys[i]}:${columnJson(row[n])}`).join(',')}}`;
  const queues = new WeakMap<object, Queue<Row>>();
  const batchSizes = groupInsertRows.labels(spec.table);

  /** One row's own statement, settling its caller (never throws). */
  const alone = (db: DB, w: Waiting<Row>) =>
    Promise.resolve()
      .then(() => single(w.row).execute(db))
      .then(() => w.resolve(), w.reject);

  async function runBatch(db: DB, batch: Waiting<Row>[]): Promise<void> {
    batchSizes.observe(batch.length);
    if (batch.length === 1) return alone(db, batch[0]);
    try {
      await statement(`[${batch.map((w) => rowJson(w.row)).join(',')}]`).execute(db);
    } catch {
      // Someone's row broke the statement: each row on its own, so only that one fails.
      await Promise.all(batch.map((w) => alone(db, w)));
      return;
    }
    for (const w of batch) w.resolve();
  }

  function pump(db: DB, q: Queue<Row>, limit: number): void {
    while (q.inFlight < limit && q.waiting.length > 0) {
      const batch = q.waiting.splice(0, maxRows);
      q.inFlight++;
      void runBatch(db, batch).finally(() => {
        q.inFlight--;
        pump(db, q, limit);
      });
    }
  }

  function insert(db: DB, row: Row): Promise<void> {
    if (db.isTransaction) return Promise.resolve().then(() => single(row).execute(db)).then(() => undefined);
    const id = databaseIdentity(db);
    let q = queues.get(id);
    if (!q) queues.set(id, (q = { waiting: [], inFlight: 0 }));
    const limit = isSingleWriter(db) ? EMBEDDED_IN_FLIGHT : connectionsOf(db);
    return new Promise<void>((resolve, reject) => {
      q.waiting.push({ row, resolve, reject });
      pump(db, q, limit);
    });
  }
  return Object.assign(insert, { single });
}
