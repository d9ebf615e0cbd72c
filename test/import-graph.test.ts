/**
 * The house's arrows (docs/architecture.md): no import cycle anywhere in server/ or src/, type-only
 * imports included (a cycle of types still means two modules that cannot be read apart). Built
 * from the import and re-export statements of every source file; a cycle fails with its members.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(join(ROOT, p)).isDirectory()) return sources(p);
    return /\.(ts|tsx|mjs)$/.test(f) && !/\.d\.m?ts$/.test(f) ? [p] : [];
  });
}

/** file → the project files it imports (relative specifiers only; packages are leaves). */
export function importGraph(dirs: string[]): Map<string, string[]> {
  const files = dirs.flatMap(sources);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const text = readFileSync(join(ROOT, f), 'utf8');
    const specs = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm), ...text.matchAll(/import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)].map((m) => m[1]);
    graph.set(f, [...new Set(specs.map((s) => relative(ROOT, resolve(ROOT, dirname(f), s))).filter((d) => known.has(d)))]);
  }
  return graph;
}

/** Strongly connected components with more than one file (Tarjan), or a file importing itself. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('imports', () => {
  it('the graph is read (sanity: a known edge is there)', () => {
    const graph = importGraph(['server', 'src']);
    expect(graph.get('server/core/carts/carts.ts')).toContain('server/formats/types.ts');
    expect(graph.size).toBeGreaterThan(100);
  });

  it('have no cycles in server/ or src/', () => {
    expect(cycles(importGraph(['server', 'src']))).toEqual([]);
  });

  it('a cycle would be found (the check itself)', () => {
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
  });
});

/**
 * The layers, lowest first (docs/architecture.md). A file may import from its own folder and from
 * lower layers; folders in one layer do not import each other. The top layer assembles the rest.
 * The domain core (server/core/) is layered inside by domain: what every domain uses (shared/),
 * then the domains with nothing below them but shared/ (a shop, who may call, accounts, product
 * documents), search over products, the catalog (reads, loads) over search, and carts and orders
 * over the catalog. Carts may use the catalog; the catalog never names a cart.
 */
const LAYERS: string[][] = [
  ['src/wire', 'src/format'],
  ['src/client', 'server/version.ts', 'server/config.ts'],
  ['src/state', 'src/testing', 'server/lib', 'server/formats'],
  ['src/views', 'server/db'],
  ['src/webmcp', 'src/embedded', 'src/search', 'server/core/shared'],
  ['server/core/shops', 'server/core/access', 'server/core/accounts', 'server/core/products'],
  ['server/core/search'],
  ['server/core/catalog'],
  ['server/core/carts', 'server/core/orders'],
  ['src/host', 'src/apps', 'server/seed', 'server/import'],
  ['server/http'],
  ['server/oauth'],
  ['server/ucp', 'server/merchant', 'server/graphql', 'server/dev', 'server/control'],
  ['server/mcp', 'server/storefront'],
  ['server/app.ts', 'server/platform.ts', 'server/server.ts', 'server/cluster.ts', 'server/main.ts', 'server/cli'],
];
const TOP = LAYERS.length - 1;

/**
 * The unit a file belongs to: its folder under server/ or src/ (under server/core/, its domain
 * folder), or the file itself at server/'s root.
 */
const unitOf = (f: string) => f.split('/').slice(0, f.startsWith('server/core/') ? 3 : 2).join('/');
const layerOf = (unit: string) => LAYERS.findIndex((l) => l.includes(unit));

/** Upward or sideways imports. The browser's public API types (src/host/types.ts) are a contract, erased at build: any layer may name them. */
export function layerViolations(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [from, tos] of graph) {
    for (const to of tos) {
      const [a, b] = [unitOf(from), unitOf(to)];
      if (a === b || to === 'src/host/types.ts') continue;
      const [la, lb] = [layerOf(a), layerOf(b)];
      if (la < 0 || lb < 0) out.push(`${from} -> ${to} (a folder with no layer: add it to LAYERS)`);
      else if (lb > la || (lb === la && la !== TOP)) out.push(`${from} -> ${to}`);
    }
  }
  return out;
}

describe('layers', () => {
  it('every import points down (or within its folder)', () => {
    expect(layerViolations(importGraph(['server', 'src']))).toEqual([]);
  });

  it('an upward or sideways import would be found (the check itself)', () => {
    const g = new Map([
      ['server/core/carts/a.ts', ['server/http/b.ts', 'server/core/catalog/f.ts', 'server/core/carts/g.ts']],
      ['server/ucp/c.ts', ['server/merchant/d.ts', 'server/core/carts/a.ts']],
      ['server/new/e.ts', ['server/core/carts/a.ts']],
      ['server/core/catalog/f.ts', ['server/core/carts/a.ts', 'server/core/shared/h.ts']],
      ['server/core/carts/g.ts', ['server/core/orders/i.ts']],
      ['server/core/j.ts', ['server/core/shared/h.ts']],
    ]);
    expect(layerViolations(g)).toEqual([
      'server/core/carts/a.ts -> server/http/b.ts',
      'server/ucp/c.ts -> server/merchant/d.ts',
      'server/new/e.ts -> server/core/carts/a.ts (a folder with no layer: add it to LAYERS)',
      'server/core/catalog/f.ts -> server/core/carts/a.ts',
      'server/core/carts/g.ts -> server/core/orders/i.ts',
      'server/core/j.ts -> server/core/shared/h.ts (a folder with no layer: add it to LAYERS)',
    ]);
  });
});

describe('server and browser', () => {
  // What both sides use is shared by design: the wire schemas and the pure reading rules of
  // src/format (amounts, a line's customizations, availability in words). Never a view, a client
  // or the browser's state: those change for the browser's reasons.
  it('server/ imports from src/ only src/wire and src/format', () => {
    const out: string[] = [];
    for (const [from, tos] of importGraph(['server', 'src'])) {
      if (!from.startsWith('server/')) continue;
      for (const to of tos) if (to.startsWith('src/') && !/^src\/(wire|format)\//.test(to)) out.push(`${from} -> ${to}`);
    }
    expect(out).toEqual([]);
  });
});

describe('seeding', () => {
  // Demo data and first-run seeds are for starting a server and for development, not a transport's
  // business: the account service lists its kept demo apps from the accounts domain, and MCP is
  // handed the demo's fixtures in words by the assembly. Who may use server/seed: the development
  // routes and the top layer that starts the server.
  const SEED_USERS = ['server/dev', ...LAYERS[TOP]];

  it('only the development routes and the assembly import server/seed', () => {
    const graph = importGraph(['server']);
    const users = [...graph].filter(([from, tos]) => unitOf(from) !== 'server/seed' && tos.some((t) => t.startsWith('server/seed/'))).map(([from]) => from);
    expect(users.filter((f) => !SEED_USERS.includes(unitOf(f)))).toEqual([]);
    expect(users.length).toBeGreaterThan(0); // the check itself reads real imports
  });
});

describe('configuration', () => {
  // One source per setting (docs/architecture.md): the environment is read by config.ts, and handed
  // to it by the CLI's process wiring; everything else gets a Config.
  const READERS = ['server/config.ts', 'server/cli/cli.ts'];

  it('process.env is read in server/config.ts only (and handed over by the CLI entry)', () => {
    const readers = [...importGraph(['server']).keys()].filter((f) => /process\.env\b/.test(readFileSync(join(ROOT, f), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')));
    expect(readers.sort()).toEqual([...READERS].sort());
  });
});


describe('folders', () => {
  // A folder a reader takes in at a glance (docs/architecture.md): when one outgrows this, it holds
  // more than one thing, and the things get folders of their own (as server/core/ did).
  const MAX_FILES = 20;
  const folders = (dir: string): string[] => [dir, ...readdirSync(join(ROOT, dir)).filter((f) => statSync(join(ROOT, dir, f)).isDirectory()).flatMap((f) => folders(join(dir, f)))];
  const count = (dir: string) => readdirSync(join(ROOT, dir)).filter((f) => /\.(ts|tsx)$/.test(f) && !/\.d\.ts$/.test(f)).length;

  it(`no folder in server/ or src/ holds more than ${MAX_FILES} source files directly`, () => {
    const over = [...folders('server'), ...folders('src')].filter((d) => count(d) > MAX_FILES).map((d) => `${d}: ${count(d)}`);
    expect(over).toEqual([]);
  });

  it('the count is read (sanity: the domain folders exist and hold files)', () => {
    expect(count('server/core/carts')).toBeGreaterThan(3);
    expect(count('server/core')).toBe(0);
  });
});
