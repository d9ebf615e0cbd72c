/**
 * The platform at scale on PostgreSQL (issue 31 point 5): 10,000 shops × 100 products and
 * 1,000,000 carts. One server process over it, measured for start time, resident memory (at
 * `listening`, 6 s idle, after the measured load), search p50/p99 for a hot shop (its index in
 * memory) and for every shop in turn under a budget with room for 1% of the shops (evicted: answered
 * in SQL while rebuilt), and cart create/read/update p50/p99 — beside the same cases on a small
 * database (3 shops of the same generator, only the carts this run creates).
 *
 *   BENCH_ONLY=scale npm run bench                                  # or: npx tsx bench/scale.ts
 *   BENCH_SHOPS=200 BENCH_CARTS=20000 BENCH_ONLY=scale npm run bench # a small try first
 *
 * BENCH_SHOPS (10000), BENCH_SHOP_PRODUCTS (100), BENCH_CARTS (1000000), BENCH_SECONDS (10 per case,
 * after a 2 s warm-up), BENCH_INDEX_BUDGET_MB (room for 1% of the shops' indexes).
 *
 * Setup, kept between runs so a second run measures at once: without DATABASE_URL, a local
 * PostgreSQL in .tmp/scale-pg (scripts/pg-test-server.sh, left running; `bash
 * scripts/pg-test-server.sh stop .tmp/scale-pg` removes it) with one database per size,
 * `scale_<shops>x<products>`; with DATABASE_URL, that database. Shops are loaded with loadCatalogs
 * (the seed command's loader), those already there skipped. Carts are benchmark setup, not a
 * measurement: inserted in bulk SQL (`insert … select … from generate_series`), each a copy of a cart
 * created through the API on the small database, its variant ids rewritten to its own shop's
 * (titles stay those of shop 0's products), created over the last 6 days and unexpired.
 * Modest on purpose: 4 connections, one server at a time.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { openDatabase } from '../server/db/index.ts';
import { prepareDatabase } from '../server/seed/prepare.ts';
import { loadCatalogs } from '../server/core/catalog/catalog-load.ts';
import { generateCatalog, generateProduct } from '../server/seed/generate.ts';
import { createTestDatabase, startTempPostgres } from '../test/support/postgres.ts';
import { cpuSeconds, freePort, measure, residentMb, startChild, stop } from './support.ts';
import { SEARCH_QUERIES } from './search.ts';
import type { ChildProcess } from 'node:child_process';

const SHOPS = Number(process.env.BENCH_SHOPS ?? 10_000);
const PRODUCTS = Number(process.env.BENCH_SHOP_PRODUCTS ?? 100);
const CARTS = Number(process.env.BENCH_CARTS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Shops in the small database. */
const SMALL_SHOPS = 3;
/** Room for 1% of the shops' indexes (600 bytes a product: above the ~450 a generated one takes). */
const BUDGET_MB = process.env.BENCH_INDEX_BUDGET_MB ?? ((Math.max(1, Math.ceil(SHOPS / 100)) * PRODUCTS * 600) / 2 ** 20).toFixed(3);
const CART_PREFIX = 'cart_sc';
const host = (i: number) => `m${i}.localhost`;
const usable = new Map<string, string>();
/**
 * A variant of product `product` (1-based) of shop m`shop`, or of the next ones, that a cart takes
 * as is: in stock for 3, no customizations (generated products depend only on shop id, seed, number).
 */
function variantOf(shop: number, product: number): string {
  const key = `${shop}:${product}`;
  let id = usable.get(key);
  for (let p = product; !id; p = (p % PRODUCTS) + 1) {
    const v = generateProduct(p - 1, `shop_m${shop}`, shop + 1).variants.find((v) => !v.customizations && !v.status && (v.inventory === undefined || v.inventory >= 3));
    id = v?.id;
  }
  usable.set(key, id);
  return id;
}
const cartIdOf = (g: number) => CART_PREFIX + String(g).padStart(14, '0');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export interface ScaleRow {
  case: string;
  rps: number;
  p50: number;
  p99: number;
  rssMb: number;
}

/** `name` on the server of `baseUrl`, created when missing. */
async function ensureDatabase(baseUrl: string, name: string): Promise<string> {
  const u = new URL(baseUrl);
  u.pathname = '/postgres';
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  try {
    if (!(await c.query('select 1 from pg_database where datname = $1', [name])).rowCount) await c.query(`create database ${name}`);
  } finally {
    await c.end();
  }
  u.pathname = `/${name}`;
  return u.toString();
}

/** Shops m0…m(count-1) with PRODUCTS products each, those already complete skipped, in one loadCatalogs run. */
async function loadShops(databaseUrl: string, count: number): Promise<void> {
  const db = await openDatabase({ databaseUrl, dataDir: 'memory://' });
  try {
    await prepareDatabase(db, { demo: false, accounts: false });
    const counts = await db.selectFrom('products').select(['shop_id', db.fn.countAll<number>().as('n')]).groupBy('shop_id').execute();
    const have = new Set(counts.filter((r) => Number(r.n) >= PRODUCTS).map((r) => r.shop_id));
    const missing = [...Array(count).keys()].filter((i) => !have.has(`shop_m${i}`));
    if (!missing.length) return;
    const t0 = performance.now();
    let done = 0;
    const results = await loadCatalogs(
      db,
      missing.map((i) => ({ name: `shop m${i}`, read: () => generateCatalog({ products: PRODUCTS, shopId: `shop_m${i}`, domain: host(i), name: `Shop ${i}`, seed: i + 1 }) })),
      {
        file: () => {
          if (++done % 500 === 0) console.log(`  … ${done}/${missing.length} shops loaded, ${seconds(performance.now() - t0)}`);
        },
      },
    );
    const failed = results.filter((r) => r.error);
    if (failed.length) throw new Error(`${failed.length} shops failed to load, the first: ${failed[0].file}: ${failed[0].error}`);
    const ms = performance.now() - t0;
    console.log(`  loaded ${missing.length} shops × ${PRODUCTS} products in ${seconds(ms)} (${Math.round((missing.length * PRODUCTS) / (ms / 1000))} products/s)`);
  } finally {
    await db.destroy();
  }
}

/** One request of a case: which shop, method and path, body. */
interface Req {
  host: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
}

/** p50/p99 of `next(n)` requests over 4 connections, and the server's resident set after it. */
async function drive(label: string, child: ChildProcess, url: string, expect: number, next: (n: number) => Req): Promise<ScaleRow> {
  let i = 0;
  let unexpected = 0;
  const result = await measure({
    url,
    connections: 4,
    duration: SECONDS,
    requests: [
      {
        setupRequest: (req: any) => {
          const r = next(i++);
          return { ...req, method: r.method, path: r.path, headers: { host: r.host, 'content-type': 'application/json' }, ...(r.body ? { body: JSON.stringify(r.body) } : {}) };
        },
        onResponse: (status: number) => {
          if (status !== expect) unexpected++;
        },
      },
    ],
  });
  const row = { case: label, rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, rssMb: residentMb(child.pid) };
  const bad = unexpected + result.errors ? ` (${unexpected} not ${expect}, ${result.errors} errors)` : '';
  console.log(`  ${label}: ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms; RSS ${row.rssMb} MB${bad}`);
  return row;
}

/** Starts a server and reports the time to `listening` and its resident set then and 6 s later. */
async function startServer(label: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string; row: ScaleRow }> {
  const port = await freePort();
  const t0 = performance.now();
  const child = await startChild(process.execPath, ['--import', 'tsx', 'server/main.ts'], { HOST: '127.0.0.1', PORT: String(port), UCP_RATE_LIMITS: 'off', SEED_DEMO: '0', ...env }, /listening on/);
  const ms = performance.now() - t0;
  const atListen = residentMb(child.pid);
  const cpu = cpuSeconds(child.pid);
  await sleep(6_000);
  const idle = residentMb(child.pid);
  console.log(`  ${label} start: listening after ${seconds(ms)} (CPU ${cpu.toFixed(1)} s); RSS ${atListen} MB then, ${idle} MB 6 s later`);
  return { child, url: `http://127.0.0.1:${port}`, row: { case: `${label}: start, listening after ${seconds(ms)} (RSS ${atListen} MB then; here 6 s idle)`, rps: 0, p50: 0, p99: 0, rssMb: idle } };
}

const cartBody = (shop: number, n: number) => ({ line_items: [{ item: { id: variantOf(shop, 1 + (n % PRODUCTS)) }, quantity: 1 + (n % 3) }, { item: { id: variantOf(shop, 1 + ((n + 7) % PRODUCTS)) }, quantity: 1 }] });

/** Cart create, read and update over `carts` (shop and id), the creates spread over `shops`. */
async function cartCases(label: string, child: ChildProcess, url: string, shops: number, carts: Array<[number, string]>): Promise<ScaleRow[]> {
  const pick = (n: number) => carts[(n * 7919) % carts.length];
  return [
    await drive(`${label}: cart create`, child, url, 201, (n) => ({ host: host(n % shops), method: 'POST', path: '/api/ucp/carts', body: cartBody(n % shops, n) })),
    await drive(`${label}: cart read`, child, url, 200, (n) => ({ host: host(pick(n)[0]), method: 'GET', path: `/api/ucp/carts/${pick(n)[1]}` })),
    await drive(`${label}: cart update`, child, url, 200, (n) => ({ host: host(pick(n)[0]), method: 'PUT', path: `/api/ucp/carts/${pick(n)[1]}`, body: cartBody(pick(n)[0], n + 1) })),
  ];
}

async function createCart(url: string, shop: number, n: number): Promise<string> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(new URL('/api/ucp/carts', url), { method: 'POST', headers: { host: host(shop), 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(text).id) : reject(new Error(`cart create: ${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.end(JSON.stringify(cartBody(shop, n)));
  });
}

/** The small database's server: start, 200 carts through the API, the cart cases; returns the first cart's row (the bulk template). */
async function benchSmall(databaseUrl: string, rows: ScaleRow[]): Promise<Record<string, unknown>> {
  const { child, url, row } = await startServer('small', { DATABASE_URL: databaseUrl, SEARCH_INDEX_BUDGET_MB: BUDGET_MB });
  rows.push(row);
  try {
    const carts: Array<[number, string]> = [];
    for (let n = 0; n < 200; n++) carts.push([n % SMALL_SHOPS, await createCart(url, n % SMALL_SHOPS, n)]);
    rows.push(...(await cartCases('small', child, url, SMALL_SHOPS, carts)));
    rows.push({ case: 'small: after the measured load', rps: 0, p50: 0, p99: 0, rssMb: residentMb(child.pid) });
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      const r = await c.query('select currency, language, context::text, buyer::text, line_items::text, discounts::text from carts where shop_id = $1 and id = $2', ['shop_m0', carts[0][1]]);
      return r.rows[0];
    } finally {
      await c.end();
    }
  } finally {
    await stop(child);
  }
}

/** Tops the bulk carts up to CARTS, 100,000 rows a statement, each a copy of `template` in its own shop. */
async function addCarts(databaseUrl: string, template: Record<string, unknown>): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const have = Number((await c.query(`select count(*) from carts where id like '${CART_PREFIX}%'`)).rows[0].count);
    if (have >= CARTS) return;
    const t0 = performance.now();
    for (let from = have; from < CARTS; from += 100_000) {
      const to = Math.min(CARTS, from + 100_000);
      await c.query(
        `insert into carts (shop_id, id, currency, language, context, buyer, line_items, discounts, created_at, updated_at, expires_at)
         select 'shop_m' || (g % $1::int), $2 || lpad(g::text, 14, '0'), $5, $6, $7::jsonb, $8::jsonb,
           replace($9, 'shop_m0_', 'shop_m' || (g % $1::int) || '_')::jsonb, $10::jsonb,
           now() - (g % 518400) * interval '1 second', now() - (g % 518400) * interval '1 second',
           now() - (g % 518400) * interval '1 second' + interval '7 days'
         from generate_series($3::int, $4::int - 1) g
         on conflict do nothing`,
        [SHOPS, CART_PREFIX, from, to, template.currency, template.language, template.context, template.buyer, template.line_items, template.discounts],
      );
      console.log(`  … ${to.toLocaleString('en')} carts, ${seconds(performance.now() - t0)}`);
    }
    await c.query('analyze carts');
    console.log(`  inserted ${(CARTS - have).toLocaleString('en')} carts in ${seconds(performance.now() - t0)}`);
  } finally {
    await c.end();
  }
}

/** The scale database's server: start, hot and evicted searches, the cart cases, memory after. */
async function benchLarge(databaseUrl: string, rows: ScaleRow[]): Promise<void> {
  const { child, url, row } = await startServer('scale', { DATABASE_URL: databaseUrl, SEARCH_INDEX_BUDGET_MB: BUDGET_MB });
  rows.push(row);
  try {
    const search = (shop: (n: number) => number) => (n: number): Req => ({ host: host(shop(n)), method: 'POST', path: '/api/ucp/catalog/search', body: { query: SEARCH_QUERIES[n % SEARCH_QUERIES.length], limit: 10 } });
    rows.push(await drive('scale: search, hot shop (index in memory)', child, url, 200, search(() => 0)));
    // A stride coprime with the shop count visits every shop in a scattered order; within a run no
    // shop comes back before all others have, so with room for 1% each search finds its shop evicted.
    rows.push(await drive(`scale: search, every shop in turn (${BUDGET_MB} MB budget: evicted, SQL)`, child, url, 200, search((n) => (1 + n * 7919) % SHOPS)));
    const carts: Array<[number, string]> = [];
    for (let k = 0; k < 2_000; k++) {
      const g = Math.floor(Math.random() * CARTS);
      carts.push([g % SHOPS, cartIdOf(g)]);
    }
    rows.push(...(await cartCases('scale', child, url, SHOPS, carts)));
    rows.push({ case: 'scale: after the measured load', rps: 0, p50: 0, p99: 0, rssMb: residentMb(child.pid) });
  } finally {
    await stop(child);
  }
}

export async function benchScale(): Promise<ScaleRow[]> {
  console.log(`\n== scale: ${SHOPS} shops × ${PRODUCTS} products, ${CARTS.toLocaleString('en')} carts, PostgreSQL; index budget ${BUDGET_MB} MB`);
  let base = process.env.DATABASE_URL || '';
  if (!base) {
    mkdirSync('.tmp', { recursive: true });
    const dir = `${process.cwd()}/.tmp/scale-pg`;
    const reused = existsSync(`${dir}/url`);
    base = (await startTempPostgres({ dir })).url;
    console.log(`  PostgreSQL ${reused ? 'kept from an earlier run' : 'started'} in ${dir} (left running: bash scripts/pg-test-server.sh stop ${dir})`);
  }
  const large = process.env.DATABASE_URL || (await ensureDatabase(base, `scale_${SHOPS}x${PRODUCTS}`));
  const small = await createTestDatabase(base);
  const rows: ScaleRow[] = [];
  try {
    await loadShops(small.url, SMALL_SHOPS);
    await loadShops(large, SHOPS);
    const template = await benchSmall(small.url, rows);
    await addCarts(large, template);
    await benchLarge(large, rows);
  } finally {
    await small.drop();
  }
  console.log('\n| case | req/s | p50 ms | p99 ms | RSS MB |\n|---|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.case} | ${r.rps || ''} | ${r.p50 || ''} | ${r.p99 || ''} | ${r.rssMb} |`);
  writeFileSync('.tmp/scale.json', JSON.stringify({ at: new Date().toISOString(), shops: SHOPS, products: PRODUCTS, carts: CARTS, budgetMb: BUDGET_MB, rows }, null, 2));
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchScale();
  process.exit(0);
}
