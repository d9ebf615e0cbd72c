/**
 * One process per embedded data directory (server/db/data-dir-lock.ts): a second opener — a CLI
 * next to a running server — is refused with a clear message instead of corrupting the database;
 * a lock left by a dead process is taken over. Embedded pass only (vitest.config.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../server/db/index.ts';
import { DataDirInUse, lockDataDir, lockOwner, recordAddress } from '../server/db/data-dir-lock.ts';
import { runningServer } from '../server/cli/server-address.ts';
import { startTestServer } from './support/server.ts';
import { requestFrom } from './support/from-address.ts';
import { runCli } from '../server/cli/main.ts';
import { ROOT } from '../scripts/faults/lib.ts';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'ucp-lock-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('embedded data directory lock', () => {
  it('a second open of the same directory is refused while the first is open, and allowed after it closes', async () => {
    const dir = tempDir();
    const first = await openDatabase({ dataDir: dir });
    expect(readFileSync(join(dir, 'ucp.lock'), 'utf8')).toBe(String(process.pid));
    const err = await openDatabase({ dataDir: dir }).catch((e) => e);
    expect(err).toBeInstanceOf(DataDirInUse);
    expect(err.message).toMatch(/in use by process \d+/);
    await first.destroy();
    expect(existsSync(join(dir, 'ucp.lock'))).toBe(false);
    const again = await openDatabase({ dataDir: dir });
    await again.destroy();
  });

  it('a lock left by a process that is gone is taken over', async () => {
    const dir = tempDir();
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!; // exited: its pid is free
    writeFileSync(join(dir, 'ucp.lock'), String(dead));
    const db = await openDatabase({ dataDir: dir });
    expect(readFileSync(join(dir, 'ucp.lock'), 'utf8')).toBe(String(process.pid));
    await db.destroy();
  });

  it('a lock naming this very pid that this process did not take (a container restarted as pid 1) is stale', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'ucp.lock'), String(process.pid));
    const db = await openDatabase({ dataDir: dir });
    await db.destroy();
    expect(existsSync(join(dir, 'ucp.lock'))).toBe(false);
  });

  it('a CLI run next to a holder of the directory exits 1 with the message, not a stack trace', async () => {
    const dir = tempDir();
    const held = await openDatabase({ dataDir: dir });
    try {
      const child = spawn(process.execPath, ['bin/ucp-storefront.mjs', 'apps', 'list'], { cwd: ROOT, env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(out).toContain(`is in use by process ${process.pid}`);
      expect(out).not.toMatch(/\n\s+at /); // no stack
    } finally {
      await held.destroy();
    }
  });

  it('reset next to a running server names the endpoint that resets through it, at the address the server recorded', async () => {
    const dir = tempDir();
    const held = await openDatabase({ dataDir: dir });
    const resetErr = async () => {
      const child = spawn(process.execPath, ['bin/ucp-storefront.mjs', 'reset', '--shop', 'demo.localhost'], { cwd: ROOT, env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '', PORT: '8123' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      expect(await new Promise<number | null>((resolve) => child.once('exit', resolve))).toBe(1);
      return err;
    };
    try {
      // Before the server listens: HOST and PORT from the environment.
      expect(await resetErr()).toContain("curl -X POST -H 'Content-Type: application/json' http://127.0.0.1:8123/dev/shops/demo.localhost/reset");
      // Once it listens it records its real address (server/server.ts), whatever PORT says.
      recordAddress(dir, 'http://127.0.0.1:45678');
      // pid, address, and the control token a command hands an import to the server with (server/control/routes.ts).
      expect(readFileSync(join(dir, 'ucp.lock'), 'utf8')).toMatch(new RegExp(`^${process.pid}\nhttp://127\\.0\\.0\\.1:45678\n[A-Za-z0-9_-]{43}\n$`));
      expect(await resetErr()).toContain("curl -X POST -H 'Content-Type: application/json' http://127.0.0.1:45678/dev/shops/demo.localhost/reset");
    } finally {
      await held.destroy();
    }
  });

  it('a server records the address it listens on in the lock, and `requests` finds it there (no --server, no PORT)', async () => {
    const dir = tempDir();
    const running = await startTestServer({ dataDir: dir });
    try {
      expect(readFileSync(join(dir, 'ucp.lock'), 'utf8').split('\n').slice(0, 2)).toEqual([String(process.pid), running.url]);
      expect(lockOwner(dir)).toEqual({ pid: process.pid, url: running.url, token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      expect((await running.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'flask' })).status).toBe(200);
      let out = '';
      const code = await runCli(['requests', '--shop', 'demo.localhost'], { out: (t) => (out += `${t}\n`), err: (t) => (out += t), isTTY: false, env: { DATA_DIR: dir, DATABASE_URL: '' } });
      expect(code).toBe(0);
      expect(out).toMatch(/ search_catalog +200 /);
    } finally {
      await running.close();
    }
    expect(existsSync(join(dir, 'ucp.lock'))).toBe(false);
  });

  it("a server's lock says `starting` until it records its address; a command's lock says only its pid", () => {
    const dir = tempDir();
    const release = lockDataDir(dir, 'server');
    try {
      expect(lockOwner(dir)).toEqual({ pid: process.pid, starting: true });
      recordAddress(dir, 'http://127.0.0.1:45679');
      expect(lockOwner(dir)).toMatchObject({ pid: process.pid, url: 'http://127.0.0.1:45679' });
      expect(lockOwner(dir)?.starting).toBeUndefined();
    } finally {
      release();
    }
    const other = tempDir();
    const command = lockDataDir(other);
    try {
      expect(lockOwner(other)).toEqual({ pid: process.pid });
    } finally {
      command();
    }
  });

  it('a command waits for a starting server only: not for a command holding the directory, and not past its limit', async () => {
    const lines: string[] = [];
    const io = { err: (t: string) => lines.push(t) };
    const byCommand = tempDir();
    const command = lockDataDir(byCommand);
    try {
      const t0 = Date.now();
      expect(await runningServer({ dataDir: byCommand }, io, { waitMs: 5_000 })).toEqual({ pid: process.pid });
      expect(Date.now() - t0).toBeLessThan(1_000);
      expect(lines).toEqual([]);
    } finally {
      command();
    }
    const byServer = tempDir();
    const server = lockDataDir(byServer, 'server');
    try {
      expect(await runningServer({ dataDir: byServer }, io, { waitMs: 300, pollMs: 50 })).toEqual({ pid: process.pid, starting: true });
      expect(lines).toEqual([`The server holding ${byServer} (process ${process.pid}) is starting; waiting for it to listen…`]);
    } finally {
      server();
    }
  });

  it('an import run while the server is still starting waits for it and goes through it, instead of calling the directory busy', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { cwd: ROOT, env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'development' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      // The moment the server holds the directory, before it listens (opening, migrations, demo data).
      const deadline = Date.now() + 60_000;
      while (!lockOwner(dir)?.starting) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error('the server never took its data directory');
        await new Promise((r) => setTimeout(r, 20));
      }
      let out = '';
      let err = '';
      const code = await runCli(['import', '--shop', 'shop_moving_in', '--domain', 'moving-in.localhost', 'test/fixtures/import/shopify/product_template.csv'], {
        out: (t) => (out += `${t}\n`),
        err: (t) => (err += `${t}\n`),
        isTTY: false,
        env: { DATA_DIR: dir, DATABASE_URL: '' },
      });
      expect(err).toContain('is starting; waiting for it to listen');
      expect(err).not.toContain('in use by process');
      expect(code).toBe(0);
      expect(out).toMatch(/^imported shopify into shop shop_moving_in/m);
      // It went through the server: the running server answers with what was imported.
      const { url } = lockOwner(dir)!;
      const r = await requestFrom<{ products: unknown[] }>({ port: Number(new URL(url!).port), host: 'moving-in.localhost', method: 'POST', path: '/api/ucp/catalog/search', body: { query: 't-shirt' } });
      expect(r.status).toBe(200);
      expect(r.body.products.length).toBeGreaterThan(0);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    }
  }, 120_000);
});

