/**
 * host.js size budget and CSP hygiene, on the built bundle (built by the test setup when
 * missing or stale). host.js is an ES module entry plus lazily imported chunks (vite.config.ts,
 * docs/host-js.md "Build and delivery"):
 *  - the entry, what every storefront page view pays: ≤ 14 KB gzip (fails the run when exceeded;
 *    lowered from 15 KB when the customization picker and the cart's body became lazy chunks, so
 *    shopper fixes have room);
 *  - entry + the embedded role's chunks (a framed cart page), entry + the host role's chunks
 *    (an agent page calling UCP.openCart) and entry + the WebMCP chunk (a shop page in a browser
 *    with `document.modelContext`): ≤ 20 KB gzip each.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const DIST = new URL('../dist/', import.meta.url);
const FILE = new URL('host.js', DIST);
const GRAPH = new URL('host-chunks.json', DIST);
export const BUDGET_BYTES = 14 * 1024;
export const ROLE_BUDGET_BYTES = 20 * 1024;

type Role = 'embedded' | 'host' | 'webmcp' | 'search' | 'picker' | 'cart';
interface Graph {
  entry: string;
  entryModules: string[];
  chunks: Array<{ file: string; role: Role | null; imports: string[]; modules: string[] }>;
}

const gz = (b: Buffer) => gzipSync(b, { level: 9 }).length;

// Built by test/support/build-host.ts (vitest global setup) when missing or stale.
describe('dist/host.js', () => {
  const code = readFileSync(FILE);
  const graph: Graph = JSON.parse(readFileSync(GRAPH, 'utf8'));
  const chunk = (f: string) => readFileSync(new URL(f, DIST));
  /** A role's chunks: its own and everything it imports. */
  const closure = (role: Role) => {
    const out = new Set<string>();
    const add = (f: string) => {
      if (out.has(f)) return;
      out.add(f);
      for (const i of graph.chunks.find((c) => c.file === f)?.imports ?? []) add(i);
    };
    for (const c of graph.chunks) if (c.role === role) add(c.file);
    return [...out];
  };
  const entrySize = gz(code);

  it(`entry (every storefront page view) is at most ${BUDGET_BYTES} bytes gzip`, () => {
    expect(entrySize, `host.js is ${entrySize} bytes gzip (budget ${BUDGET_BYTES})`).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  for (const role of ['embedded', 'host', 'webmcp', 'search', 'picker', 'cart'] as const) {
    it(`entry + ${role} role chunks are at most ${ROLE_BUDGET_BYTES} bytes gzip`, () => {
      const files = closure(role);
      expect(files.length, `no ${role} role chunk`).toBeGreaterThan(0);
      const sizes = files.map((f) => gz(chunk(f)));
      // Each chunk is a real piece of protocol code, and none is close to the entry's size.
      for (const [i, s] of sizes.entries()) {
        expect(s, files[i]).toBeGreaterThan(500);
        expect(s, files[i]).toBeLessThan(6 * 1024);
      }
      const total = entrySize + sizes.reduce((a, b) => a + b, 0);
      expect(total, `host.js + ${files.join(' + ')} = ${total} bytes gzip`).toBeLessThanOrEqual(ROLE_BUDGET_BYTES);
    });
  }

  it('the entry carries neither protocol role; each role is in its own chunk', () => {
    expect(graph.entry).toBe('host.js');
    expect(graph.entryModules.filter((m) => m.startsWith('src/embedded/'))).toEqual([]);
    expect(graph.entryModules.some((m) => m.startsWith('src/host/role-'))).toBe(false);
    const owner = (m: string) => graph.chunks.filter((c) => c.modules.includes(m)).map((c) => c.role);
    expect(owner('src/embedded/embedded.ts')).toEqual(['embedded']);
    expect(owner('src/embedded/host.ts')).toEqual(['host']);
    for (const m of ['src/embedded/rpc.ts', 'src/embedded/guards.ts', 'src/embedded/origins.ts']) expect(owner(m)).toHaveLength(1);
  });

  it('the WebMCP tools are a chunk of their own, sharing nothing with the roles, with no zod in it', () => {
    expect(graph.entryModules.filter((m) => m.startsWith('src/webmcp/'))).toEqual([]);
    expect(graph.entryModules).toContain('src/host/webmcp-gate.ts');
    const [web, ...more] = graph.chunks.filter((c) => c.role === 'webmcp');
    expect(more).toEqual([]);
    expect(web.imports).toEqual([]);
    // src/wire/errors.ts: the shared severity rule, which the entry does not carry (docs/errors.md).
    expect(web.modules.sort()).toEqual(['src/webmcp/confirm.ts', 'src/webmcp/results.ts', 'src/webmcp/tools.ts', 'src/webmcp/webmcp.ts', 'src/wire/errors.ts']);
    // The entry imports it only behind the `document.modelContext` check.
    const s = code.toString('utf8');
    const at = s.indexOf(`./${web.file}`);
    expect(at).toBeGreaterThan(0);
    expect(s.lastIndexOf('document.modelContext', at)).toBeGreaterThan(at - 300);
  });

  it('<ucp-search> is a chunk of its own, importing nothing (no Preact, no zod), loaded only by the element', () => {
    expect(graph.entryModules.filter((m) => m.startsWith('src/search/'))).toEqual([]);
    const [search, ...more] = graph.chunks.filter((c) => c.role === 'search');
    expect(more).toEqual([]);
    expect(search.imports).toEqual([]);
    expect(search.modules.sort()).toEqual(['src/format/availability.ts', 'src/search/search.ts']);
    const s = code.toString('utf8');
    const at = s.indexOf(`./${search.file}`);
    expect(at).toBeGreaterThan(0);
    expect(s.indexOf(`./${search.file}`, at + 1)).toBe(-1);
  });

  it('the pickers (customizations, options) and the cart body are chunks of their own, importing nothing (Preact comes from the entry as an argument)', () => {
    const parts = { picker: ['src/views/customize.tsx', 'src/views/options.tsx'], cart: ['src/format/amounts.ts', 'src/format/line-text.ts', 'src/views/cart-body.tsx'] };
    for (const [role, modules] of Object.entries(parts)) {
      for (const m of modules) expect(graph.entryModules).not.toContain(m);
      const [c, ...more] = graph.chunks.filter((x) => x.role === role);
      expect(more).toEqual([]);
      expect(c.imports).toEqual([]);
      expect(c.modules.sort()).toEqual(modules);
    }
  });

  it('no chunk duplicates Preact / @preact/signals or any other module, and no chunk imports the entry', () => {
    for (const c of graph.chunks) {
      expect(c.modules.filter((m) => m.includes('node_modules')), c.file).toEqual([]);
      expect(c.imports).not.toContain('host.js');
      expect(chunk(c.file).toString('utf8')).not.toMatch(/from\s*["'`]\.\/host(\.[0-9a-f]+)?\.js/);
    }
    expect(graph.entryModules.some((m) => m.includes('node_modules/preact/'))).toBe(true);
    expect(graph.entryModules.some((m) => m.includes('node_modules/@preact/signals-core/'))).toBe(true);
    const all = [...graph.entryModules, ...graph.chunks.flatMap((c) => c.modules)];
    expect(all.length).toBe(new Set(all).size);
  });

  it('runs under a strict CSP: no eval, no Function constructor, no inline style/script injection', () => {
    for (const [name, buf] of [['host.js', code], ...graph.chunks.map((c) => [c.file, chunk(c.file)] as const)] as const) {
      const s = buf.toString('utf8');
      expect(s, name).not.toMatch(/\beval\(/);
      expect(s, name).not.toMatch(/new Function\(/);
      expect(s, name).not.toMatch(/createElement\(["'`]script["'`]\)/);
    }
    const s = code.toString('utf8');
    expect(s).not.toMatch(/createElement\(["'`]style["'`]\)/);
    expect(s).toContain('adoptedStyleSheets');
  });

  it('is a self-contained ES module: no static imports, lazy imports only of its own chunks, relative to its URL', () => {
    const s = code.toString('utf8');
    expect(s).not.toMatch(/^\s*import[\s{*"'`]/m);
    expect(s).not.toMatch(/\bimport\s*\{/);
    const lazy = [...s.matchAll(/\bimport\(([^)]*)\)/g)].map((m) => m[1]);
    expect(lazy.length).toBeGreaterThan(0);
    for (const spec of lazy) expect(spec).toMatch(/^["'`]\.\/host-[\w.-]+\.js["'`]$/);
    const files = new Set(graph.chunks.map((c) => c.file));
    for (const spec of lazy) expect(files.has(spec.slice(3, -1))).toBe(true);
    // Chunks import only each other, relatively (no bare specifiers, no absolute URLs).
    for (const c of graph.chunks) {
      for (const m of chunk(c.file).toString('utf8').matchAll(/\bfrom\s*(["'`])([^"'`]+)\1/g)) expect(m[2], c.file).toMatch(/^\.\/host-[\w.-]+\.js$/);
    }
  });
});
