/**
 * Importing while the server runs on the embedded database (docs/catalog-import.md): only the
 * server's process may open the data directory, so `ucp-storefront import` streams the file to the
 * server that holds it (server/control/routes.ts), proving it may by the token in the directory's
 * owner-only lock. The server's search answers the new catalog at once, without a restart.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../server/cli/main.ts';
import type { Io } from '../server/cli/cli.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'ucp-import-live-'));
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ dataDir: join(dir, 'data') });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const io: Io = { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`), isTTY: false, env: { DATA_DIR: join(dir, 'data'), DATABASE_URL: '', NODE_ENV: 'development' } };
  return { code: await runCli(argv, io), out, err };
}

describe('import beside a running server (embedded database)', () => {
  it('the running server takes the file and serves the new shop at once', async () => {
    const r = await cli('import', '--shop', 'shop_live', '--domain', 'live.localhost', '--json', 'test/fixtures/import/shopify/product_template.csv');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ shop: 'shop_live', format: 'shopify', shop_created: true, products: { created: 3 } });
    const hits = await server.req('live.localhost', 'POST', '/api/ucp/catalog/search', { query: 'shirt' });
    expect(hits.status).toBe(200);
    expect(hits.body.products.length).toBeGreaterThan(0);
  });

  it('the lock that carries the token is readable by its owner only', () => {
    const lock = join(dir, 'data', 'ucp.lock');
    expect(statSync(lock).mode & 0o077).toBe(0);
    expect(readFileSync(lock, 'utf8').split('\n')[2]).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('the control route answers 404 without the token, or with a wrong one', async () => {
    const none = await server.req('localhost', 'POST', '/control/import?shop=shop_live&file=x.csv', 'Handle\n', { 'content-type': 'text/csv' });
    expect(none.status).toBe(404);
    const wrong = await server.req('localhost', 'POST', '/control/import?shop=shop_live&file=x.csv', 'Handle\n', { 'content-type': 'text/csv', authorization: 'Bearer nope' });
    expect(wrong.status).toBe(404);
  });

  it("a file the server cannot parse is the server's one-line refusal, exit 1, nothing written", async () => {
    const r = await cli('import', '--shop', 'shop_live2', '--domain', 'live2.localhost', 'package.json');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/package\.json: cannot tell which format this is/);
    expect((await server.req('live2.localhost', 'GET', '/.well-known/ucp')).status).not.toBe(200);
  });
});
