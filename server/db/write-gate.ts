/**
 * Writes refused at once while commits are known to hang (issue 39 point 15). With synchronous
 * replication and the synchronous standby gone, PostgreSQL keeps every commit waiting; each write
 * then holds a pooled connection until the standby returns or the statement times out, and within
 * seconds the pool is spent and reads wait behind the writes too. So when the commit probe
 * (commit-probe.ts, run in the background by `watchCommits` and by /readyz) finds commits stalled,
 * this gate makes every new write fail before it reaches the server: the error is `WritesBlocked`,
 * which the edges answer 503 + Retry-After like any unavailable database (core/shared/errors.ts),
 * and reads go on. Writes already waiting keep waiting: they may have committed locally, and they
 * finish when the standby is back. The first probe that commits opens the gate again.
 *
 * A Kysely plugin: it sees every statement, built or raw, inside transactions too. A write is an
 * insert, update, delete or merge; writes to unlogged tables (UNLOGGED_TABLES: the rate-limit
 * buckets every request takes from, migration 0014) do not wait for replication and pass.
 */
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { log } from '../lib/log.ts';

/** Tables whose writes never wait for a standby (no WAL). */
export const UNLOGGED_TABLES: readonly string[] = ['rate_buckets'];

export interface Stall {
  cause: 'sync_standby_lost' | 'commit_timeout';
  detail: string;
}

/** A write refused while commits stall; `isUnavailable` (core/shared/errors.ts) knows its code. */
export class WritesBlocked extends Error {
  readonly code = 'WRITES_BLOCKED';
  constructor(readonly stall: Stall) {
    super(`writes refused while commits do not complete (${stall.cause})`);
    this.name = 'WritesBlocked';
  }
}

const WRITE_KINDS = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);
/** A write inside raw SQL text, and its table when the text names it (a `sql.id(...)` leaves it to the next node: '?'). */
const RAW_WRITE = /\b(?:insert\s+into|delete\s+from|merge\s+into|update(?=\s+(?:"?[a-z_][a-z0-9_]*"?\s+(?:as\s+\w+\s+)?set\b|$)))\s*(?:"?([a-z_][a-z0-9_]*))?/gi;

type Table = { table?: { identifier?: { name?: string } } } | undefined;
type Raw = { kind: 'RawNode'; sqlFragments: readonly string[]; parameters: readonly unknown[] };

/**
 * The tables a statement writes ('?' where it cannot tell which), none for a read. A built query
 * names its table in its node: `into` (insert, merge), `table` (update), `from.froms[0]` (delete). A
 * raw one is read as text, nested raw parts too (`with claimed as (insert …) select …`).
 */
export function writtenTables(node: RootOperationNode): string[] {
  if (WRITE_KINDS.has(node.kind)) {
    const n = node as { into?: Table; table?: Table; from?: { froms?: Table[] } };
    return [(n.into ?? n.table ?? n.from?.froms?.[0])?.table?.identifier?.name ?? '?'];
  }
  const out: string[] = [];
  if (node.kind === 'RawNode') rawWrites(node as unknown as Raw, out);
  return out;
}

function rawWrites(raw: Raw, out: string[]): void {
  for (const text of raw.sqlFragments) for (const m of text.matchAll(RAW_WRITE)) out.push((m[1] ?? '?').toLowerCase());
  for (const p of raw.parameters) if ((p as { kind?: string } | null)?.kind === 'RawNode') rawWrites(p as Raw, out);
}

export class WriteGate implements KyselyPlugin {
  private stall: Stall | null = null;

  /** What stops writes now, or null. */
  get stalled(): Stall | null {
    return this.stall;
  }

  /** A probe's finding: a stall closes the gate, a commit opens it; anything else (the database unreachable) changes nothing. */
  note(p: { ok: true } | { ok: false; cause: string; detail: string }): void {
    if (p.ok) {
      if (this.stall) log.info('db', 'writes accepted again: commits complete', { after: this.stall.cause });
      this.stall = null;
    } else if (p.cause === 'sync_standby_lost' || p.cause === 'commit_timeout') {
      if (!this.stall) log.error('db', 'writes refused until commits complete', { cause: p.cause, detail: p.detail });
      this.stall = { cause: p.cause, detail: p.detail };
    }
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.stall && writtenTables(args.node).some((t) => !UNLOGGED_TABLES.includes(t))) throw new WritesBlocked(this.stall);
    return args.node;
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}
