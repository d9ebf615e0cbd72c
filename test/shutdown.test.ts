/**
 * The real start command, as operators run it (issue 29): `npm start` stops on SIGTERM sent to the
 * npm process (process managers and CI send exactly that), finishing the request in flight and
 * closing the database; `node bin/ucp-storefront.mjs start` stops on SIGINT; production refuses to
 * start without KEY_ENCRYPTION_SECRET (exit 2) and prints only its public addresses. Slow (each
 * start loads the server through tsx): the cases share processes where they can.
 *
 * Each case starts a real process on its own port and data directory (the embedded database: the
 * signal path is the same on PostgreSQL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { userEnv } from './support/npm-start.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/ucp-storefront.mjs');
const dirs: string[] = [];
const groups: number[] = [];
afterAll(() => {
  // Cleanup only, after the assertions: a server a failed case left behind (its process group).
  for (const pid of groups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone, as it should be */
    }
  }
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'ucp-shutdown-'));
  dirs.push(dir);
  return { ...userEnv(), PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(dir, 'data'), NODE_ENV: 'development', KEY_ENCRYPTION_SECRET: '', ...extra };
}

interface Started {
  child: ChildProcess;
  port: number;
  out: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns the command and resolves once it prints its listening address. */
function start(command: string, args: string[], environment: NodeJS.ProcessEnv, cwd = ROOT): Promise<Started> {
  // Its own process group, so that cleanup can reach a server the signal did not stop.
  const child = spawn(command, args, { cwd, env: environment, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  if (child.pid) groups.push(child.pid);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        child.stdout!.off('data', check);
        resolve({ child, port: Number(m[1]), out: () => out, exited });
      }
    };
    child.stdout!.on('data', check);
    void exited.then(({ code }) => reject(new Error(`exited (${code}) before listening:\n${out}`)));
  });
}

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.on('connect', () => (s.destroy(), resolve(false)));
    s.on('error', () => resolve(true));
  });

/** A cart POST whose body arrives in two halves: the second only when `rest()` is called. */
function slowCartPost(port: number) {
  const body = JSON.stringify({ line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] });
  const half = Math.floor(body.length / 2);
  let answer!: Promise<{ status: number; text: string }>;
  const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/ucp/carts', headers: { host: `demo.localhost:${port}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } });
  answer = new Promise((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, half));
  return { rest: () => req.end(body.slice(half)), answer };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 100 ms for up to `ms`; its last answer. */
async function within(ms: number, check: () => boolean | Promise<boolean>): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (await check()) return true;
  return check();
}

/** A project with this package installed as npm links a folder (node_modules/.bin), for `npx`. */
function projectWithPackage(): string {
  const proj = mkdtempSync(join(tmpdir(), 'ucp-npx-'));
  dirs.push(proj);
  writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'builder', private: true }));
  mkdirSync(join(proj, 'node_modules/.bin'), { recursive: true });
  symlinkSync(ROOT, join(proj, 'node_modules/ucp-storefront'));
  symlinkSync('../ucp-storefront/bin/ucp-storefront.mjs', join(proj, 'node_modules/.bin/ucp-storefront'));
  return proj;
}

/** Runs the CLI to completion. */
function run(args: string[], environment: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: environment });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('stopping', () => {
  it('SIGTERM to `npm start` (the npm process) finishes the request in flight, closes the database and frees the port', async () => {
    const e = env();
    const s = await start('npm', ['start'], e);
    const post = slowCartPost(s.port);
    await sleep(300); // the request is in its handler, waiting for the rest of its body
    s.child.kill('SIGTERM'); // to npm, as a process manager would
    await sleep(300);
    post.rest();
    const answer = await post.answer;
    expect(answer.status, answer.text).toBe(201);
    expect(JSON.parse(answer.text).id).toMatch(/^cart_/);
    const exit = await s.exited;
    expect(exit, s.out()).toEqual({ code: 0, signal: null });
    expect(s.out()).toMatch(/SIGTERM: stopping[\s\S]*Stopped\./);
    expect(await portIsFree(s.port)).toBe(true);
    // The database was closed cleanly: the data directory opens again, with the cart that was in flight.
    const reset = await run(['reset', '--shop', 'shop_demo', '--json'], e);
    expect(reset.code, reset.out).toBe(0);
    expect(JSON.parse(reset.out).deleted.carts).toBe(1);
  }, 180_000);

  it('SIGTERM to `npx ucp-storefront start --port 0` (npm exec, then sh, then node) stops the server: no orphan, port free', async () => {
    const proj = projectWithPackage();
    const s = await start('npx', ['--no-install', 'ucp-storefront', 'start', '--port', '0'], env(), proj);
    expect(s.port).toBeGreaterThan(0); // --port 0: the banner names the port it got
    expect(await portIsFree(s.port)).toBe(false);
    s.child.kill('SIGTERM'); // to npx only, as CI or a process manager would
    await s.exited;
    // npm forwards the signal to its `sh -c`, which dies without passing it on; the server notices
    // its parent is gone and stops itself, cleanly.
    expect(await within(8_000, () => portIsFree(s.port)), s.out()).toBe(true);
    // The port is freed first; the database then closes (a checkpoint: seconds on a loaded machine,
    // more than 8 in a full run at load 7-9). The bound proves it ends, not how fast.
    expect(await within(30_000, () => /Stopped\./.test(s.out())), s.out()).toBe(true);
  }, 180_000);
});

describe('production start', () => {
  it('refuses to start without KEY_ENCRYPTION_SECRET, or with a short one: a clear message, exit 2', async () => {
    const prod = { NODE_ENV: 'production', AUTH_URL: 'https://accounts.example.com' };
    const [none, short, keys] = await Promise.all([
      run(['start'], env(prod)),
      run(['start'], env({ ...prod, KEY_ENCRYPTION_SECRET: 'hunter2' })),
      // The CLI writes what the server reads (signing keys): it refuses the same way.
      run(['keys', 'rotate', '--shop', 'shop_demo'], env({ NODE_ENV: 'production' })),
    ]);
    // Production writes JSON lines only, the refusal too (issue 39 point 17): one line, its cause.
    expect(none.code).toBe(2);
    const [line, ...more] = none.out.trim().split('\n');
    expect(more).toEqual([]);
    expect(JSON.parse(line)).toMatchObject({ level: 'error', scope: 'start', cause: 'setting', msg: expect.stringMatching(/^Not starting: KEY_ENCRYPTION_SECRET is required in production.*openssl rand -base64 32/) });
    expect(none.out).not.toMatch(/\n\s+at /); // no stack trace
    expect(short.code).toBe(2);
    expect(JSON.parse(short.out.trim()).msg).toMatch(/KEY_ENCRYPTION_SECRET must be a random string of at least 32 characters/);
    expect(keys.code).toBe(1);
    expect(keys.out).toMatch(/KEY_ENCRYPTION_SECRET is required in production/);
  }, 120_000);

  it('prints only public addresses (AUTH_URL, https shop domains, no demo agent); `node bin/ucp-storefront.mjs start` stops on SIGINT', async () => {
    const s = await start(process.execPath, [BIN, 'start'], env({ NODE_ENV: 'production', AUTH_URL: 'https://accounts.example.com', KEY_ENCRYPTION_SECRET: 'a'.repeat(44), SEED_DEMO: '1' }));
    await sleep(200); // the rest of the banner
    expect(s.out()).toMatch(/platform\s+https:\/\/accounts\.example\.com\//);
    expect(s.out()).toMatch(/demo\.localhost\s+https:\/\/demo\.localhost\/ /);
    expect(s.out()).not.toMatch(/agent demo|agent\.localhost|http:\/\/localhost:/);
    s.child.kill('SIGINT'); // Ctrl-C, straight to node: no npm, no shell
    expect(await s.exited, s.out()).toEqual({ code: 0, signal: null });
    expect(s.out()).toMatch(/SIGINT: stopping[\s\S]*Stopped\./);
    // Every line of production's output is JSON (the banner and the stop lines too: issue 39 point 17).
    const lines = s.out().trim().split('\n');
    expect(lines.length).toBeGreaterThan(5);
    for (const l of lines) expect(() => JSON.parse(l), l).not.toThrow();
    expect(lines.map((l) => JSON.parse(l).msg)).toContainEqual(expect.stringMatching(/^SIGINT: stopping/));
    expect(await portIsFree(s.port)).toBe(true);
  }, 180_000);
});
