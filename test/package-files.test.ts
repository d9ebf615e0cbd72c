/**
 * What `npm pack` would put in the server package, read from `npm pack --dry-run` (quick; the whole
 * pack → install → run is test/package.test.ts): public/ ships, the demo agent's test fixtures
 * (public/agent/forge.*, frame.*: a hostile frame and a framer, e2e/security.spec.ts) do not
 * (issue 47). package.json "files" excludes them with negated globs.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

it('the package carries public/ and the demo agent, not its test fixtures', () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const files: string[] = JSON.parse(out)[0].files.map((f: { path: string }) => f.path);
  expect(files).toContain('public/storefront.css');
  expect(files).toContain('public/agent/index.html');
  expect(files).toContain('public/agent/agent.js');
  expect(files.filter((f) => /^public\/agent\/(forge|frame)\./.test(f))).toEqual([]);
}, 60_000);
