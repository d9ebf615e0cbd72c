/**
 * One source for the UCP revision (src/wire/version.ts). The browser bundle keeps literal copies
 * where a shared module would become an extra chunk (src/host/version.ts says why): each must
 * equal the source, and no other file may spell a revision of its own.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UCP_VERSION } from '../src/wire/version.ts';
import { UCP_VERSION as HOST_VERSION } from '../src/host/version.ts';
import { EP_VERSION } from '../src/wire/ep.ts';
import { UCP_VERSION as SERVER_VERSION } from '../server/version.ts';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx|mjs)$/.test(f) ? [p] : [];
  });
}

describe('the UCP revision', () => {
  it('every copy equals src/wire/version.ts', () => {
    expect(HOST_VERSION).toBe(UCP_VERSION);
    expect(EP_VERSION).toBe(UCP_VERSION);
    expect(SERVER_VERSION).toBe(UCP_VERSION);
  });

  it('is spelled only in the source and its three bundle copies', () => {
    const spelled = [...files('server'), ...files('src')].filter((f) => /['"`]\d{4}-\d{2}-\d{2}['"`]/.test(readFileSync(f, 'utf8').replace(/\/\/.*|\/\*[\s\S]*?\*\//g, '')));
    // src/apps/bridge.ts spells the MCP Apps protocol's version (a date too), never UCP's; server/version.ts the MCP revisions.
    expect(spelled.sort()).toEqual(['server/version.ts', 'src/apps/bridge.ts', 'src/host/version.ts', 'src/webmcp/results.ts', 'src/wire/ep.ts', 'src/wire/version.ts']);
    expect(readFileSync('server/version.ts', 'utf8').replace(/\/\/.*|\/\*[\s\S]*?\*\//g, '')).not.toContain(`'${UCP_VERSION}'`);
    expect(readFileSync('src/webmcp/results.ts', 'utf8')).toContain(`'${UCP_VERSION}'`);
    expect(readFileSync('src/apps/bridge.ts', 'utf8')).toContain("PROTOCOL_VERSION = '2026-01-26'");
    expect(readFileSync('src/apps/bridge.ts', 'utf8')).not.toContain(UCP_VERSION);
  });
});
