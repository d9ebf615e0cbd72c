/**
 * Scale-out benchmark: cart create and catalog search (10k products) on the embedded database
 * (one process, the default) beside PostgreSQL with 1 process (server/main.ts) and 2 processes
 * (server/cluster.ts, WORKERS=2) on a throwaway local PostgreSQL 15 (scripts/pg-test-server.sh).
 * Called by bench/run.ts (BENCH_POSTGRES=0 skips it); alone: `npx tsx bench/postgres.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../server/db/index.ts';
import { loadCatalogFile } from '../server/core/catalog/catalog-load.ts';
import { prepareDatabase } from '../server/seed/prepare.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { createTestDatabase, startTempPostgres } from '../test/support/postgres.ts';
import { BASELINE_SOURCE, freePort, load, printRows, startChild, stop, type Row } from './support.ts';
import { loadSearch } from './search.ts';

const PRODUCTS = 10_000;
const CART = JSON.stringify({ line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] });

async function prepare(opts: { databaseUrl?: string; dataDir: string }): Promise<void> {
  const db = await openDatabase(opts);
  try {
    await prepareDatabase(db, { demo: true, accounts: false });
    await loadCatalogFile(db, generateCatalog({ products: PRODUCTS, shopId: 'shop_bench', domain: 'bench.localhost', name: 'Bench' }));
  } finally {
    await db.destroy();
  }
}

async function measure(label: string, script: string, env: Record<string, string>, seconds: number): Promise<Row[]> {
  const port = await freePort();
  // Scale-out figures without the transport limiter (its own cost is measured in bench/run.ts).
  const server = await startChild(process.execPath, ['--import', 'tsx', script], { PORT: String(port), HOST: '127.0.0.1', UCP_RATE_LIMITS: 'off', ...env }, /listening/);
  const url = `http://127.0.0.1:${port}`;
  try {
    const cart = await load(`cart create, ${label}`, { url, host: 'demo.localhost', method: 'POST', path: '/api/ucp/carts', bodies: [CART], durationSec: seconds });
    const search = await loadSearch(`catalog search (${PRODUCTS} products), ${label}`, { url, durationSec: seconds });
    return [cart, search];
  } finally {
    await stop(server);
  }
}

export async function benchPostgres(opts: { seconds: number }): Promise<Row[]> {
  const rows: Row[] = [];
  console.log('\n== scale-out: embedded vs PostgreSQL, 1 and 2 processes');

  const dir = mkdtempSync(join(tmpdir(), 'ucp-bench-pg-'));
  try {
    await prepare({ dataDir: dir });
    rows.push(...(await measure('embedded, 1 process', 'server/main.ts', { DATA_DIR: dir, DATABASE_URL: '' }, opts.seconds)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const pg = await startTempPostgres();
  try {
    const db = await createTestDatabase(pg.url);
    const t0 = performance.now();
    await prepare({ databaseUrl: db.url, dataDir: 'memory://' });
    console.log(`  loaded ${PRODUCTS} products into PostgreSQL in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    rows.push(...(await measure('PostgreSQL, 1 process', 'server/main.ts', { DATABASE_URL: db.url }, opts.seconds)));
    rows.push(...(await measure('PostgreSQL, 2 processes', 'server/cluster.ts', { DATABASE_URL: db.url, WORKERS: '2' }, opts.seconds)));
  } finally {
    await pg.stop();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // Alone: with the same-run node:http baseline, like bench/run.ts.
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const basePort = await freePort();
  const baseline = await startChild(process.execPath, ['-e', BASELINE_SOURCE], { PORT: String(basePort) }, /ready/);
  const base = await load('baseline: node:http JSON GET', { url: `http://127.0.0.1:${basePort}`, host: 'bench', path: '/', durationSec: seconds });
  await stop(baseline);
  const rows = [base, ...(await benchPostgres({ seconds }))];
  for (const r of rows) r.ratio = r.rps / base.rps;
  printRows(rows);
  process.exit(0);
}
