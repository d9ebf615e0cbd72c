/**
 * Importing while the server runs on PostgreSQL (docs/catalog-import.md): the command writes to the
 * database itself, as a second process, and the running server's search index follows within
 * seconds (SEARCH_INDEX_CHECK_MS), without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../server/cli/main.ts';
import type { Io } from '../server/cli/cli.ts';
import { startTestServer, type TestServer } from './support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const io: Io = { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`), isTTY: false, env: { DATABASE_URL: server.config.databaseUrl, NODE_ENV: 'development' } };
  return { code: await runCli(argv, io), out, err };
}

async function searchUntil(host: string, query: string, ok: (ids: string[]) => boolean): Promise<string[]> {
  let ids: string[] = [];
  for (const t0 = Date.now(); Date.now() - t0 < 10_000; await new Promise((r) => setTimeout(r, 200))) {
    const res = await server.req(host, 'POST', '/api/ucp/catalog/search', { query });
    ids = res.status === 200 ? res.body.products.map((p: { id: string }) => p.id) : [];
    if (ok(ids)) break;
  }
  return ids;
}

describe('import beside a running server (PostgreSQL)', () => {
  it("a new shop's catalog and a re-import's changes reach the running server's search within seconds", async () => {
    const first = await cli('import', '--shop', 'shop_pg_live', '--domain', 'pg-live.localhost', '--storefront-url', 'https://pg.example.com', 'test/fixtures/import/woocommerce/sample_products.csv');
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    // Search once so the server builds its index, then change the catalog under it.
    expect((await searchUntil('pg-live.localhost', 'hoodie', (ids) => ids.length === 3)).sort()).toEqual(['45', '46', '66']);
    // Named as the same source, a file listing 3 products where it had 16 is refused (a file cut short looks like that)...
    const refused = await cli('import', '--shop', 'shop_pg_live', '--source', 'woocommerce', 'test/fixtures/import/shopify/product_template.csv');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("this would make 16 of shop shop_pg_live's products unavailable and list only 3");
    // ...until the owner says the shop really sells only these now.
    const again = await cli('import', '--shop', 'shop_pg_live', '--source', 'woocommerce', '--allow-shrink', '--json', 'test/fixtures/import/shopify/product_template.csv');
    expect(again.code).toBe(0);
    // Named as the same source, the Shopify file is now its whole catalog: the WooCommerce products turn unavailable.
    expect(JSON.parse(again.out).products.unavailable).toBe(16);
    expect(await searchUntil('pg-live.localhost', 'hoodie', (ids) => ids.length === 0)).toEqual([]);
  });
});
