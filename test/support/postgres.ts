/**
 * PostgreSQL for tests, benchmarks and fault scripts.
 *
 * - {@link createTestDatabase}: a fresh, empty database on the server named by a base URL (one per
 *   integration test server, so test files never see each other's rows), dropped on `drop()`.
 * - {@link startTempPostgres}: a throwaway local server via scripts/pg-test-server.sh (installs
 *   Debian's postgresql when missing), or the one in TEST_DATABASE_URL/DATABASE_URL when given.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const SCRIPT = fileURLToPath(new URL('../../scripts/pg-test-server.sh', import.meta.url));

/**
 * The PostgreSQL server of this test run: `*.pg.test.ts` files are collected only when
 * TEST_DATABASE_URL is set (vitest.config.ts), and fail loudly rather than skip when it is not.
 */
export function requirePostgres(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('This suite needs a PostgreSQL server: set TEST_DATABASE_URL (scripts/test-all.sh does).');
  return url;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(baseUrl: string, f: (c: pg.Client) => Promise<T>): Promise<T> {
  // The maintenance database: `postgres` exists on every server.
  const client = new pg.Client({ connectionString: withDatabase(baseUrl, 'postgres') });
  await client.connect();
  try {
    return await f(client);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates `t_<random>` on the server of `baseUrl` and returns its URL. */
export async function createTestDatabase(baseUrl: string): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await admin(baseUrl, (c) => c.query(`create database ${name}`));
  return {
    url: withDatabase(baseUrl, name),
    name,
    drop: () =>
      admin(baseUrl, async (c) => {
        // PostgreSQL 15 has no `drop database ... with (force)` problem, but lingering pool
        // connections would block the drop: end them first.
        await c.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
        await c.query(`drop database if exists ${name}`);
      }).catch(() => undefined),
  };
}

export interface TempPostgres {
  url: string;
  /** The server's directory (empty when an external server was given). */
  dir: string;
  /** Restarts the server (`immediate` = crash-like stop, recovery on start). */
  restart(mode?: 'fast' | 'immediate'): Promise<void>;
  stop(): Promise<void>;
}

function run(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('bash', [SCRIPT, ...args], { env, timeout: 10 * 60 * 1000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`pg-test-server.sh ${args.join(' ')} failed: ${stderr || err.message}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** The script's URL (last stdout line) and directory (`PGTEST_DIR=` on stderr). */
function started({ stdout, stderr }: { stdout: string; stderr: string }): { url: string; dir: string } {
  return { url: stdout.trim().split('\n').pop()!, dir: /PGTEST_DIR=(.*)/.exec(stderr)?.[1]?.trim() ?? '' };
}

/**
 * Starts a local throwaway server (or uses TEST_DATABASE_URL / DATABASE_URL when `reuse` and set).
 * `dir`: the server's directory; one holding a server from an earlier start is started again, its
 * databases kept (bench/scale.ts).
 */
export async function startTempPostgres(opts: { reuse?: boolean; dir?: string } = {}): Promise<TempPostgres> {
  const env = { ...process.env };
  if (!opts.reuse) {
    delete env.TEST_DATABASE_URL;
    delete env.DATABASE_URL;
  }
  const { url, dir } = started(await run(opts.dir ? ['start', opts.dir] : ['start'], env));
  return {
    url,
    dir,
    async restart(mode = 'fast') {
      if (!dir) throw new Error('cannot restart an external PostgreSQL server');
      await run(['restart', dir, mode]);
    },
    async stop() {
      if (dir) await run(['stop', dir]);
    },
  };
}

export interface PostgresPair {
  primary: { url: string; dir: string };
  standby: { url: string; dir: string };
  /** Both hosts, primary first, with target_session_attrs=read-write (libpq's rule; server/db/hosts.ts). */
  url: string;
  /** kill -9 of the primary's server and backends: the host is gone. */
  killPrimary(): Promise<void>;
  /** pg_ctl promote of the standby; resolves once it accepts writes. */
  promoteStandby(): Promise<void>;
  /** kill -9 of the standby (a lost synchronous standby: the primary's commits wait for it). */
  killStandby(): Promise<void>;
  /** Starts the killed standby again (it streams from the primary again). */
  restartStandby(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A primary and a hot standby streaming from it (pg_basebackup -R), each a throwaway local server
 * (scripts/pg-test-server.sh). `sync`: the primary acknowledges a commit only once the standby has
 * it on disk (synchronous_standby_names, synchronous_commit = on); else replication is asynchronous.
 * Both durable (fsync on) whatever PGTEST_DURABLE says: their data is what the failover tests check.
 */
export async function startPostgresPair(opts: { sync: boolean }): Promise<PostgresPair> {
  const env: NodeJS.ProcessEnv = { ...process.env, PGTEST_DURABLE: '1' };
  delete env.TEST_DATABASE_URL;
  delete env.DATABASE_URL;
  const primary = started(await run(['start'], env));
  let standby: { url: string; dir: string } | undefined;
  try {
    standby = started(await run(['standby', primary.dir], env));
    // After the base backup, so the promoted standby does not wait for a standby of its own.
    await run(['sync', primary.dir, opts.sync ? 'on' : 'off'], env);
  } catch (e) {
    await run(['stop', primary.dir]).catch(() => {});
    if (standby) await run(['stop', standby.dir]).catch(() => {});
    throw e;
  }
  const hosts = [primary, standby].map((s) => new URL(s.url).host).join(',');
  const s = standby;
  return {
    primary,
    standby,
    url: `postgres://postgres@${hosts}/ucp?target_session_attrs=read-write`,
    killPrimary: async () => void (await run(['kill', primary.dir])),
    promoteStandby: async () => void (await run(['promote', s.dir])),
    killStandby: async () => void (await run(['kill', s.dir])),
    restartStandby: async () => void (await run(['start', s.dir], env)),
    async stop() {
      await Promise.all([run(['stop', primary.dir]), run(['stop', s.dir])]);
    },
  };
}

