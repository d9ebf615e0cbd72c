/**
 * Functions a reader takes in whole (docs/architecture.md): no function or closure in server/ or
 * src/ spans more than 100 lines. A function's span runs from its first token to its closing brace,
 * comments and blank lines included, and a closure counts inside the function that holds it (a
 * factory returning twenty closures is as long as all of them). Read with the TypeScript parser.
 */
import { describe, expect, it } from 'vitest';
import ts from 'typescript';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const MAX_LINES = 100;

/**
 * Seed data builders, the one exception: a demo catalog or a generated product is a long
 * list of literal data, read as data, not as steps. Each entry must still exist (checked below).
 */
const DATA_BUILDERS = ['server/seed/build-demo.ts buildDemoCatalogs', 'server/seed/generate.ts generateProduct'];

/**
 * Functions split into named steps (issue 47 point 9: createApp was 83 lines, createUcpClient 93),
 * held with every function of their files to a tighter limit, so they do not grow back.
 */
const STEPPED = ['server/app.ts createApp', 'src/client/ucp-client.ts createUcpClient'];
const STEP_LINES = 80;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(join(ROOT, p)).isDirectory()) return sources(p);
    return /\.(ts|tsx)$/.test(f) && !/\.d\.ts$/.test(f) ? [p] : [];
  });
}

/** A function's name as a reader would look it up: its own, or the variable or property holding it. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) return parent.name.getText();
  return '(anonymous)';
}

/** Every function-like node with a body in `text`, as `path name` with its span in lines. */
export function functionSpans(path: string, text: string): Array<{ where: string; lines: number }> {
  const kind = path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const out: Array<{ where: string; lines: number }> = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const fn = node as ts.FunctionLikeDeclaration;
      out.push({ where: `${path}:${first + 1} ${nameOf(fn)}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

describe('function length', () => {
  const all = [...sources('server'), ...sources('src')].flatMap((f) => functionSpans(f, readFileSync(join(ROOT, f), 'utf8')));
  const exempt = (where: string) => DATA_BUILDERS.includes(where.replace(/:\d+ /, ' '));

  it(`no function or closure in server/ or src/ spans more than ${MAX_LINES} lines (seed data builders aside)`, () => {
    const long = all.filter((f) => f.lines > MAX_LINES && !exempt(f.where)).map((f) => `${f.where}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  it('each exempted data builder still exists (a stale exception would hide nothing and say something false)', () => {
    for (const name of DATA_BUILDERS) expect(all.some((f) => exempt(f.where) && f.where.replace(/:\d+ /, ' ') === name), name).toBe(true);
  });

  it(`${STEPPED.map((w) => w.split(' ')[1]).join(' and ')} and every function of their files span at most ${STEP_LINES} lines`, () => {
    const files = STEPPED.map((w) => w.split(' ')[0]);
    for (const name of STEPPED) expect(all.some((f) => f.where.replace(/:\d+ /, ' ') === name), name).toBe(true);
    const long = all.filter((f) => files.includes(f.where.split(':')[0]) && f.lines > STEP_LINES).map((f) => `${f.where}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  it('measures spans with nested closures inside their parent (the check itself)', () => {
    const body = Array.from({ length: 60 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = `export function outer() {\n  const inner = () => {\n${body}\n  };\n${body}\n  return inner;\n}\nconst arrow = (a: number) => a + 1;\n`;
    const spans = functionSpans('x.ts', text);
    expect(spans).toEqual([
      { where: 'x.ts:1 outer', lines: 125 },
      { where: 'x.ts:2 inner', lines: 62 },
      { where: 'x.ts:126 arrow', lines: 1 },
    ]);
  });
});
