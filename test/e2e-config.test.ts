/**
 * The browser suite's server (playwright.config.ts, scripts/e2e-server.sh) starts from a fresh
 * database it deletes first: two suites run side by side in one checkout (E2E_PORT) must each have
 * their own, or one deletes the other's under its running server.
 */
import { describe, expect, it, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

async function configFor(port: string) {
  const before = process.env.E2E_PORT;
  process.env.E2E_PORT = port;
  try {
    // A fresh module per port: the config reads E2E_PORT when it loads.
    vi.resetModules();
    return await import('../playwright.config.ts');
  } finally {
    if (before === undefined) delete process.env.E2E_PORT;
    else process.env.E2E_PORT = before;
  }
}

describe('browser suites side by side', () => {
  it('give each port its own database directory', async () => {
    const [a, b] = [await configFor('8391'), await configFor('9391')];
    const dirOf = (c: typeof a) => (c.default.webServer as Array<{ env?: Record<string, string> }>)[0].env?.DATA_DIR;
    expect(dirOf(a)).toBe(a.DATA_DIR);
    expect(dirOf(a)).not.toBe(dirOf(b));
    expect(dirOf(b)).toContain('9391');
  });

  it('scripts/e2e-server.sh run on its own defaults to a directory named for its port', () => {
    const script = readFileSync(resolve(ROOT, 'scripts/e2e-server.sh'), 'utf8');
    // Everything before the `rm -rf`: the defaults, evaluated as the script would.
    const defaults = script.slice(0, script.indexOf('rm -rf'));
    const out = execFileSync('bash', ['-c', `${defaults}\necho "$DATA_DIR"`], { cwd: ROOT, env: { PATH: process.env.PATH, PORT: '9555' }, encoding: 'utf8' });
    expect(out.trim()).toBe('.tmp/e2e-db-9555');
  });
});
