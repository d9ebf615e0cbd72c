/**
 * Both served OpenAPI documents pass Redocly CLI's recommended ruleset with no error and no warning
 * (issue 30: an outside builder's linter found 9 `security-defined` errors and 36 warnings). The
 * documents are fetched from a real server, as a builder would, and linted with the CLI itself and
 * the checked-in redocly.yaml (which turns off two rules, each with its reason written there).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './support/server.ts';

const ROOT = join(import.meta.dirname, '..');
let s: TestServer;
let dir: string;
beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(join(ROOT, '.tmp-openapi-lint-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await s.close();
});

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
}

/** Lints one document with `redocly lint --format=json`; the CLI exits 1 on errors and still prints the report. */
function lint(name: string, doc: unknown): LintReport {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(doc));
  let out: string;
  try {
    out = execFileSync(join(ROOT, 'node_modules/.bin/redocly'), ['lint', '--config', join(ROOT, 'redocly.yaml'), '--format=json', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (e) {
    out = (e as { stdout: string }).stdout;
  }
  return JSON.parse(out) as LintReport;
}

const summary = (r: LintReport) => r.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);

it.each([
  ['the UCP REST document of an open shop', 'demo.localhost', '/api/ucp/openapi.json'],
  ['the UCP REST document of a shop with a stricter policy', 'strict.localhost', '/api/ucp/openapi.json'],
  ['the UCP 2026-08-25 REST document (issue 37)', 'demo.localhost', '/api/ucp/openapi.json?version=2026-08-25'],
  ['the merchant API document', 'localhost', '/merchants/shop_demo/3.0/openapi.json'],
])('%s: 0 errors, 0 warnings under the recommended ruleset', async (name, host, path) => {
  const r = await s.req(host, 'GET', path);
  expect(r.status).toBe(200);
  const report = lint(host, r.body);
  expect(summary(report)).toEqual([]);
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
}, 60_000);

it('the lint is not blind: a document without security schemes fails it, as the old one did', async () => {
  const doc = (await s.req('demo.localhost', 'GET', '/api/ucp/openapi.json')).body;
  const { securitySchemes: _gone, ...components } = doc.components;
  const report = lint('no-security', { ...doc, components });
  expect(report.totals.errors).toBeGreaterThan(0);
  expect(report.problems.map((p) => p.ruleId)).toContain('security-defined');
}, 60_000);
