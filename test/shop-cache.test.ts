/**
 * The shop cache belongs to the database a server opened (server/core/shops/shops.ts): two servers
 * in one process, over two databases, never answer from each other's shops, and a write through one
 * forgets only what its own server cached.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { loadCatalogFile } from '../server/core/catalog/catalog-load.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { cachedShop, findShopByDomain } from '../server/core/shops/shops.ts';

let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  [a, b] = await Promise.all([startTestServer(), startTestServer()]);
  await loadCatalogFile(a.db, generateCatalog({ products: 3, shopId: 'shop_only_a', domain: 'only-a.localhost', name: 'Only A' }));
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

describe('the shop cache, per database', () => {
  it("a shop one server knows (and has cached) is unknown to another server's database", async () => {
    expect((await a.req('only-a.localhost', 'GET', '/.well-known/ucp')).status).toBe(200);
    expect(cachedShop(a.db, 'only-a.localhost')?.id).toBe('shop_only_a');
    // The same host on the other server, at once: its own database says no such shop. The discovery
    // fast path and the Hono route both read the cache, so each is asked.
    expect(cachedShop(b.db, 'only-a.localhost')).toBeUndefined();
    expect((await b.req('only-a.localhost', 'GET', '/.well-known/ucp')).status).toBe(404);
    expect((await b.req('only-a.localhost', 'POST', '/api/ucp/catalog/search', { query: 'a' })).status).toBe(404);
  });

  it('a shop added through one database is found there at once, though the other cached it as unknown', async () => {
    expect(await findShopByDomain(b.db, 'late.localhost')).toBeNull();
    expect(await findShopByDomain(a.db, 'late.localhost')).toBeNull();
    await loadCatalogFile(b.db, generateCatalog({ products: 2, shopId: 'shop_late', domain: 'late.localhost', name: 'Late' }));
    expect((await b.req('late.localhost', 'GET', '/.well-known/ucp')).status).toBe(200);
    // The other server still holds its own (true) answer for its own database.
    expect(cachedShop(a.db, 'late.localhost')).toBeNull();
    expect((await a.req('late.localhost', 'GET', '/.well-known/ucp')).status).toBe(404);
  });
});
