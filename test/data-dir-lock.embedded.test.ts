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
import { DataDirInUse, lockOwner, recordAddress } from '../server/db/data-dir-lock.ts';
import { startTestServer } from './support/server.ts';
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
});
