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

/**
 * Constructable-stylesheet CSS is shipped verbatim: collapse the whitespace of every template
 * literal marked with a leading `/* css *\/` comment at build time (comments, line breaks and
 * spaces around punctuation; the CSS itself is written without any `${…}`).
 */
function minifyCss(): Plugin {
  const collapse = (css: string) =>
    css
      .replace(/\/\*[^]*?\*\//g, '')
      .replace(/\s+/g, ' ')
      .replace(/ ?([{};,]) ?/g, '$1')
      .replace(/;}/g, '}')
      .trim();
  return {
    name: 'ucp-minify-css',
    enforce: 'pre',
    transform(code, id) {
      if (!id.startsWith(`${root}src/`) || !code.includes('/* css */')) return null;
      return { code: code.replace(/\/\* css \*\/ *`([^`$]*)`/g, (_, css: string) => JSON.stringify(collapse(css))), map: null };
    },
  };
}

export default defineConfig({
  publicDir: false,
  plugins: [embeddedFallback(), minifyCss()],
  // Preact's and the signals' development branches, if any, are dead code in host.js.
  define: { 'process.env.NODE_ENV': '"production"' },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    // es2022: no down-levelling (class fields, `??=`, optional chaining stay native).
    target: 'es2022',
    minify: 'oxc',
    sourcemap: false,
    reportCompressedSize: true,
    rolldownOptions: {
      output: { comments: { legal: false } },
      treeshake: {
        /**
         * host.js uses @preact/signals through its core API only (`signal`, `computed`, `effect`,
         * `batch`): the elements re-render their view in an `effect` (src/host/elements.tsx), and no
         * component relies on the Preact integration's auto-subscription. That integration (option
         * hooks + preact/hooks) is the module body of @preact/signals itself: treating it as free of
         * side effects lets the bundle keep just the re-exported core (≈1.2 KB gzip saved, and
         * preact/hooks with it). See docs/host-js.md "Size budget".
         */
        moduleSideEffects: (id: string) => !/[\\/]@preact[\\/]signals[\\/]dist[\\/]/.test(id),
      },
    },
    lib: {
      entry: `${root}src/host/main.ts`,
      name: 'UCP',
      formats: ['iife'],
      fileName: () => 'host.js',
    },
  },
});
