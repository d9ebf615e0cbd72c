/**
 * Builds a benchmark database: `tsx bench/prepare.ts DATA_DIR PRODUCTS` migrates, seeds the demo
 * shops and loads a generated catalog of PRODUCTS products as shop `bench.localhost`. bench/run.ts
 * runs it as a child process, so the load generator's own process never carries the catalog's
 * heap (its garbage collection would otherwise slow the measuring side, not the server).
 */
import { sql } from 'kysely';
import { openDatabase } from '../server/db/index.ts';
import { loadCatalogFile } from '../server/core/catalog/catalog-load.ts';
import { prepareDatabase } from '../server/seed/prepare.ts';
import { generateCatalog } from '../server/seed/generate.ts';

const [dataDir, count] = process.argv.slice(2);
const products = Number(count);
if (!dataDir || !Number.isInteger(products) || products < 1) {
  console.error('usage: tsx bench/prepare.ts DATA_DIR PRODUCTS');
  process.exit(2);
}
const t0 = performance.now();
const db = await openDatabase({ dataDir });
await prepareDatabase(db, { demo: true, accounts: false });
await loadCatalogFile(db, generateCatalog({ products, shopId: 'shop_bench', domain: 'bench.localhost', name: 'Bench' }));
// The load generator is one client doing thousands of requests a second: the bench sets its own
// transport budgets, large enough never to refuse, so the limiter runs (and its cost is measured)
// without shaping the numbers (docs/security.md).
const huge = { burst: 1e9, per_second: 1e9 };
const benchLimits = JSON.stringify({ anonymous: { read: huge, write: huge }, keyed: { read: huge, write: huge } });
await sql`update shops set settings = jsonb_set(settings::jsonb, '{rate_limits}', ${benchLimits}::jsonb)`.execute(db);
await db.destroy();
console.log(`  loaded ${products} products in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
