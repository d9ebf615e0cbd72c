/**
 * Several processes on one PostgreSQL database keep their in-memory search indexes consistent
 * (server/core/search/catalog-index.ts): a catalog write by one process is searchable through another
 * within the version-check period (SEARCH_INDEX_CHECK_MS, 100 ms by default). A second server with
 * a one-hour period proves the answers come from its index: it still answers as before the write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareDatabase, send, sleep, spawnServer, type ServerProcess } from '../scripts/faults/lib.ts';
import { createTestDatabase, requirePostgres, type TestDatabase } from './support/postgres.ts';
import { openDatabase, type DB } from '../server/db/index.ts';
import { deleteProduct, upsertProducts } from '../server/core/catalog/catalog-store.ts';
import type { StoredProduct } from '../server/formats/types.ts';

const PG = requirePostgres();
const HOST = 'demo.localhost';

describe('search indexes across processes on one PostgreSQL database', () => {
  let tdb: TestDatabase;
  let writer: DB;
  let fresh: ServerProcess;
  let stale: ServerProcess;
  let flask: StoredProduct;
  let settings: { languages: string[] } & Record<string, unknown>;

  beforeAll(async () => {
    tdb = await createTestDatabase(PG);
    await prepareDatabase({ databaseUrl: tdb.url });
    [fresh, stale] = await Promise.all([
      spawnServer({ env: { DATABASE_URL: tdb.url } }),
      spawnServer({ env: { DATABASE_URL: tdb.url, SEARCH_INDEX_CHECK_MS: '3600000' } }),
    ]);
    writer = await openDatabase({ databaseUrl: tdb.url, dataDir: 'memory://' });
    const row = await writer.selectFrom('products').select('doc').where('shop_id', '=', 'shop_demo').where('id', '=', 'prod_engraved_flask').executeTakeFirstOrThrow();
    flask = (typeof row.doc === 'string' ? JSON.parse(row.doc) : row.doc) as StoredProduct;
    const shop = await writer.selectFrom('shops').select('settings').where('id', '=', 'shop_demo').executeTakeFirstOrThrow();
    settings = (typeof shop.settings === 'string' ? JSON.parse(shop.settings) : shop.settings) as typeof settings;
  }, 120_000);
  afterAll(async () => {
    await writer?.destroy();
    await Promise.all([fresh?.kill(), stale?.kill()]);
    await tdb?.drop();
  });

  const find = async (p: ServerProcess, query: string) => {
    const r = await send(p.port, HOST, 'POST', '/api/ucp/catalog/search', { query });
    expect(r.status).toBe(200);
    return (r.body.products as Array<{ id: string }>).map((x) => x.id);
  };
  /**
   * A shop's index is built in the background when it is first searched (the database answers
   * meanwhile): one search, then time for the build (the demo shop's takes milliseconds).
   */
  const ready = async (p: ServerProcess) => {
    expect((await find(p, 'flask')).length).toBeGreaterThan(0);
    await sleep(1000);
  };
  const write = (products: StoredProduct[]) => upsertProducts(writer, { id: 'shop_demo', settings: settings as never }, products);
  const newProduct = (id: string, word: string): StoredProduct => ({
    ...flask,
    id,
    handle: id,
    title: { en: `${word} canteen`, fr: `gourde ${word}` },
    variants: flask.variants.map((v, i) => ({ ...v, id: `${id}_v${i}`, sku: `SKU${id.length}${i}` })),
  });

  it('a new product written by another process is found after one check period, not before the stale server checks', async () => {
    await Promise.all([ready(fresh), ready(stale)]);
    // Both have searched: their indexes are built and checked.
    expect(await find(fresh, 'quetzal')).toEqual([]);
    expect(await find(stale, 'quetzal')).toEqual([]);
    await write([newProduct('prod_q9', 'quetzal')]);
    await sleep(150); // > the 100 ms period: the next search checks the version
    expect(await find(fresh, 'quetzal')).toEqual(['prod_q9']);
    expect(await find(stale, 'quetzal')).toEqual([]);
    // The typo pass follows the same version: its vocabulary (cached by the empty search above)
    // now knows the new word.
    expect(await find(fresh, 'quetzl')).toEqual(['prod_q9']);
  });

  it('an update and a delete reach the other process the same way', async () => {
    await write([newProduct('prod_q9', 'axolotl')]);
    await sleep(150);
    expect(await find(fresh, 'quetzal')).toEqual([]);
    expect(await find(fresh, 'axolotl')).toEqual(['prod_q9']);
    expect(await deleteProduct(writer, 'shop_demo', 'prod_q9')).toBe(true);
    await sleep(150);
    expect(await find(fresh, 'axolotl')).toEqual([]);
  });
});
