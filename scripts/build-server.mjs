#!/usr/bin/env node
/**
 * `npm run build:server` (run by prepack): the server and its CLI as plain JavaScript in dist/server/,
 * so an installed package starts without tsx or esbuild (issue 38 point 2; docs/packaging.md).
 *
 * esbuild bundles server/cli/main.ts (and server/cluster.ts, for `node dist/server/cluster.js`) with
 * every npm package left external: they are the package's dependencies, resolved from node_modules as
 * in development. Dynamic imports become chunks beside the entries.
 *
 * Files the server reads beside its own modules (`new URL('./x', import.meta.url)`) are copied next to
 * the bundle: dist/server/ is two levels under the package root, like every server/<dir>/ module, so
 * the `../../public/`, `../../dist/host.js`, `../../types/host.d.ts` paths stay true unchanged. The one
 * module one level deep (server/version.ts reads `../package.json`) is rewritten by the plugin below.
 */
import { build } from 'esbuild';
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = `${ROOT}dist/server`;

/** server/version.ts sits one level under the root; its bundled copy sits two. */
const versionPath = {
  name: 'package-json-path',
  setup(b) {
    b.onLoad({ filter: /[\\/]server[\\/]version\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes("('../package.json')")) throw new Error('server/version.ts no longer reads ../package.json: update scripts/build-server.mjs');
      return { contents: text.replace("('../package.json')", "('../../package.json')"), loader: 'ts' };
    });
  },
};

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: { cli: 'server/cli/main.ts', cluster: 'server/cluster.ts' },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  packages: 'external',
  chunkNames: '[name]-[hash]', // beside the entries: same depth, same relative paths
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [versionPath],
});
// What the bundle reads beside itself.
for (const f of ['db/pglite-worker.mjs', 'db/pglite-durable.mjs', 'dev/inspector-page.js']) cpSync(`${ROOT}server/${f}`, `${OUT}/${f.split('/').pop()}`);
cpSync(`${ROOT}server/seed/data`, `${OUT}/data`, { recursive: true });
