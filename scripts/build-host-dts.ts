/**
 * Writes types/host.d.ts: host.js's public types (src/host/types.ts) bundled into one self-contained
 * declaration file (the wire types it mentions inlined, no imports), so a page author can drop it
 * into a project as is. It is generated, committed, served at /ucp/host.d.ts and shipped in the
 * package as `ucp-storefront/host`; test/host-dts.test.ts fails when it is stale.
 *
 *   npm run build:host-dts            regenerate
 *   tsx scripts/build-host-dts.ts --print   print to stdout (what the test compares)
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generateDtsBundle } from 'dts-bundle-generator';

const root = fileURLToPath(new URL('..', import.meta.url));
export const HOST_DTS = `${root}types/host.d.ts`;

const HEADER = `/**
 * host.js public types: the \`UCP\` global, \`UCP.openCart\`, the <ucp-product> / <ucp-cart> elements
 * and their attributes, and the \`ucp:*\` events (docs/host-js.md, docs/embedded.md).
 * Use: \`/// <reference types="ucp-storefront/host" />\` or copy this file (served at /ucp/host.d.ts).
 * Generated from src/host/types.ts by scripts/build-host-dts.ts: do not edit.
 */
`;

export function buildHostDts(): string {
  const [out] = generateDtsBundle(
    [{ filePath: `${root}src/host/types.ts`, output: { inlineDeclareGlobals: true, noBanner: true } }],
    { preferredConfigPath: `${root}tsconfig.host-dts.json` },
  );
  return HEADER + out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const text = buildHostDts();
  if (process.argv.includes('--print')) process.stdout.write(text);
  else {
    writeFileSync(HOST_DTS, text);
    console.log(`wrote ${HOST_DTS} (${text.length} bytes)`);
  }
}
