/**
 * On PostgreSQL a bulk load computes the next batch's vectors over a second connection of the pool
 * (server/core/search/search-vectors.ts). A pool of one connection has none to spare: the load computes
 * each batch's vectors in its own insert instead of waiting for a connection that never comes.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, requirePostgres, type TestDatabase } from './support/postgres.ts';
import { expectStoredVectors } from './support/vectors.ts';
import { openDatabase, type DB } from '../server/db/index.ts';
import { prepareDatabase } from '../server/seed/prepare.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { loadCatalogFile } from '../server/core/catalog/catalog-load.ts';
import { ScratchVectors } from '../server/core/search/search-vectors.ts';

let tdb: TestDatabase;
let one: DB;
beforeAll(async () => {
  tdb = await createTestDatabase(requirePostgres());
  const setup = await openDatabase({ databaseUrl: tdb.url, dataDir: 'memory://' });
  await prepareDatabase(setup, { demo: false, accounts: false }).finally(() => setup.destroy());
  one = await openDatabase({ databaseUrl: tdb.url, dataDir: 'memory://', pgPoolSize: 1, pgConnectTimeoutMs: 2000 });
}, 60_000);
afterAll(async () => {
  await one?.destroy();
  await tdb?.drop();
});

describe('bulk load vectors on PostgreSQL', () => {
  it('a pool of one connection loads without computing ahead (no wait for a second connection)', async () => {
    const before = ScratchVectors.batches;
    const errors = vi.spyOn(console, 'error');
    try {
      const file = generateCatalog({ products: 1500, shopId: 'shop_pool1', domain: 'pool1.localhost', name: 'Pool of one' });
      await loadCatalogFile(one, file);
      expect(ScratchVectors.batches).toBe(before);
      // Asking for a second connection would have timed out (2 s) and said so.
      expect(errors).not.toHaveBeenCalled();
      await expectStoredVectors(one, file);
    } finally {
      errors.mockRestore();
    }
  }, 60_000);
});
