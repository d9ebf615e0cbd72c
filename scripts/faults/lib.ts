/**
 * Shared pieces of the fault scripts and the multi-process tests: server processes, a Host-aware
 * HTTP client that never throws on a status, database preparation.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { openDatabase, type DB } from '../../server/db/index.ts';
import { prepareDatabase as prepare } from '../../server/seed/prepare.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** Everything the process printed (stdout + stderr). */
  output(): string;
  /** Resolves with the exit code / signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `script` (default server/main.ts) under tsx and waits until it prints `listening`.
 * `env` is merged over this process's environment minus DATABASE_URL/DATA_DIR (pass them explicitly).
 */
export async function spawnServer(opts: { env: Record<string, string>; script?: string; port?: number; timeoutMs?: number; wrap?: string[] }): Promise<ServerProcess> {
  const port = opts.port ?? (await freePort());
  // The load generator is one client writing as fast as it can: per-client transport budgets
  // (docs/security.md) would answer most of it 429, so the harness turns them off.
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: String(port), UCP_RATE_LIMITS: 'off', ...opts.env };
  if (!opts.env.DATABASE_URL) delete env.DATABASE_URL;
  delete env.TEST_DATABASE_URL;
  // `wrap`: a command the server runs under (e.g. strace), given the node command line.
  const argv = [...(opts.wrap ?? []), process.execPath, '--import', 'tsx', opts.script ?? 'server/main.ts'];
  const child = spawn(argv[0], argv.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${out}`)), opts.timeoutMs ?? 60_000);
    const check = () => {
      if (/listening on/.test(out)) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${signal ?? code}) before listening:\n${out}`));
    });
  });
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    exited,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}

export interface Reply<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: T;
}

/** One HTTP request with a Host header; network failures resolve as status 0 (never throws). */
export function send<T = any>(port: number, host: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, timeoutMs = 15_000): Promise<Reply<T>> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const h: Record<string, string> = { host: `${host}:${port}`, connection: 'close', ...headers };
    if (payload !== undefined && !Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['content-type'] = 'application/json';
    const r = httpRequest({ host: '127.0.0.1', port, method, path, headers: h, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('error', () => resolve({ status: 0, headers: {}, text: '', body: undefined as T }));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed as T });
      });
    });
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', () => resolve({ status: 0, headers: {}, text: '', body: undefined as T }));
    if (payload !== undefined) r.write(payload);
    r.end();
  });
}

/** Migrates and seeds (demo shops, and in development the demo accounts) a database, then closes it. */
export async function prepareDatabase(opts: { databaseUrl?: string; dataDir?: string }): Promise<void> {
  const db = await openDatabase({ databaseUrl: opts.databaseUrl, dataDir: opts.dataDir ?? 'memory://' });
  try {
    await prepare(db, { demo: true, accounts: true });
  } finally {
    await db.destroy();
  }
}

export async function withDb<T>(opts: { databaseUrl?: string; dataDir?: string }, f: (db: DB) => Promise<T>): Promise<T> {
  const db = await openDatabase({ databaseUrl: opts.databaseUrl, dataDir: opts.dataDir ?? 'memory://' });
  try {
    return await f(db);
  } finally {
    await db.destroy();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A small cart request on the demo shop. */
export const CART_BODY = { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] };
