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
    expect(graph.get('server/core/carts.ts')).toContain('server/core/types.ts');
    expect(graph.size).toBeGreaterThan(100);
  });

  it('have no cycles in server/ or src/', () => {
    expect(cycles(importGraph(['server', 'src']))).toEqual([]);
  });

  it('a cycle would be found (the check itself)', () => {
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
  });
});
