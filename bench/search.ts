/**
 * Catalog search at scale beside its reference (issue 17.1): this server and the bare in-memory
 * index server (bench/search-reference.ts) over the same database, queries and page size, in
 * alternating order over two rounds (each kind runs once first, once second). Also records how long
 * the server took to build its index, the index's size, and the server process's resident memory.
 */
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { childOutput, freePort, load, postJson, startChild, stop, waitForOutput, type Row } from './support.ts';

export const SEARCH_QUERIES = ['linen', 'stoneware bowl', 'vintage tent', 'kraft', 'cozy vest', 'lamp', 'modern', 'ripstop', 'soft bookmark', 'compact'];

/** Searches on the demo shop (demo.localhost), as an agent builder's sandbox sees them. */
export const DEMO_QUERIES = ['tee', 'mug', 'flask', 'journal', 'lamp', 'merino', 'lantern', 'navy', 'gift', 'steel'];

/** The bench's search case: its ten queries in turn, page size 10, on the generated shop. */
export function loadSearch(name: string, o: { url: string; durationSec: number; connections?: number; path?: string; host?: string; queries?: readonly string[] }): Promise<Row> {
  return load(name, {
    url: o.url,
    host: o.host ?? 'bench.localhost',
    method: 'POST',
    path: o.path ?? '/api/ucp/catalog/search',
    bodies: (o.queries ?? SEARCH_QUERIES).map((query) => JSON.stringify({ query, limit: 10 })),
    durationSec: o.durationSec,
    connections: o.connections,
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

function residentMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

export async function benchSearchAtScale(dataDir: string, products: number, seconds: number): Promise<Row[]> {
  const sums = { ours: { rps: 0, p99: 0 }, reference: { rps: 0, p99: 0 } };
  let built = 'index report missing'; // catalog-index.ts logs it for catalogs of 10,000 products and more
  let rss = 0;
  for (const order of [['reference', 'ours'], ['ours', 'reference']] as const) {
    for (const kind of order) {
      const port = await freePort();
      const child =
        kind === 'reference'
          ? await startChild(process.execPath, ['--import', 'tsx', 'bench/search-reference.ts', dataDir, String(port), 'shop_bench'], {}, /ready/)
          : await startChild(process.execPath, ['--import', 'tsx', 'server/main.ts'], { PORT: String(port), DATA_DIR: dataDir, HOST: '127.0.0.1' }, /listening on/);
      try {
        if (kind === 'ours') await indexBenchShop(child, `http://127.0.0.1:${port}`);
        const r = await loadSearch(`search ${kind}`, { url: `http://127.0.0.1:${port}`, durationSec: seconds, ...(kind === 'reference' ? { path: '/' } : {}) });
        sums[kind].rps += r.rps / 2;
        sums[kind].p99 = Math.max(sums[kind].p99, r.p99);
        if (kind === 'ours') {
          rss = Math.max(rss, residentMb(child.pid));
          const m = /shop_bench: \d+ products indexed in ([\d.]+ s) \(([\d.]+ MB)\)/.exec(childOutput(child));
          if (m) built = `index built in ${m[1]}, ${m[2]}`;
        }
      } finally {
        await stop(child);
      }
    }
  }
  const ratio = sums.ours.rps / sums.reference.rps;
  console.log(`  search at ${products} products: ${Math.round(sums.ours.rps)} req/s (p99 ${sums.ours.p99} ms) = ${(ratio * 100).toFixed(0)}% of the bare index server's ${Math.round(sums.reference.rps)} req/s (p99 ${sums.reference.p99} ms); ${built}; server RSS ${rss} MB`);
  return [
    { name: `catalog search (${products} products), bare in-memory index server (reference)`, rps: Math.round(sums.reference.rps), p99: sums.reference.p99 },
    { name: `catalog search (${products} products), 10 connections: ${(ratio * 100).toFixed(0)}% of the reference; ${built}; RSS ${rss} MB`, rps: Math.round(sums.ours.rps), p99: sums.ours.p99 },
  ];
}
