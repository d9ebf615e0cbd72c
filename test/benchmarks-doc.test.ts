/**
 * docs/benchmarks.md is a page of current results, one section per area, not a lab journal (issue 47
 * point 9): each section gives the command that reproduces its figure and the machine's load when it
 * was taken, every `BENCH_ONLY` area of bench/run.ts has its place on the page, and the runs a new
 * figure replaces go to docs/benchmarks-history.md, which the page links.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const PAGE = readFileSync(join(ROOT, 'docs/benchmarks.md'), 'utf8');
/** Room for every area's current table and a few lines on it; the 1,376-line journal it replaced did not fit. */
const MAX_LINES = 600;

/** `## Heading` → its text up to the next `## `. */
function sections(md: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of md.split(/^## /m).slice(1)) out.set(part.slice(0, part.indexOf('\n')), part);
  return out;
}

describe('docs/benchmarks.md', () => {
  const areas = sections(PAGE);

  it(`is a page (at most ${MAX_LINES} lines) that links its history`, () => {
    expect(PAGE.split('\n').length).toBeLessThanOrEqual(MAX_LINES);
    expect(PAGE).toContain('](benchmarks-history.md)');
    expect(existsSync(join(ROOT, 'docs/benchmarks-history.md'))).toBe(true);
  });

  it('keeps the areas other pages and benches name', () => {
    for (const area of ['Search', 'Carts', 'MCP', 'Import', 'Profile cache', 'host.js', 'MCP Apps view', 'Packages', 'Browsers']) expect([...areas.keys()], area).toContain(area);
    expect(areas.get('Catalog loading')).toContain('### Loading many shops');
  });

  it('gives each area the command that reproduces it and the load it was measured at', () => {
    for (const [area, text] of areas) {
      expect(text, `${area}: no command`).toMatch(/`(?:[A-Z_]+=\S* )*(?:npm|npx) [^`]+`/);
      expect(text, `${area}: no load`).toMatch(/\bload\b/);
    }
  });

  it('has a place for every BENCH_ONLY area of bench/run.ts', () => {
    const names = new Set([...readFileSync(join(ROOT, 'bench/run.ts'), 'utf8').matchAll(/ONLY === '([\w-]+)'/g)].map((m) => m[1]));
    expect(names.size).toBeGreaterThan(10);
    expect([...names].filter((n) => !PAGE.includes(`BENCH_ONLY=${n} `))).toEqual([]);
  });
});
