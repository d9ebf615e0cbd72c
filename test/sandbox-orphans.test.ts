/**
 * Orphaned sandboxes (issue 39 points 9, 10, 13): when the process that called `startSandbox()`
 * dies without `stop()` — SIGINT, SIGTERM, SIGKILL, SIGKILL of a test process under `npm run` — the
 * server notices by its IPC channel closing and stops within seconds, port freed, throwaway data
 * directory removed by the server itself. `npx ucp-storefront start` whose npm is SIGKILLed stops
 * too (npm's shell stays; the bin watches npm behind it). Directories left by a server killed
 * outright are swept at the next start, only ours and only unused. `portRange` takes a free port in
 * a range (the Playwright fixture's `workerPorts`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox, sweepStaleSandboxes } from '../src/testing/sandbox.ts';
import { workerPortRange } from '../src/testing/playwright.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'ucp-orphans-test-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

// A test process of a builder's: starts a sandbox, says where it is, and waits (never calls stop()).
writeFileSync(
  join(work, 'parent.mjs'),
  `import { startSandbox } from ${JSON.stringify(join(ROOT, 'src/testing/index.ts'))};
const s = await startSandbox();
console.log(JSON.stringify({ pid: process.pid, port: s.port, dataDir: s.dataDir }));
setInterval(() => {}, 60_000);
`,
);
writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'builder', private: true, type: 'module', scripts: { t: 'node --import tsx parent.mjs' } }));
mkdirSync(join(work, 'node_modules/.bin'), { recursive: true });
symlinkSync(join(ROOT, 'node_modules/tsx'), join(work, 'node_modules/tsx'));
symlinkSync(join(ROOT, 'bin/ucp-storefront.mjs'), join(work, 'node_modules/.bin/ucp-storefront'));

const env = { ...process.env, NODE_OPTIONS: '', DATABASE_URL: '', NODE_ENV: 'development', PORT: '' };

/** Spawns `cmd` in the builder's project; resolves with the child and the first output matching `re`. */
function launch(cmd: string, args: string[], re: RegExp, extra: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(cmd, args, { cwd: work, env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      const match = re.exec(out);
      if (match) resolve({ child, match });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d) => (out += d));
    child.once('exit', (code, signal) => reject(new Error(`${cmd} exited ${signal ?? code} before it was ready\n${out}`)));
  });
}

const refused = (port: number) =>
  fetch(`http://127.0.0.1:${port}/readyz`).then(
    () => false,
    (e) => /ECONNREFUSED/.test(String(e?.cause?.code ?? e?.cause?.message)),
  );

/** Milliseconds until `check` holds (polled every 100 ms), or Infinity after `limit` ms. */
async function within(limit: number, check: () => boolean | Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < limit) {
    if (await check()) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 100));
  }
  return Infinity;
}

const SANDBOX = /(\{"pid".*\})\n/;

describe('a sandbox whose starter dies without stop()', () => {
  for (const [how, signal, viaNpm] of [
    ['SIGINT to it', 'SIGINT', false],
    ['SIGTERM to it', 'SIGTERM', false],
    ['SIGKILL to it', 'SIGKILL', false],
    ['SIGKILL to it under npm run', 'SIGKILL', true],
  ] as const) {
    it(`stops within seconds, port free and directory gone: ${how}`, async () => {
      const { match } = viaNpm ? await launch('npm', ['run', '--silent', 't'], SANDBOX) : await launch(process.execPath, ['--import', 'tsx', 'parent.mjs'], SANDBOX);
      const { pid, port, dataDir } = JSON.parse(match[1]) as { pid: number; port: number; dataDir: string };
      expect(await refused(port)).toBe(false);
      expect(existsSync(dataDir)).toBe(true);
      process.kill(pid, signal);
      expect(await within(8_000, () => refused(port))).toBeLessThan(8_000);
      expect(await within(5_000, () => !existsSync(join(dataDir, '..')))).toBeLessThan(5_000);
    }, 180_000);
  }

  it('`npx ucp-storefront start` stops when npm is SIGKILLed (its shell left waiting)', async () => {
    const { child, match } = await launch('npm', ['exec', '-c', 'ucp-storefront start --port 0'], /listening on http:\/\/127\.0\.0\.1:(\d+)/, { DATA_DIR: join(work, 'npx-data') });
    const port = Number(match[1]);
    expect(await refused(port)).toBe(false);
    child.kill('SIGKILL');
    expect(await within(8_000, () => refused(port))).toBeLessThan(8_000);
  }, 180_000);
});

describe('stale sandbox directories', () => {
  it('are swept at the next start: only ours (name and mark), only when neither maker nor server lives', async () => {
    const dir = mkdtempSync(join(work, 'tmp-'));
    // A pid that is surely gone: a child that has exited.
    const dead = await new Promise<number>((r) => {
      const c = spawn(process.execPath, ['-e', '0']);
      c.once('exit', () => r(c.pid!));
    });
    const make = (name: string, mark?: object, lockPid?: number) => {
      mkdirSync(join(dir, name, 'data'), { recursive: true });
      if (mark) writeFileSync(join(dir, name, 'ucp-sandbox.json'), JSON.stringify(mark));
      if (lockPid) writeFileSync(join(dir, name, 'data', 'ucp.lock'), `${lockPid}\n`);
    };
    make('ucp-sandbox-stale', { pid: dead });
    make('ucp-sandbox-stale-lock', { pid: dead }, dead);
    make('ucp-sandbox-maker-alive', { pid: process.pid });
    make('ucp-sandbox-server-alive', { pid: dead }, process.pid);
    make('ucp-sandbox-no-mark');
    make('other-stale', { pid: dead });
    const removed = sweepStaleSandboxes(dir).map((p) => p.slice(dir.length + 1)).sort();
    expect(removed).toEqual(['ucp-sandbox-stale', 'ucp-sandbox-stale-lock']);
    for (const kept of ['ucp-sandbox-maker-alive', 'ucp-sandbox-server-alive', 'ucp-sandbox-no-mark', 'other-stale']) expect(existsSync(join(dir, kept)), kept).toBe(true);
  });
});

describe('portRange', () => {
  it('takes the first free port of the range; a range with none free is refused by name', async () => {
    const busy = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => busy.once('listening', r));
    const taken = (busy.address() as { port: number }).port;
    try {
      await expect(startSandbox({ portRange: [taken, taken] })).rejects.toThrow(`no free port in ${taken}-${taken}`);
      await expect(startSandbox({ portRange: [5, 1] })).rejects.toThrow(/portRange must be \[first, last\]/);
      const sandbox = await startSandbox({ portRange: [taken, taken + 3] });
      try {
        expect(sandbox.port).toBeGreaterThan(taken);
        expect(sandbox.port).toBeLessThanOrEqual(taken + 3);
      } finally {
        await sandbox.stop();
      }
    } finally {
      busy.close();
    }
    expect(workerPortRange({ first: 9000, perWorker: 10 }, 0)).toEqual([9000, 9009]);
    expect(workerPortRange({ first: 9000, perWorker: 10 }, 3)).toEqual([9030, 9039]);
    expect(() => workerPortRange({ first: 9000, perWorker: 0 }, 1)).toThrow(/workerPorts must be/);
  }, 180_000);
});
