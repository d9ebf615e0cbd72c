/**
 * What answering in UCP 2026-08-25 costs beside 2026-04-08 (issue 37, docs/benchmarks.md): the same
 * server, the same database, REST search and cart create from an agent whose platform profile is
 * 2026-08-25 and from one whose profile is 2026-04-08, alternating (04-08 first, then 08-25 first,
 * so neither always runs warmer; in slices, every search pair before the first cart). The 2026-08-25 answers go through the edge mapping
 * (server/ucp/versions.ts: the `ucp` block at its version, `policies[]`), the 2026-04-08 ones through
 * its check for fields to leave out. Target: 2026-08-25 at ≥ 95 % of 2026-04-08.
 *
 *   BENCH_ONLY=ucp-versions BENCH_PRODUCTS=2000 BENCH_POSTGRES=0 BENCH_SECONDS=5 npm run bench
 */
import { createServer } from 'node:http';
import { platformProfile, platformProfile20260825 } from '../test/support/platform.ts';
import { cpuSeconds } from './metrics.ts';
import { DEMO_QUERIES } from './search.ts';
import { freePort, load, median, pct, startChild, stop, type Row } from './support.ts';

const CART_BODIES = [
  JSON.stringify({ line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 2 }] }),
  JSON.stringify({ line_items: [{ item: { id: 'var_socks_m' }, quantity: 1 }] }),
];

/** Both agents' profiles, served from this process on loopback: `/0408` and `/0825`. */
async function serveProfiles(): Promise<{ '2026-04-08': string; '2026-08-25': string; close(): void }> {
  const bodies: Record<string, string> = { '/0408': JSON.stringify(platformProfile()), '/0825': JSON.stringify(platformProfile20260825()) };
  const server = createServer((req, res) => {
    const body = bodies[req.url ?? ''];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' });
    res.end(body ?? '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { '2026-04-08': `${base}/0408`, '2026-08-25': `${base}/0825`, close: () => server.close() };
}

type Version = '2026-04-08' | '2026-08-25';

export async function benchUcpVersions(dataDir: string, seconds: number): Promise<Row[]> {
  const profiles = await serveProfiles();
  const port = await freePort();
  const server = await startChild(process.execPath, ['--import', 'tsx', 'server/main.ts'], { PORT: String(port), DATA_DIR: dataDir, HOST: '127.0.0.1', UCP_ALLOW_INSECURE_PROFILE_URLS: '1', UCP_RATE_LIMITS: 'off' }, /listening/);
  const url = `http://127.0.0.1:${port}`;
  const searchBodies = DEMO_QUERIES.map((query) => JSON.stringify({ query }));
  const cases = [
    { name: 'REST catalog search', path: '/api/ucp/catalog/search', bodies: searchBodies },
    { name: 'REST cart create', path: '/api/ucp/carts', bodies: CART_BODIES },
  ];
  const sums: Record<string, Record<Version, { rps: number; p99: number; cpu: number }> & { pairs: number[] }> = {};
  // BENCH_SLICES pairs per case (default 6) of seconds / 2 each, the versions alternating inside a
  // case: every search pair runs before the first cart is made (carts change stock, and with it
  // what search answers hold), and neither version always runs second.
  const slices = Math.max(1, Number(process.env.BENCH_SLICES ?? 6));
  const slice = Math.max(1, seconds / 2);
  try {
    for (const v of ['2026-04-08', '2026-08-25'] as const) {
      await load(`warm-up, ${v} agent`, { url, host: 'demo.localhost', method: 'POST', path: cases[0].path, bodies: cases[0].bodies, headers: { 'ucp-agent': `profile="${profiles[v]}"` }, durationSec: 2 });
    }
    for (const c of cases) {
      for (let k = 0; k < slices; k++) {
        const order: Version[] = k % 2 ? ['2026-08-25', '2026-04-08'] : ['2026-04-08', '2026-08-25'];
        const got: Partial<Record<Version, number>> = {};
        for (const v of order) {
          const before = cpuSeconds(server.pid!);
          const r = await load(`${c.name}, ${v} agent`, { url, host: 'demo.localhost', method: 'POST', path: c.path, bodies: c.bodies, headers: { 'ucp-agent': `profile="${profiles[v]}"` }, durationSec: slice });
          const cpu = (cpuSeconds(server.pid!) - before) / Math.max(1, r.rps * slice);
          const sum = (sums[c.name] ??= { '2026-04-08': { rps: 0, p99: 0, cpu: 0 }, '2026-08-25': { rps: 0, p99: 0, cpu: 0 }, pairs: [] })[v];
          sum.rps += r.rps / slices;
          sum.cpu += cpu / slices;
          sum.p99 = Math.max(sum.p99, r.p99);
          got[v] = r.rps;
        }
        sums[c.name].pairs.push((got['2026-08-25'] ?? 0) / (got['2026-04-08'] ?? 1));
      }
    }
  } finally {
    await stop(server);
    profiles.close();
  }
  return Object.entries(sums).flatMap(([name, s]) => {
    const latest = s['2026-08-25'];
    const seed = s['2026-04-08'];
    const us = (x: number) => Math.round(x * 1e6);
    const pairs = [...s.pairs].sort((a, b) => a - b);
    console.log(`  ${name}: 2026-08-25 agent ${Math.round(latest.rps)} req/s vs 2026-04-08 agent ${Math.round(seed.rps)} req/s = ${pct(latest.rps / seed.rps)} (target ≥ 95%); server CPU ${us(latest.cpu)} µs vs ${us(seed.cpu)} µs per request; ${pairs.length} pairs, median ${pct(median(pairs))} (${pairs.map(pct).join(', ')})`);
    return [
      { name: `${name}, 2026-08-25 agent`, rps: Math.round(latest.rps), p99: latest.p99 },
      { name: `${name}, 2026-04-08 agent`, rps: Math.round(seed.rps), p99: seed.p99 },
    ];
  });
}
