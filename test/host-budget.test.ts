/**
 * host.js size budget and CSP hygiene, on the built bundle (`npx vite build` runs first in
 * scripts/test-all.sh). Fails the build when dist/host.js exceeds 15 KB gzip.
 */
import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const FILE = new URL('../dist/host.js', import.meta.url);
export const BUDGET_BYTES = 15 * 1024;

describe.skipIf(!existsSync(FILE))('dist/host.js', () => {
  const code = existsSync(FILE) ? readFileSync(FILE) : Buffer.alloc(0);

  it(`is at most ${BUDGET_BYTES} bytes gzip`, () => {
    const size = gzipSync(code, { level: 9 }).length;
    expect(size, `host.js is ${size} bytes gzip (budget ${BUDGET_BYTES})`).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('runs under a strict CSP: no eval, no Function constructor, no inline style/script injection', () => {
    const s = code.toString('utf8');
    expect(s).not.toMatch(/\beval\(/);
    expect(s).not.toMatch(/new Function\(/);
    expect(s).not.toMatch(/createElement\(["'`]style["'`]\)/);
    expect(s).not.toMatch(/createElement\(["'`]script["'`]\)/);
    expect(s).toContain('adoptedStyleSheets');
  });

  it('is one self-contained classic script (IIFE, no imports)', () => {
    const s = code.toString('utf8');
    expect(s).not.toMatch(/^\s*import[\s{*]/m);
    expect(s).not.toMatch(/\bimport\(/);
  });
});

it('dist/host.js has been built (npx vite build)', () => {
  expect(existsSync(FILE)).toBe(true);
});
