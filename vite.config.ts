/**
 * Builds host.js as an ES module with code splitting (docs/host-js.md "Build and delivery"):
 *   dist/host.js                        the entry every page loads: Preact + @preact/signals core, the
 *                                       widget, mode selection, `window.UCP` (no static imports)
 *   dist/host-role-embedded-<hash>.js   the embedded role, imported only on a framed cart page
 *   dist/host-role-host-<hash>.js       the host role, imported on the first `UCP.openCart()`
 *   dist/host-webmcp-<hash>.js          the WebMCP tools, imported only where `document.modelContext` exists
 *   dist/host-customize-<hash>.js       the customization and option pickers, imported when a product with customizations or several options shows
 *   dist/host-cart-body-<hash>.js       the cart's body, imported when the cart dialog first opens or the cart page renders
 *   dist/host-<name>-<hash>.js          code shared by the two roles (never by the entry)
 *   dist/host-chunks.json               the chunk graph, read by server/storefront/hostjs.ts and tests
 * Served by server/storefront/hostjs.ts. The same build then makes dist/apps/shop.html, the MCP Apps
 * view (vite.apps.config.ts).
 */
import { readdirSync, unlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, defineConfig, type Plugin, type Rolldown } from 'vite';
import { minifyCss, preactSignalsCoreOnly } from './vite.shared.ts';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The chunk whose facade is one of these modules plays that protocol role. */
const ROLES: Record<string, 'embedded' | 'host' | 'webmcp' | 'search' | 'picker' | 'cart'> = {
  'role-embedded.ts': 'embedded',
  'role-host.ts': 'host',
  'webmcp.ts': 'webmcp',
  'search.ts': 'search',
  'customize.tsx': 'picker',
  'cart-body.tsx': 'cart',
};

export interface HostChunks {
  entry: 'host.js';
  /** `modules`: the source modules in the chunk, relative to the repository (for tests). */
  chunks: Array<{ file: string; role: 'embedded' | 'host' | 'webmcp' | 'search' | 'picker' | 'cart' | null; imports: string[]; modules: string[] }>;
  entryModules: string[];
}

/**
 * After chunking: (1) every lazy `import("./host-…js")` in the entry also starts fetching that chunk's
 * static imports (the shared protocol chunk), so a role costs one round trip, not two; (2) writes
 * `host-chunks.json`; (3) deletes `host-*.js` left over from earlier builds (`emptyOutDir` is off).
 */
function hostChunks(): Plugin {
  let outDir = '';
  return {
    name: 'ucp-host-chunks',
    generateBundle(opts, bundle) {
      outDir = opts.dir ?? '';
      const chunks = Object.values(bundle).filter((c): c is Rolldown.OutputChunk => c.type === 'chunk');
      const entry = chunks.find((c) => c.isEntry);
      if (!entry || entry.fileName !== 'host.js') this.error('host.js: expected one entry chunk named host.js');
      const deps = (file: string, seen = new Set<string>()) => {
        for (const i of (bundle[file] as Rolldown.OutputChunk).imports) if (!seen.has(i)) deps(i, seen.add(i));
        return seen;
      };
      const loaded = deps('host.js');
      const rel = (c: Rolldown.OutputChunk) => c.moduleIds.map((id) => id.replace(root, '').replace(/\?.*$/, ''));
      entry.code = entry.code.replace(/\bimport\((["'`])\.\/(host-[\w.-]+\.js)\1\)/g, (m, _q: string, file: string) => {
        const extra = [...deps(file)].filter((f) => !loaded.has(f) && f !== 'host.js');
        return extra.length ? `Promise.all([${[file, ...extra].map((f) => `import("./${f}")`).join()}]).then(m=>m[0])` : m;
      });
      const manifest: HostChunks = {
        entry: 'host.js',
        chunks: chunks
          .filter((c) => !c.isEntry)
          .map((c) => ({ file: c.fileName, role: ROLES[(c.facadeModuleId ?? '').split(/[\\/]/).pop()!] ?? null, imports: c.imports, modules: rel(c) })),
        entryModules: rel(entry),
      };
      this.emitFile({ type: 'asset', fileName: 'host-chunks.json', source: `${JSON.stringify(manifest, null, 2)}\n` });
    },
    writeBundle(_opts, bundle) {
      for (const f of readdirSync(outDir)) if (/^host-.*\.js$/.test(f) && !(f in bundle)) unlinkSync(`${outDir}/${f}`);
    },
  };
}

/** Then the MCP Apps view from the same views (vite.apps.config.ts): one `vite build` makes both. */
function appsView(): Plugin {
  return {
    name: 'ucp-apps-view',
    apply: 'build',
    async closeBundle() {
      await build({ configFile: `${root}vite.apps.config.ts`, logLevel: 'warn' });
    },
  };
}

export default defineConfig({
  publicDir: false,
  plugins: [minifyCss(), hostChunks(), appsView()],
  // Preact's and the signals' development branches, if any, are dead code in host.js.
  define: { 'process.env.NODE_ENV': '"production"' },
  // `development: false`: Vite turns on the JSX dev transform (`__source`/`__self` on every element,
  // ≈0.6 KB gzip) whenever NODE_ENV is not "production", e.g. when vitest's global setup builds
  // host.js (test/support/build-host.ts); the shipped and the measured bundle must be the same.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact', development: false } },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    // es2022: no down-levelling (class fields, `??=`, optional chaining stay native).
    target: 'es2022',
    minify: 'oxc',
    sourcemap: false,
    reportCompressedSize: true,
    rolldownOptions: {
      // Imported constants are written where they are used: the UCP revision has one source
      // (src/wire/version.ts) that the entry and the lazy chunks all import, and inlined it is a
      // literal in each part instead of a shared chunk every page would fetch first.
      optimization: { inlineConst: { mode: 'all', pass: 1 } },
      output: {
        // Lazily imported role chunks and the code they share; content-hashed, served immutable.
        // (`[name]` is the role module's name; the chunk the roles share is named `shared`.)
        chunkFileNames: (c) => (c.isDynamicEntry ? 'host-[name]-[hash].js' : 'host-shared-[hash].js'),
        // Vite's library mode keeps whitespace and pure annotations in ES output (for re-bundling):
        // host.js is shipped as is, so minify fully, as the IIFE was.
        minify: { compress: true, mangle: true, codegen: true },
        comments: { legal: false, annotation: false, jsdoc: false },
      },
      treeshake: {
        /**
         * host.js uses @preact/signals through its core API only (`signal`, `computed`, `effect`,
         * `batch`): the elements re-render their view in an `effect` (src/host/elements.tsx), and no
         * component relies on the Preact integration's auto-subscription. That integration (option
         * hooks + preact/hooks) is the module body of @preact/signals itself: treating it as free of
         * side effects lets the bundle keep just the re-exported core (≈1.2 KB gzip saved, and
         * preact/hooks with it). See docs/host-js.md "Size budget". src/wire/version.ts is constants
         * only: once they are inlined nothing of it is left to import, not even for its side effects.
         */
        moduleSideEffects: (id) => preactSignalsCoreOnly(id) && !/[\\/]src[\\/]wire[\\/]version\.ts$/.test(id),
      },
    },
    lib: {
      entry: `${root}src/host/main.ts`,
      formats: ['es'],
      fileName: () => 'host.js',
    },
  },
});
