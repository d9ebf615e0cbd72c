/**
 * One source for the UCP revisions per side (issue 47 point 9): src/wire/version.ts spells them, the
 * browser code (host.js, the MCP Apps view, the client) imports them from there, and the server
 * from server/version.ts, which re-exports them. host.js gets them inlined by its build
 * (vite.config.ts `inlineConst`), so the entry and its lazy chunks need no module of their own for it
 * (test/host-budget.test.ts: no static import in the entry, none between the chunks it names).
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { UCP_LATEST, UCP_VERSION, UCP_VERSIONS } from '../src/wire/version.ts';
import { EP_VERSION } from '../src/wire/ep.ts';
import * as server from '../server/version.ts';

const ROOT = resolve(import.meta.dirname, '..');
const NAMES = ['UCP_VERSION', 'UCP_LATEST', 'UCP_VERSIONS', 'UcpVersion'];
const SOURCE = 'src/wire/version.ts';
const SERVER_SOURCE = 'server/version.ts';

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((f) => {
    const p = join(dir, f);
    return statSync(join(ROOT, p)).isDirectory() ? files(p) : /\.(ts|tsx|mjs)$/.test(f) && !/\.d\.ts$/.test(f) ? [p] : [];
  });
}

const code = (f: string) => readFileSync(join(ROOT, f), 'utf8').replace(/\/\/.*|\/\*[\s\S]*?\*\//g, '');

/** The project files `f` takes any of NAMES from (import or re-export statements). */
export function versionImports(f: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    const names = m[1].split(',').map((s) => s.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]);
    if (names.some((n) => NAMES.includes(n))) out.push(relative(ROOT, resolve(ROOT, dirname(f), m[2])));
  }
  return out;
}

describe('the UCP revisions', () => {
  it('the server and the embedded protocol name the same ones', () => {
    expect(UCP_VERSIONS).toEqual([UCP_VERSION, UCP_LATEST]);
    expect(EP_VERSION).toBe(UCP_VERSION);
    expect([server.UCP_VERSION, server.UCP_LATEST, server.UCP_VERSIONS]).toEqual([UCP_VERSION, UCP_LATEST, UCP_VERSIONS]);
  });

  it(`are spelled in ${SOURCE} only (comments aside)`, () => {
    const spelled = [...files('server'), ...files('src')].filter((f) => /['"`]\d{4}-\d{2}-\d{2}['"`]/.test(code(f)));
    // src/apps/bridge.ts spells the MCP Apps protocol's version (a date too), server/version.ts the MCP revisions: never UCP's.
    expect(spelled.sort()).toEqual([SERVER_SOURCE, 'src/apps/bridge.ts', SOURCE]);
    for (const f of [SERVER_SOURCE, 'src/apps/bridge.ts']) for (const v of UCP_VERSIONS) expect(code(f), f).not.toMatch(new RegExp(`['"\`]${v}['"\`]`));
    expect(readFileSync(join(ROOT, 'src/apps/bridge.ts'), 'utf8')).toContain("PROTOCOL_VERSION = '2026-01-26'");
  });

  it(`the server takes them from ${SERVER_SOURCE}, the browser code from ${SOURCE}`, () => {
    const stray = [...files('server'), ...files('src')].flatMap((f) => {
      const from = versionImports(f, code(f));
      const own = f === SERVER_SOURCE ? SOURCE : f.startsWith('server/') ? SERVER_SOURCE : SOURCE;
      return from.filter((d) => d !== own).map((d) => `${f} takes a UCP revision from ${d}`);
    });
    expect(stray).toEqual([]);
  });

  it('the import check reads what it should (the check itself)', () => {
    const text = "import { answerIn, UCP_VERSION } from './versions.ts';\nimport type { UcpVersion } from '../version.ts';\nexport { UCP_LATEST as L } from '../../src/wire/version.ts';\nimport { other } from './x.ts';\n";
    expect(versionImports('server/ucp/a.ts', text)).toEqual(['server/ucp/versions.ts', 'server/version.ts', 'src/wire/version.ts']);
  });
});
