/**
 * Vitest global setup: the host.js tests (budget, delivery) read the built bundle in dist/, so build
 * it when it is missing or older than any file under src/. scripts/test-all.sh builds first, so in
 * CI this only checks; a developer running `npx vitest` alone gets a fresh bundle instead of a
 * test that reads a stale one (or none).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUTPUTS = ['dist/host.js', 'dist/host-chunks.json', 'dist/apps/shop.html'].map((f) => join(ROOT, f));

function newestUnder(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

export default function setup(): void {
  const built = OUTPUTS.every(existsSync) ? Math.min(...OUTPUTS.map((f) => statSync(f).mtimeMs)) : 0;
  const inputs = Math.max(newestUnder(join(ROOT, 'src')), ...['vite.config.ts', 'vite.apps.config.ts', 'vite.shared.ts'].map((f) => statSync(join(ROOT, f)).mtimeMs));
  if (built >= inputs) return;
  // As shipped: a production build (vitest sets NODE_ENV=test, which would change the output).
  execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
}
