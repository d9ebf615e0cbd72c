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
import { DataDirInUse } from '../server/db/data-dir-lock.ts';
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

  it('reset next to a running server names the endpoint that resets through it', async () => {
    const dir = tempDir();
    const held = await openDatabase({ dataDir: dir });
    try {
      const child = spawn(process.execPath, ['bin/ucp-storefront.mjs', 'reset', '--shop', 'shop_demo'], { cwd: ROOT, env: { ...process.env, DATA_DIR: dir, DATABASE_URL: '', PORT: '8123' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(err).toContain("curl -X POST -H 'Content-Type: application/json' http://localhost:8123/dev/shops/shop_demo/reset");
    } finally {
      await held.destroy();
    }
  });
});
