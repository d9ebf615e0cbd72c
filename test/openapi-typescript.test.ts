/**
 * The served OpenAPI documents are usable by a code generator (issue 30): `openapi-typescript`
 * turns both into TypeScript, a small program written against those types
 * (test/fixtures/openapi-client/program.ts: search titles, a cart's totals, a cancel, a protocol
 * error's paths, a merchant product page) type-checks with `tsc --noEmit --strict`, and then runs
 * against the real server, so the types describe real answers. A control run shows the check can
 * fail: the same program does not compile against documents whose success bodies are the empty
 * shells they used to be.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { Agent, fetch as undiciFetch } from 'undici';
import { startTestServer, type TestServer } from './support/server.ts';
import { tokensFor } from './support/oauth.ts';

const ROOT = join(import.meta.dirname, '..');
const PROGRAM = join(import.meta.dirname, 'fixtures/openapi-client/program.ts');

let s: TestServer;
let ucpDoc: any;
let merchantDoc: any;
const dirs: string[] = [];
beforeAll(async () => {
  s = await startTestServer();
  ucpDoc = (await s.req('demo.localhost', 'GET', '/api/ucp/openapi.json')).body;
  merchantDoc = (await s.req('localhost', 'GET', '/merchants/shop_demo/3.0/openapi.json')).body;
});
afterAll(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await s.close();
});

/** Writes the generated TypeScript of both documents beside a copy of the program; returns tsc's verdict. */
async function typeCheck(ucp: unknown, merchant: unknown): Promise<{ ok: boolean; output: string; dir: string }> {
  const dir = mkdtempSync(join(ROOT, '.tmp-openapi-ts-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'ucp-api.ts'), astToString(await openapiTS(ucp as never)));
  writeFileSync(join(dir, 'merchant-api.ts'), astToString(await openapiTS(merchant as never)));
  copyFileSync(PROGRAM, join(dir, 'program.ts'));
  const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', '--allowImportingTsExtensions', '--lib', 'es2023,dom', '--skipLibCheck', join(dir, 'program.ts')];
  try {
    execFileSync(join(ROOT, 'node_modules/.bin/tsc'), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { ok: true, output: '', dir };
  } catch (e) {
    return { ok: false, output: String((e as { stdout?: string }).stdout ?? e), dir };
  }
}

/** The success schemas replaced by what the documents used to say: `{type: "object"}` and nothing more. */
function emptyShells(doc: any): unknown {
  const copy = structuredClone(doc);
  for (const item of Object.values<any>(copy.paths)) {
    for (const op of Object.values<any>(item)) {
      for (const [status, res] of Object.entries<any>(op.responses ?? {})) {
        if (status.startsWith('2') && res.content) res.content['application/json'].schema = { type: 'object' };
      }
    }
  }
  return copy;
}

/** `fetch` that reaches `*.localhost` on the loopback address (RFC 6761), as a builder's Node program needs to. */
const loopback = new Agent({
  connect: {
    lookup: (_host: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) =>
      opts.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4),
  } as never,
});
const loopbackFetch = ((url: string, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher: loopback })) as unknown as typeof fetch;

/** What program.ts exports (imported from the type-checked copy, so the project's tsc never follows it to the generated files). */
type Run = (t: { ucp: string; merchant: string; token: string; fetch: typeof fetch }) => Promise<Record<string, any>>;
let checked: string | undefined;

describe('openapi-typescript from the served documents', () => {
  it('generates types a strict program compiles against', async () => {
    const r = await typeCheck(ucpDoc, merchantDoc);
    expect(r.output).toBe('');
    expect(r.ok).toBe(true);
    checked = r.dir;
  }, 120_000);

  it('control: the same program does not compile against empty-shell success bodies', async () => {
    const r = await typeCheck(emptyShells(ucpDoc), emptyShells(merchantDoc));
    expect(r.ok).toBe(false);
    // `search.products.map(...)`: with an empty shell there is no `products` to map.
    expect(r.output).toMatch(/error TS2339: Property 'map' does not exist/);
  }, 120_000);

  it('the program runs against the server: the typed fields hold real values', async () => {
    expect(checked, 'the type check ran first').toBeDefined();
    const { run } = (await import(join(checked!, 'program.ts'))) as { run: Run };
    const token = (await tokensFor(s, 'products_read')).access_token;
    const out = await run({ ucp: ucpDoc.servers[0].url, merchant: merchantDoc.servers[0].url, token, fetch: loopbackFetch });
    expect(out.transport).toBe('rest');
    expect(out.titles.length).toBeGreaterThan(0);
    expect(out.titles.every((t: unknown) => typeof t === 'string' && t.length > 0)).toBe(true);
    expect(out.cartId).toMatch(/^cart_/);
    expect(out.lineQuantities).toEqual([2]);
    expect(out.total).toBeGreaterThan(0);
    expect(out.totalTypes).toContain('subtotal');
    // After the cancel the answer is the cart as it was (the cart itself is emptied, not deleted).
    expect(out.canceledLines).toBe(1);
    expect(out.badRequestCode).toBe('invalid_request');
    expect(out.badRequestPaths).toEqual(['$.line_items']);
    expect(out.merchantProductIds).toHaveLength(2);
    expect(typeof out.merchantNextCursor).toBe('string');
    expect(out.merchantErrorCode).toBeTypeOf('string');
  });
});
