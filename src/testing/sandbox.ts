/// <reference types="node" />
/**
 * `ucp-storefront/testing`: the sandbox server for an agent builder's own tests and CI (issue 30,
 * point 5; docs/ci.md). `startSandbox()` runs this package's bin as a child process, exactly what
 * `npx ucp-storefront start` runs (development mode, the demo shops), on a free port with a
 * throwaway data directory, and resolves once `/readyz` answers 200:
 *
 *   const sandbox = await startSandbox();            // {port: 0, dataDir: 'temp'}
 *   sandbox.shopUrl('demo.localhost')                // http://demo.localhost:41234
 *   const shop = await sandbox.newShop();            // a fresh copy of the demo shop, for one test
 *   await sandbox.reset();                           // the demo shop back to its seed
 *   await sandbox.stop();                            // SIGTERM, wait, remove the data directory
 *
 * Node only. The server never sees this process's DATABASE_URL: a sandbox that reset a real
 * database would be a disaster, so PostgreSQL must be asked for by name (`databaseUrl`).
 *
 * Nothing outlives the caller (issue 39 points 9, 10): the server is spawned with an IPC channel,
 * which closes when this process ends however it ends (SIGKILL included), and the bin then stops
 * the server and removes its `'temp'` directory itself (bin/ucp-storefront.mjs); directories of
 * servers killed outright are swept by the next start (`sweepStaleSandboxes`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SandboxOptions {
  /** Default 0: a free port, read back from the server's banner. */
  port?: number;
  /**
   * `[first, last]`: the first free port of this range instead of `port` (both inclusive), e.g. a
   * Playwright worker's own range (the fixture's `workerPorts`). Rejects when none is free.
   */
  portRange?: readonly [number, number];
  /** `'temp'` (default): a new directory removed by `stop()`; or a directory of yours, kept. */
  dataDir?: 'temp' | (string & {});
  /** A PostgreSQL URL to use instead of the embedded database (never taken from the environment). */
  databaseUrl?: string;
  /** More environment for the server (README "Settings"), e.g. `{ SANDBOX_FAULTS: '0' }`. */
  env?: Record<string, string>;
  /** How long start-up may take (default 120 s: the first start loads the server through tsx). */
  startTimeoutMs?: number;
  /** Each line the server prints (default: kept, and shown if it fails to start). */
  onOutput?: (line: string) => void;
}

export interface SandboxShop {
  id: string;
  domain: string;
  /** `http://DOMAIN:PORT`: the shop's origin (pages, `/.well-known/ucp`, `/api/ucp`, `/mcp`). */
  url: string;
}

export interface Sandbox {
  /** The platform address, `http://localhost:PORT` (dev routes, `/readyz`, the account service). */
  readonly url: string;
  readonly port: number;
  /** A shop's origin on this server: `shopUrl('strict.localhost')`; default the demo shop. */
  shopUrl(domain?: string): string;
  /** The demo agent's platform profile URL (send it as `UCP-Agent: profile="…"`). */
  readonly demoAgentProfile: string;
  /** The server's data directory (absent for a server started elsewhere). */
  readonly dataDir?: string;
  /** Puts a shop (default `shop_demo`) back to its seeded state: carts, orders, stock, catalog. */
  reset(shopId?: string): Promise<unknown>;
  /** A fresh copy of a demo shop (default `shop_demo`) under its own `*.localhost` domain. */
  newShop(opts?: { from?: string; domain?: string }): Promise<SandboxShop>;
  /** Deletes a shop `newShop()` made (its id or domain) and everything in it; one already gone is fine. Demo shops cannot be deleted. */
  deleteShop(shop: string): Promise<void>;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s) and removes a `'temp'` data directory. */
  stop(): Promise<void>;
}

/** This package's bin, from src/testing (a checkout) or dist/lib/testing (the installed package). */
function binPath(): string {
  for (const rel of ['../../bin/ucp-storefront.mjs', '../../../bin/ucp-storefront.mjs']) {
    const p = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(p)) return p;
  }
  throw new Error('ucp-storefront/testing: bin/ucp-storefront.mjs not found beside this module.');
}

/** A dev route call: JSON in, JSON out, a thrown Error naming the server's answer otherwise. */
async function devPost<T>(url: string, body: unknown = {}): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json().catch(() => null)) as { content?: string; code?: string } | null;
  if (!res.ok) throw new Error(`POST ${url}: HTTP ${res.status} ${json?.code ?? ''} ${json?.content ?? ''}`.trim());
  return json as T;
}

/** A sandbox around a server that is already running (a Playwright `webServer`, `npx ucp-storefront start`). */
export function connectSandbox(url: string, stop: () => Promise<void> = async () => {}): Sandbox {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const suffix = u.port ? `:${u.port}` : '';
  const base = `${u.protocol}//localhost${suffix}`;
  const shopUrl = (domain = 'demo.localhost') => `${u.protocol}//${domain}${suffix}`;
  return {
    url: base,
    port,
    shopUrl,
    demoAgentProfile: `http://agent.localhost${suffix}/.well-known/ucp`,
    reset: (shopId = 'shop_demo') => devPost(`${base}/dev/shops/${encodeURIComponent(shopId)}/reset`),
    newShop: async (opts = {}) => {
      const r = await devPost<SandboxShop>(`${base}/dev/shops/${encodeURIComponent(opts.from ?? 'shop_demo')}/clone`, opts.domain ? { domain: opts.domain } : {});
      return { id: r.id, domain: r.domain, url: shopUrl(r.domain) };
    },
    deleteShop: async (shop) => {
      const url = `${base}/dev/shops/${encodeURIComponent(shop)}`;
      const res = await fetch(url, { method: 'DELETE', headers: { 'content-type': 'application/json' } });
      if (res.ok || res.status === 404) return;
      const json = (await res.json().catch(() => null)) as { content?: string; code?: string } | null;
      throw new Error(`DELETE ${url}: HTTP ${res.status} ${json?.code ?? ''} ${json?.content ?? ''}`.trim());
    },
    stop,
  };
}

/** The name and mark of startSandbox's throwaway directories (the bin removes its own on exit). */
const TEMP_PREFIX = 'ucp-sandbox-';
const TEMP_MARK = 'ucp-sandbox.json';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes throwaway directories left by sandboxes whose server was killed outright (SIGKILL, a
 * crash, a power cut): only ours (the name and the mark file), and only unused — the process that
 * made it is gone and no live process holds its database (`data/ucp.lock`, server/db/data-dir-lock.ts).
 */
export function sweepStaleSandboxes(dir = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(TEMP_PREFIX));
  } catch {
    return removed;
  }
  for (const name of names) {
    const path = join(dir, name);
    let mark: { pid?: unknown };
    try {
      mark = JSON.parse(readFileSync(join(path, TEMP_MARK), 'utf8')) as { pid?: unknown };
    } catch {
      continue; // no mark (or half written): not ours, or being made this instant
    }
    if (typeof mark.pid !== 'number' || alive(mark.pid)) continue;
    let holder = 0;
    try {
      holder = Number(readFileSync(join(path, 'data', 'ucp.lock'), 'utf8').split('\n', 1)[0]);
    } catch {
      /* no lock file: nobody holds the database */
    }
    if (Number.isInteger(holder) && holder > 0 && alive(holder)) continue;
    rmSync(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}

/** The first port of `[first, last]` free on 127.0.0.1 right now (after `skip` tried ones). */
async function freePortIn([first, last]: readonly [number, number], skip: Set<number>): Promise<number> {
  for (let p = first; p <= last; p++) {
    if (skip.has(p)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer().once('error', () => resolve(false));
      probe.listen(p, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return p;
  }
  throw new Error(`ucp-storefront sandbox: no free port in ${first}-${last}.`);
}

/** Resolves with the port once the banner names it and /readyz answers 200; rejects with the output. */
function whenReady(child: ChildProcess, timeoutMs: number, output: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (err: Error | null, port = 0) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(port);
    };
    const timer = setTimeout(() => finish(new Error(`ucp-storefront sandbox: not ready within ${timeoutMs} ms.\n${output()}`)), timeoutMs);
    child.once('exit', (code, signal) => finish(new Error(`ucp-storefront sandbox: the server exited (${signal ?? code}) before it was ready.\n${output()}`)));
    const poll = async () => {
      const m = /listening on http:\/\/[^\s:]+:(\d+)/.exec(output());
      if (m) {
        const ok = await fetch(`http://127.0.0.1:${m[1]}/readyz`).then((r) => r.ok, () => false);
        if (ok) return finish(null, Number(m[1]));
      }
      if (!done) setTimeout(poll, 100);
    };
    void poll();
  });
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const port = opts.port ?? 0;
  if (!(Number.isInteger(port) && port >= 0 && port < 65536)) throw new TypeError(`port must be 0-65535, not ${String(port)}.`);
  const range = opts.portRange;
  if (range && !(range.length === 2 && range.every((p) => Number.isInteger(p) && p > 0 && p < 65536) && range[0] <= range[1])) {
    throw new TypeError(`portRange must be [first, last] with 1 <= first <= last <= 65535, not ${JSON.stringify(range)}.`);
  }
  sweepStaleSandboxes();
  if (!range) return startOn(port, opts);
  // A port found free may be taken before the server listens (another worker probing the same
  // range): the server then exits with EADDRINUSE and the next free port is tried.
  const tried = new Set<number>();
  for (;;) {
    const p = await freePortIn(range, tried);
    tried.add(p);
    try {
      return await startOn(p, opts);
    } catch (e) {
      if (!/EADDRINUSE/.test(String((e as Error).message))) throw e;
    }
  }
}

async function startOn(port: number, opts: SandboxOptions): Promise<Sandbox> {
  const temp = (opts.dataDir ?? 'temp') === 'temp' ? mkdtempSync(join(tmpdir(), TEMP_PREFIX)) : undefined;
  // The mark says "startSandbox made this for process PID": the server removes it when it exits,
  // and the next start sweeps it if both are gone (sweepStaleSandboxes).
  if (temp) writeFileSync(join(temp, TEMP_MARK), JSON.stringify({ pid: process.pid, created: new Date().toISOString() }));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    DATA_DIR: temp ? join(temp, 'data') : opts.dataDir,
    DATABASE_URL: opts.databaseUrl ?? '',
    PORT: '',
    HOST: '127.0.0.1',
    UCP_SANDBOX_TEMP: temp ?? '',
    ...opts.env,
  };
  // The IPC channel is how the server learns this process is gone, however it went (SIGKILL too):
  // it closes with us, and the bin then stops the server (bin/ucp-storefront.mjs).
  const child = spawn(process.execPath, [binPath(), 'start', '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  child.channel?.unref(); // nothing is sent on it; it must not keep this process alive
  let out = '';
  let partial = ''; // a line split across chunks reaches onOutput whole
  const onData = (d: Buffer) => {
    out += d;
    if (opts.onOutput) {
      const lines = (partial + String(d)).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) opts.onOutput(line);
    }
    if (out.length > 200_000) out = out.slice(-100_000); // a long-lived sandbox's log stays bounded
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  // A test runner that exits without stop() must not leave a server holding its port.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      process.off('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const late = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(late);
      }
      if (temp) rmSync(temp, { recursive: true, force: true });
    })());

  try {
    const actual = await whenReady(child, opts.startTimeoutMs ?? 120_000, () => out);
    return { ...connectSandbox(`http://localhost:${actual}`, stop), dataDir: env.DATA_DIR };
  } catch (e) {
    await stop();
    throw e;
  }
}
