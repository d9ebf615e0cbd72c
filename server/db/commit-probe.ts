/**
 * Does a write commit now? The readiness probe's question (http/ops.ts, issue 39 point 15).
 * `select 1` answers while commits hang: with synchronous replication and the synchronous standby
 * gone, PostgreSQL keeps every commit waiting for a standby that is not there, and requests pile up
 * until the pool is exhausted ("timeout exceeded when trying to connect"), while /readyz said 200.
 *
 * So on PostgreSQL the probe commits a transaction that writes WAL:
 * `pg_logical_emit_message(true, …)` writes one small transactional WAL record (no table, nothing
 * kept, no privilege needed), and its commit waits for synchronous replication like any write.
 * (`txid_current()` alone does not: a transaction that wrote no WAL before its commit record skips
 * the wait.) A server that refuses the function (42501, 42883) is probed with `select 1`. When it does not commit within the
 * deadline the probe cancels its own backend (`pg_cancel_backend`: the wait ends, the connection
 * goes back to the pool, not stuck with the others) and asks the server why: synchronous_standby_names
 * set and no synchronous standby connected is named as such. The embedded database has no
 * replication: `select 1` there.
 */
import { sql } from 'kysely';
import { isSingleWriter, openProbeDatabase, writeGateOf, type DB } from './index.ts';

export type Probe = { ok: true } | { ok: false; cause: 'database_unavailable' | 'sync_standby_lost' | 'commit_timeout'; detail: string };

/** How long a probe waits for a connection and its commit (a load balancer's probe timeout is often 2 s). */
export const PROBE_DEADLINE_MS = 1500;

const sleep = (ms: number) => new Promise<'late'>((r) => setTimeout(() => r('late'), ms).unref());

export async function probeCommit(db: DB, deadlineMs = PROBE_DEADLINE_MS): Promise<Probe> {
  const until = Date.now() + deadlineMs;
  if (isSingleWriter(db)) {
    const r = await Promise.race([sql`select 1`.execute(db).then(() => 'ok' as const, () => 'failed' as const), sleep(deadlineMs)]);
    return r === 'ok' ? { ok: true } : { ok: false, cause: 'database_unavailable', detail: r === 'late' ? `no answer within ${deadlineMs} ms` : 'the query failed' };
  }
  let pid = 0;
  const commit = db
    .connection()
    .execute(async (conn) => {
      pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(conn)).rows[0].pid;
      if (Date.now() > until) return 'late' as const; // the connection came too late: not a commit question
      await sql`select pg_logical_emit_message(true, 'ucp-readiness', '')`.execute(conn);
      return 'ok' as const;
    })
    .catch((e: Error & { code?: string }) => (e.code === '42501' || e.code === '42883' ? ('ok' as const) : e));
  const r = await Promise.race([commit, sleep(Math.max(0, until - Date.now()))]);
  if (r === 'ok') return { ok: true };
  if (r instanceof Error) return { ok: false, cause: 'database_unavailable', detail: r.message };
  if (!pid) return { ok: false, cause: 'database_unavailable', detail: `no database connection within ${deadlineMs} ms (all in use, or the server does not answer)` };
  return diagnose(db, pid, commit);
}

/** The commit is waiting: cancel it (its connection returns to the pool) and say why it waited. */
async function diagnose(db: DB, pid: number, commit: Promise<unknown>): Promise<Probe> {
  try {
    await sql`select pg_cancel_backend(${pid})`.execute(db);
    await Promise.race([commit, sleep(PROBE_DEADLINE_MS)]);
    const { rows } = await sql<{ names: string; sync: number }>`
      select current_setting('synchronous_standby_names') as names,
             (select count(*)::int from pg_stat_replication where sync_state in ('sync', 'quorum')) as sync`.execute(db);
    const { names, sync } = rows[0];
    if (names.trim() && sync === 0) {
      return {
        ok: false,
        cause: 'sync_standby_lost',
        detail: `commits wait for a synchronous standby and none is connected (synchronous_standby_names = '${names}'): bring the standby back, or clear synchronous_standby_names on the primary to accept writes without it`,
      };
    }
    return { ok: false, cause: 'commit_timeout', detail: `a commit did not finish within ${PROBE_DEADLINE_MS} ms (synchronous standbys connected: ${sync})` };
  } catch (e) {
    return { ok: false, cause: 'database_unavailable', detail: (e as Error).message };
  }
}

/** How often the background watch probes (every second while writes are refused). */
export const WATCH_MS = 5_000;

export interface CommitWatch {
  stop(): Promise<void>;
}

/**
 * PostgreSQL: probes commits in the background, on the probe's own two connections, and tells the
 * write gate (write-gate.ts) what it finds, so a lost synchronous standby stops new writes within
 * seconds even when nothing asks /readyz, and the first commit after it lets them through again
 * (a /readyz probe that commits does too: checkCommits). One probe at a time. The embedded
 * database has no standby and no gate: nothing to watch there.
 */
export function watchCommits(db: DB, everyMs = WATCH_MS): CommitWatch {
  const gate = writeGateOf(db);
  const probeDb = gate && openProbeDatabase(db);
  if (!gate || !probeDb) return { stop: async () => {} };
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = probeCommit(probeDb).then((p) => gate.note(p), () => {}).finally(next);
    }, gate.stalled ? 1_000 : everyMs);
    timer.unref();
  };
  next();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await probeDb.destroy();
    },
  };
}

/**
 * Does a write commit now? Readiness asks it of the request pool itself (what requests use: a
 * server whose pool cannot reach the database is not ready, whatever another pool finds), and the
 * gate learns from the answer too. The background watch asks on its own connections, so a pool
 * spent by stalled writes cannot hide why.
 */
export async function checkCommits(db: DB): Promise<Probe> {
  const p = await probeCommit(db);
  writeGateOf(db)?.note(p);
  return p;
}
