/**
 * What the two browser builds share: host.js (vite.config.ts) and the MCP Apps view
 * (vite.apps.config.ts) are made from the same views, with the same CSS minifier and tree-shaking.
 */
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Constructable-stylesheet CSS is shipped verbatim: collapse the whitespace of every template
 * literal marked with a leading `/* css *\/` comment at build time (comments, line breaks and
 * spaces around punctuation; the CSS itself is written without any `${…}`).
 */
export function minifyCss(): Plugin {
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

/**
 * The views use @preact/signals through its core API only (`signal`, `computed`, `effect`, `batch`):
 * they re-render in an `effect`, and no component relies on the Preact integration's
 * auto-subscription, whose option hooks are the module body of @preact/signals itself. Treating
 * that module as free of side effects keeps just the re-exported core (docs/host-js.md "Size budget").
 */
export const preactSignalsCoreOnly = (id: string) => !/[\\/]@preact[\\/]signals[\\/]dist[\\/]/.test(id);
