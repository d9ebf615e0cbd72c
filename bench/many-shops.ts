/**
 * Many shops in one process (issue 31 point 1): start time and resident memory of a server over a
 * platform of many small shops, and search latency for a hot shop (its index in memory) beside
 * evicted ones (answered in SQL while their index is rebuilt on demand).
 *
 *   DATABASE_URL=postgres://… npx tsx bench/many-shops.ts        # 500 shops × 200 products
 *   BENCH_SHOPS=50 npx tsx bench/many-shops.ts                   # embedded database in a temp dir
 *
 * BENCH_SHOPS (500), BENCH_SHOP_PRODUCTS (200), BENCH_SECONDS (5 per search case), BENCH_PARTS
 * (`start,search`). Shops already loaded in the database are kept (a second run measures at once).
 * Modest on purpose: one connection, one server at a time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openDatabase } from '../server/db/index.ts';
import { prepareDatabase } from '../server/seed/prepare.ts';
import { loadCatalogFile } from '../server/core/catalog/catalog-load.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { cpuSeconds, freePort, measure, residentMb, startChild, stop } from './support.ts';
import { SEARCH_QUERIES } from './search.ts';

const SHOPS = Number(process.env.BENCH_SHOPS ?? 500);
const PRODUCTS = Number(process.env.BENCH_SHOP_PRODUCTS ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PARTS = (process.env.BENCH_PARTS ?? 'start,search').split(',');
const host = (i: number) => `m${i}.localhost`;

async function loadShops(target: { databaseUrl?: string; dataDir: string }): Promise<void> {
  const db = await openDatabase(target);
  try {
    await prepareDatabase(db, { demo: false, accounts: false });
    // A shop whose load was interrupted has fewer products: loaded again (loads are upserts).
    const counts = await db.selectFrom('products').select(['shop_id', db.fn.countAll<number>().as('n')]).groupBy('shop_id').execute();
    const have = new Set(counts.filter((r) => Number(r.n) >= PRODUCTS).map((r) => r.shop_id));
    const t0 = performance.now();
    let loaded = 0;
    for (let i = 0; i < SHOPS; i++) {
      if (have.has(`shop_m${i}`)) continue;
      await loadCatalogFile(db, generateCatalog({ products: PRODUCTS, shopId: `shop_m${i}`, domain: host(i), name: `Shop ${i}`, seed: i + 1 }));
      loaded++;
    }
    if (loaded) console.log(`  loaded ${loaded} shops × ${PRODUCTS} products in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await db.destroy();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function startServer(env: Record<string, string>) {
  return startChild(process.execPath, ['--import', 'tsx', 'server/main.ts'], { HOST: '127.0.0.1', UCP_RATE_LIMITS: 'off', SEED_DEMO: '0', ...env }, /listening on/);
}

/** Time to `listening`, and the resident set and CPU used then and over 6 s idle (where warming used to show). */
async function startCase(env: Record<string, string>): Promise<void> {
  const port = await freePort();
  const t0 = performance.now();
  const child = await startServer({ ...env, PORT: String(port) });
  const ms = performance.now() - t0;
  const atListen = residentMb(child.pid);
  const cpu = cpuSeconds(child.pid);
  await sleep(6_000);
  console.log(`  start: listening after ${(ms / 1000).toFixed(2)} s (CPU ${cpu.toFixed(1)} s); RSS ${atListen} MB then, ${residentMb(child.pid)} MB 6 s later, idle (CPU ${(cpuSeconds(child.pid) - cpu).toFixed(1)} s meanwhile)`);
  await stop(child);
}

/** p50/p99 of searches over `shops` in turn (the hosts rotate per request), one connection: latency without queueing. */
async function searchCase(label: string, env: Record<string, string>, shops: number[]): Promise<void> {
  const port = await freePort();
  const child = await startServer({ ...env, PORT: String(port) });
  try {
    let i = 0;
    const result = await measure({
      url: `http://127.0.0.1:${port}`,
      connections: 1,
      duration: SECONDS,
      requests: [
        {
          method: 'POST',
          path: '/api/ucp/catalog/search',
          setupRequest: (req: any) => {
            const n = i++;
            return { ...req, headers: { ...req.headers, host: host(shops[n % shops.length]), 'content-type': 'application/json' }, body: JSON.stringify({ query: SEARCH_QUERIES[n % SEARCH_QUERIES.length], limit: 10 }) };
          },
        },
      ],
    });
    const bad = result.non2xx + result.errors ? ` (${result.non2xx} non-2xx, ${result.errors} errors)` : '';
    console.log(`  search, ${label}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; RSS ${residentMb(child.pid)} MB${bad}`);
  } finally {
    await stop(child);
  }
}

const databaseUrl = process.env.DATABASE_URL || undefined;
const dataDir = databaseUrl ? 'memory://' : mkdtempSync(join(tmpdir(), 'ucp-bench-shops-'));
const target: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir, DATABASE_URL: '' };
try {
  console.log(`== ${SHOPS} shops × ${PRODUCTS} products, ${databaseUrl ? 'PostgreSQL' : 'embedded database'}`);
  await loadShops({ databaseUrl, dataDir });
  if (PARTS.includes('start')) for (let round = 0; round < 2; round++) await startCase(target);
  if (PARTS.includes('search')) {
    // Hot: one shop, indexed after its first search (the 2 s warm-up). Evicted: every shop in turn
    // with room for 4 indexes, so each search finds its shop evicted (SQL, and a rebuild started).
    // SQL only (budget 0): the same rotation with no index at all.
    // Two rounds in opposite orders: the machine's drift is not one case's.
    const oneShopMb = (PRODUCTS * 2000) / 2 ** 20; // a generated product: ~1.8 KB at 200 per shop
    const all = [...Array(SHOPS).keys()];
    const cases: Array<[string, string, number[]]> = [
      ['hot shop (index)', '256', [0]],
      ['every shop in turn, room for 4 indexes (evicted)', (4 * oneShopMb).toFixed(3), all],
      ['every shop in turn, budget 0 (SQL only)', '0', all],
    ];
    for (const round of [cases, [...cases].reverse()]) for (const [label, mb, shops] of round) await searchCase(label, { ...target, SEARCH_INDEX_BUDGET_MB: mb }, shops);
  }
} finally {
  if (!databaseUrl) rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
