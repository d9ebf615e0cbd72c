/**
 * `npm run build -w ucp-storefront-client` (and its prepack): tsc over ../../src/client and
 * ../../src/wire into dist/, plus host.js's page types (../../types/host.d.ts, generated and
 * committed in the repository) as dist/host.d.ts. docs/packaging.md.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
rmSync(`${here}dist`, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', `${here}tsconfig.json`], { stdio: 'inherit' });
copyFileSync(`${here}../../types/host.d.ts`, `${here}dist/host.d.ts`);
