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
  const { stdout, stderr } = await run(opts.dir ? ['start', opts.dir] : ['start'], env);
  const url = stdout.trim().split('\n').pop()!;
  const dir = /PGTEST_DIR=(.*)/.exec(stderr)?.[1]?.trim() ?? '';
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
