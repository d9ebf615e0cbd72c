/**
 * Builds the MCP Apps view (src/apps/main.tsx) into one self-contained document,
 * dist/apps/shop.html, served by `resources/read` of `ui://ucp/shop.html` (server/mcp/apps.ts).
 * Hosts load a view under the MCP Apps default CSP (`script-src 'self' 'unsafe-inline'`,
 * `connect-src 'none'`, no origin of its own to load files from), so the script and the styles are
 * inlined and nothing is split into chunks. Run by vite.config.ts after host.js (one `vite build`
 * builds both), and on its own with `vite build -c vite.apps.config.ts`. Budget: 40 KB gzip
 * (test/mcp-apps-budget.test.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { minifyCss, preactSignalsCoreOnly } from './vite.shared.ts';

const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = `${root}dist/apps`;

/**
 * The document around the script. The host's standard style variables (MCP Apps "Theming") feed
 * the views' `--ucp-*` properties; where a host sends none, the views' own light/dark defaults
 * apply (a custom property naming an unset variable is invalid, so `var(--ucp-…, default)` falls back).
 */
const DOCUMENT_CSS = [
  'html,body{margin:0;background:transparent}',
  '#app{display:block;padding:2px',
  ';--ucp-fg:var(--color-text-primary);--ucp-bg:var(--color-background-primary);--ucp-muted:var(--color-text-secondary)',
  ';--ucp-border:var(--color-border-primary);--ucp-accent:var(--color-background-inverse);--ucp-accent-fg:var(--color-text-inverse)',
  ';--ucp-error:var(--color-text-danger);--ucp-radius:var(--border-radius-md)',
  ';--ucp-font:var(--font-text-md-size,15px)/var(--font-text-md-line-height,1.45) var(--font-sans,system-ui,sans-serif)}',
].join('');

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The document's own CSP (issue 47), defence in depth beneath the host's: the one inline script and
 * the one inline style by their hashes (computed here, at build time), nothing else that runs or
 * styles; no connections (the view reaches the shop only through the host's `tools/call`), no
 * frames, plugins, `<base>` or form submissions. Images may come from any http(s) origin: this
 * document is the same for every shop while its images are each shop's own (the storefront's
 * origin and its catalog's image hosts); the host's CSP, built from the resource's
 * `_meta.ui.csp.resourceDomains`, is the per-shop bound (docs/mcp-apps.md "The resource and its CSP").
 * Host fonts (`styles.css.fonts`) arrive as constructable stylesheets, which `style-src` does not
 * govern, and their files as `font-src`.
 */
export function viewCsp(script: string, style: string): string {
  return [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    'img-src https: http: data:',
    'font-src https: data:',
    "connect-src 'none'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function page(script: string): string {
  // `</script` inside the code would end the element early; `<\/script` is the same string to JS.
  const code = script.replace(/<\/(script)/gi, '<\\/$1');
  const csp = viewCsp(code, DOCUMENT_CSS);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Shop</title><style>${DOCUMENT_CSS}</style></head><body><div id="app"></div><script type="module">${code}</script></body></html>\n`;
}

/** Writes shop.html with the bundle inlined, and drops the bundle file itself. */
function inlineIntoPage(): Plugin {
  return {
    name: 'ucp-apps-page',
    writeBundle() {
      const js = `${outDir}/shop.js`;
      writeFileSync(`${outDir}/shop.html`, page(readFileSync(js, 'utf8')));
      rmSync(js);
    },
  };
}

export default defineConfig({
  publicDir: false,
  plugins: [minifyCss(), inlineIntoPage()],
  define: { 'process.env.NODE_ENV': '"production"' },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact', development: false } },
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    minify: 'oxc',
    sourcemap: false,
    reportCompressedSize: false,
    rolldownOptions: {
      output: {
        // One file: the views' lazily imported parts (picker, cart body) are part of the document.
        codeSplitting: false,
        minify: { compress: true, mangle: true, codegen: true },
        comments: { legal: false, annotation: false, jsdoc: false },
      },
      treeshake: { moduleSideEffects: preactSignalsCoreOnly },
    },
    lib: { entry: `${root}src/apps/main.tsx`, formats: ['es'], fileName: () => 'shop.js' },
  },
});
