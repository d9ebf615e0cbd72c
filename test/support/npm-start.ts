/**
 * Runs the server exactly as a newcomer does, `npm start` in the repository, as a child process: the
 * environment is this process's minus what the test runner and the suite add (NODE_ENV=test,
 * VITEST_*, TEST_DATABASE_URL, DATABASE_URL, UCP_* settings), plus a free PORT and a fresh DATA_DIR
 * — the only two settings that may differ. Resolves once the start banner is complete.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface NpmStarted {
  port: number;
  /** Everything the process printed on stdout so far (the banner). */
  banner: () => string;
  stop(): Promise<void>;
}

const ROOT = resolve(import.meta.dirname, '../..');

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });
}

/** The user's environment, without what the test runner or the suite put there. */
export function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(VITEST|TEST_|UCP_|NODE_ENV$|DATABASE_URL$|PORT$|DATA_DIR$|HOST$|SEED_DEMO$|TRUST_PROXY$|AUTH_URL$|ACCESS_LOG$|NODE_OPTIONS$)/.test(k)) continue;
    env[k] = v;
  }
  return env;
}

export async function npmStart(timeoutMs = 170_000): Promise<NpmStarted> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'ucp-npm-start-'));
  const child: ChildProcess = spawn('npm', ['start'], { cwd: ROOT, env: { ...userEnv(), PORT: String(port), DATA_DIR: dataDir }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const stop = async () => {
    if (child.exitCode === null && child.pid) {
      const exited = new Promise((r) => child.once('exit', r));
      try {
        process.kill(-child.pid, 'SIGTERM'); // npm, its shell and the server: one process group
      } catch {
        /* already gone */
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`npm start did not finish its banner within ${timeoutMs} ms:\n${out}\n${err}`)), timeoutMs);
      const check = () => {
        // The banner's last line (development mode) names the admin page.
        if (/admin, own apps/.test(out)) {
          clearTimeout(timer);
          res();
        }
      };
      child.stdout!.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        rej(new Error(`npm start exited with ${code}:\n${out}\n${err}`));
      });
    });
  } catch (e) {
    await stop();
    throw e;
  }
  return { port, banner: () => out, stop };
}
