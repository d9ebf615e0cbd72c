/**
 * Catalog search at scale beside its reference (issue 17.1): this server and the bare in-memory
 * index server (bench/search-reference.ts) over the same database, queries and page size, in
 * alternating slices (benchSearchAtScale). Also records how long
 * the server took to build its index, the index's size, and the server process's resident memory.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { alternatingSlices, childOutput, freePort, load, median, pct, postJson, residentMb, spread, startChild, stop, waitForOutput, type Row, type Slices } from './support.ts';

export const SEARCH_QUERIES = ['linen', 'stoneware bowl', 'vintage tent', 'kraft', 'cozy vest', 'lamp', 'modern', 'ripstop', 'soft bookmark', 'compact'];

/** Searches on the demo shop (demo.localhost), as an agent builder's sandbox sees them. */
export const DEMO_QUERIES = ['tee', 'mug', 'flask', 'journal', 'lamp', 'merino', 'lantern', 'navy', 'gift', 'steel'];

/** The bench's search case: its ten queries in turn, page size 10, on the generated shop. */
export function loadSearch(name: string, o: { url: string; durationSec: number; connections?: number; path?: string; host?: string; queries?: readonly string[]; warmupSec?: number }): Promise<Row> {
  return load(name, {
    url: o.url,
    host: o.host ?? 'bench.localhost',
    method: 'POST',
    path: o.path ?? '/api/ucp/catalog/search',
    bodies: (o.queries ?? SEARCH_QUERIES).map((query) => JSON.stringify({ query, limit: 10 })),
    durationSec: o.durationSec,
    connections: o.connections,
    warmupSec: o.warmupSec,
  });
}

/**
 * Indexes are built when a shop is first searched (its searches run in SQL until then): one search
 * of the bench shop, then the line the build prints for 10,000 products and more.
 */
export async function indexBenchShop(child: ChildProcess, url: string): Promise<void> {
  await postJson(url, 'bench.localhost', '/api/ucp/catalog/search', { query: SEARCH_QUERIES[0] });
  await waitForOutput(child, /shop_bench: \d+ products indexed in .*\n/);
}

/**
 * BENCH_ROUNDS rounds (default 2), each with a fresh pair of servers, both up the whole round, each
 * warmed up once, then BENCH_SLICES pairs of slices (default 6) of BENCH_SLICE_SECONDS (default
 * half of BENCH_SECONDS) alternating ours and the reference (support.ts alternatingSlices). The
 * figures: the median of the pairs' ratios with their min–max, each side's median req/s, the median
 * and highest p99 of our slices. The reference reads a copy of the database (two embedded
 * databases may not open one directory at once).
 */
export async function benchSearchAtScale(dataDir: string, products: number, seconds: number): Promise<Row[]> {
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
  const pairs = Math.max(1, Number(process.env.BENCH_SLICES ?? 6));
  const slice = Number(process.env.BENCH_SLICE_SECONDS ?? Math.max(1, seconds / 2));
  const copy = mkdtempSync(join(tmpdir(), 'ucp-search-ref-'));
  cpSync(dataDir, copy, { recursive: true });
  const slices: Slices = { a: [], b: [], ratios: [] };
  let built = 'index report missing'; // catalog-index.ts logs it for catalogs of 10,000 products and more
  let rss = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      const [refPort, ourPort] = [await freePort(), await freePort()];
      const reference = await startChild(process.execPath, ['--import', 'tsx', 'bench/search-reference.ts', copy, String(refPort), 'shop_bench'], {}, /ready/);
      // Budgets off as in every bench server: one load generator is one address (a 429 is no search); the limiter's cost is its own area.
      const ours = await startChild(process.execPath, ['--import', 'tsx', 'server/main.ts'], { PORT: String(ourPort), DATA_DIR: dataDir, HOST: '127.0.0.1', UCP_RATE_LIMITS: 'off' }, /listening on/).catch(async (e) => {
        await stop(reference);
        throw e;
      });
      const ourUrl = `http://127.0.0.1:${ourPort}`;
      const refUrl = `http://127.0.0.1:${refPort}`;
      try {
        await indexBenchShop(ours, ourUrl);
        // Warm both once (JIT, the WASM's tiers), unrecorded; then slices with no warm-up of their own.
        await loadSearch('warm-up', { url: ourUrl, durationSec: 3 });
        await loadSearch('warm-up', { url: refUrl, durationSec: 3, path: '/' });
        await alternatingSlices(
          pairs,
          round,
          () => loadSearch('search ours', { url: ourUrl, durationSec: slice, warmupSec: 0 }),
          () => loadSearch('search reference', { url: refUrl, durationSec: slice, path: '/', warmupSec: 0 }),
          slices,
        );
        rss = Math.max(rss, residentMb(ours.pid));
        const m = /shop_bench: \d+ products indexed in ([\d.]+ s) \(([\d.]+ MB)\)/.exec(childOutput(ours));
        if (m) built = `index built in ${m[1]}, ${m[2]}`;
      } finally {
        await stop(ours);
        await stop(reference);
      }
    }
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
  const n = slices.ratios.length;
  const ours = median(slices.a.map((r) => r.rps));
  const ref = median(slices.b.map((r) => r.rps));
  const p99 = slices.a.map((r) => r.p99);
  const refP99 = slices.b.map((r) => r.p99);
  const ratio = spread(slices.ratios, pct);
  console.log(
    `  search at ${products} products, ${n} pairs of ${slice} s slices in ${rounds} rounds: ours ${spread(slices.a.map((r) => r.rps))} req/s, p99 ${spread(p99)} ms; ` +
      `the bare index server ${spread(slices.b.map((r) => r.rps))} req/s, p99 ${spread(refP99)} ms; ours / reference per pair ${ratio}; ${built}; server RSS ${rss} MB`,
  );
  console.log(`    pairs: ${slices.ratios.map(pct).join(', ')}`);
  return [
    { name: `catalog search (${products} products), bare in-memory index server (reference), median of ${n} slices`, rps: Math.round(ref), p99: median(refP99) },
    { name: `catalog search (${products} products), 10 connections: ${ratio} of the reference (median pair, min–max of ${n}); p99 highest ${Math.max(...p99)} ms; ${built}; RSS ${rss} MB`, rps: Math.round(ours), p99: median(p99) },
  ];
}
