/**
 * Idempotency keys for mutating operations, shared by every transport (REST `Idempotency-Key`, MCP
 * `meta.idempotency-key`). The key row is inserted in the same transaction as the operation's
 * writes, guarded by the unique (shop_id, operation, key) constraint: concurrent duplicates wait on
 * that constraint (PostgreSQL) or on the single connection (PGlite) and then replay the stored
 * response, so exactly one execution ever commits. Kept for at least KEY_TTL_MS.
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { Conflict, DomainError, ERROR_CODES } from '../shared/errors.ts';

type Exec = Kysely<Database>;

/** Stored responses are kept this long (purged afterwards): UCP asks for >= 24 h, recommends 48 h. */
export const KEY_TTL_MS = 48 * 60 * 60 * 1000;

export interface StoredResult {
  status: number;
  body: unknown;
}

export interface IdempotencyScope {
  shopId: string;
  /** e.g. `create_cart`, `update_cart`, `cancel_cart`. */
  operation: string;
  key: string;
  /** Over everything that defines the request (see {@link fingerprint}). */
  fingerprint: string;
}

/** Same key, different request: REST 409, MCP -32000. */
export class IdempotencyConflict extends Conflict {
  constructor() {
    super(ERROR_CODES.idempotencyConflict, 'This Idempotency-Key was already used with a different request; use a new key for a new request.');
  }
}

/** The key store could not be read or written: fail closed (REST 503, MCP -32000 with retry_after). */
export class IdempotencyUnavailable extends DomainError {
  constructor(override readonly cause?: unknown) {
    super('unavailable', ERROR_CODES.serviceUnavailable, 'Idempotency keys cannot be checked right now; nothing was executed. Retry shortly.');
  }
}

/** JSON with object keys sorted at every level (arrays keep their order). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function fingerprint(parts: unknown): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('base64url');
}

class RunFailure {
  constructor(readonly error: unknown) {}
}

/**
 * Runs `run` once per scope. A first call executes `run` inside a transaction that also stores its
 * result; a repeat with the same fingerprint returns the stored result without executing anything
 * (`replayed: true`); a different fingerprint throws IdempotencyConflict. Store failures throw
 * IdempotencyUnavailable; errors thrown by `run` propagate unchanged (and store nothing).
 */
export async function runIdempotent<T extends StoredResult>(
  db: Exec,
  scope: IdempotencyScope,
  run: (tx: Transaction<Database>) => Promise<T>,
): Promise<StoredResult & { replayed: boolean }> {
  // A serialization failure or deadlock (PostgreSQL 40001/40P01; the default on serializable
  // engines such as CockroachDB) rolled everything back: run the whole transaction again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await runIdempotentOnce(db, scope, run);
    } catch (e) {
      const cause = e instanceof IdempotencyUnavailable ? e.cause : e;
      const code = (cause as { code?: unknown } | null)?.code;
      if ((code !== '40001' && code !== '40P01') || attempt >= 3) throw e;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
    }
  }
}

async function runIdempotentOnce<T extends StoredResult>(
  db: Exec,
  scope: IdempotencyScope,
  run: (tx: Transaction<Database>) => Promise<T>,
): Promise<StoredResult & { replayed: boolean }> {
  const store = async <R>(f: () => Promise<R>): Promise<R> => {
    try {
      return await f();
    } catch (e) {
      throw new IdempotencyUnavailable(e);
    }
  };
  try {
    return await db.transaction().execute(async (tx) => {
      const inserted = await store(() =>
        tx
          .insertInto('idempotency_keys')
          .values({ shop_id: scope.shopId, operation: scope.operation, key: scope.key, fingerprint: scope.fingerprint, status: 0, body: '' })
          .onConflict((oc) => oc.columns(['shop_id', 'operation', 'key']).doNothing())
          .returning('key')
          .executeTakeFirst(),
      );
      if (!inserted) {
        const row = await store(() =>
          tx
            .selectFrom('idempotency_keys')
            .select(['fingerprint', 'status', 'body'])
            .where('shop_id', '=', scope.shopId)
            .where('operation', '=', scope.operation)
            .where('key', '=', scope.key)
            .executeTakeFirst(),
        );
        if (!row || !row.status) throw new IdempotencyUnavailable();
        if (row.fingerprint !== scope.fingerprint) throw new IdempotencyConflict();
        return { status: row.status, body: JSON.parse(row.body) as unknown, replayed: true };
      }
      let result: T;
      try {
        result = await run(tx);
      } catch (e) {
        throw new RunFailure(e);
      }
      const text = JSON.stringify(result.body);
      await store(() =>
        tx
          .updateTable('idempotency_keys')
          .set({ status: result.status, body: text })
          .where('shop_id', '=', scope.shopId)
          .where('operation', '=', scope.operation)
          .where('key', '=', scope.key)
          .execute(),
      );
      // Hand back what was stored, so the first answer and every replay are the same bytes.
      return { status: result.status, body: JSON.parse(text) as unknown, replayed: false };
    });
  } catch (e) {
    if (e instanceof RunFailure) throw e.error;
    if (e instanceof IdempotencyConflict || e instanceof IdempotencyUnavailable) throw e;
    // BEGIN/COMMIT failed: nothing committed, fail closed.
    throw new IdempotencyUnavailable(e);
  }
}

/** An operation whose only write is one INSERT, computed before anything is written. */
export interface PreparedInsert<T extends StoredResult> {
  result: T;
  /**
   * The write, as an `insert … select … where ${claimed}` statement: the condition is true only if
   * this request's key was new. Absent when the result is an answer that writes nothing (a rejection).
   */
  insert?: (claimed: RawBuilder<boolean>) => RawBuilder<unknown>;
}

/**
 * The one-statement form of {@link runIdempotent}, for operations whose only write is one INSERT
 * (cart create). `prepare` computes the result with reads only; then a single statement stores the
 * key with that result and, in the same statement, performs the write only if the key was new: no
 * transaction to hold open, one round trip, and still exactly one execution ever committed (the
 * unique constraint decides; a concurrent duplicate waits for it, then replays). A key that already
 * existed replays its stored result, or conflicts, exactly as in runIdempotent; the prepared work is
 * discarded unwritten. Errors thrown by `prepare` propagate unchanged and store nothing.
 */
export async function runIdempotentInsert<T extends StoredResult>(
  db: Exec,
  scope: IdempotencyScope,
  prepare: () => Promise<PreparedInsert<T>>,
): Promise<StoredResult & { replayed: boolean }> {
  const { result, insert } = await prepare();
  const text = JSON.stringify(result.body);
  const claim = sql`insert into idempotency_keys (shop_id, operation, key, fingerprint, status, body)
    values (${scope.shopId}, ${scope.operation}, ${scope.key}, ${scope.fingerprint}, ${result.status}, ${text})
    on conflict (shop_id, operation, key) do nothing returning 1`;
  const write = insert ? sql`, written as (${insert(sql<boolean>`exists (select 1 from claimed)`)})` : sql``;
  let claimed: boolean;
  let row: { fingerprint: string; status: number; body: string } | undefined;
  try {
    const r = await sql<{ claimed: number }>`with claimed as (${claim})${write} select count(*)::int as claimed from claimed`.execute(db);
    claimed = Number(r.rows[0]?.claimed) > 0;
    if (!claimed) {
      row = await db
        .selectFrom('idempotency_keys')
        .select(['fingerprint', 'status', 'body'])
        .where('shop_id', '=', scope.shopId)
        .where('operation', '=', scope.operation)
        .where('key', '=', scope.key)
        .executeTakeFirst();
    }
  } catch (e) {
    throw new IdempotencyUnavailable(e);
  }
  // Hand back what was stored, so the first answer and every replay are the same bytes.
  if (claimed) return { status: result.status, body: JSON.parse(text) as unknown, replayed: false };
  if (!row || !row.status) throw new IdempotencyUnavailable();
  if (row.fingerprint !== scope.fingerprint) throw new IdempotencyConflict();
  return { status: row.status, body: JSON.parse(row.body) as unknown, replayed: true };
}

/** Deletes stored responses older than the retention window. */
export async function purgeIdempotencyKeys(db: Exec, now = new Date()): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('created_at', '<', new Date(now.getTime() - KEY_TTL_MS)).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}
