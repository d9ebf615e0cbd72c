/**
 * Builds host.js: one self-contained IIFE (Preact + @preact/signals bundled in) at `dist/host.js`,
 * exposing `window.UCP`. Served by server/storefront/hostjs.ts. See docs/host-js.md.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The embedded-protocol module (src/embedded/index.ts) is written in parallel; until it exists the
 * build links a stub with the same interface (plain page, no host mode).
 */
function embeddedFallback(): Plugin {
  const real = `${root}src/embedded/index.ts`;
  return {
    name: 'ucp-embedded-fallback',
    enforce: 'pre',
    resolveId(source) {
      if (source.endsWith('/embedded/index.ts') && !existsSync(real)) return `${root}src/host/embedded-stub.ts`;
      return null;
    },
  };
}

export default defineConfig({
  publicDir: false,
  plugins: [embeddedFallback()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    minify: true,
    sourcemap: false,
    reportCompressedSize: true,
    lib: {
      entry: `${root}src/host/main.ts`,
      name: 'UCP',
      formats: ['iife'],
      fileName: () => 'host.js',
    },
  },
});
