/**
 * What durable cart creates cost, beside what the machine allows (issue 17, docs/benchmarks.md):
 *
 * - the reference: a bare node:http server that appends each request body to a file and answers
 *   201 only after an `fdatasync` covering it, with adaptive group commit (the next flush starts
 *   when the last one ends, carrying every append that arrived meanwhile). Nothing can be durable
 *   faster than this on the same disk with the same HTTP stack.
 * - our `POST /api/ucp/carts` on the embedded database with durable commits (the default) and with
 *   UCP_DURABLE_COMMITS=off, in alternating slices beside the reference (benchDurable).
 *
 *   BENCH_ONLY=durable BENCH_PRODUCTS=2000 BENCH_POSTGRES=0 npm run bench
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alternatingSlices, CART_CREATE_BODIES, expectCreated, freePort, load, median, pct, spread, startChild, stop, warmUntilSteady, type Row, type Slices } from './support.ts';

/** The reference server (run with `node -e`): PORT and FILE from the environment. */
export const GROUP_COMMIT_SOURCE = `
const fs = require('node:fs');
const fd = fs.openSync(process.env.FILE, 'a');
let waiting = [], flushing = false;
function flush() {
  if (waiting.length === 0) { flushing = false; return; }
  flushing = true;
  const batch = waiting; waiting = [];
  fs.fdatasync(fd, () => { for (const res of batch) { res.writeHead(201, { 'content-type': 'application/json' }); res.end('{"ok":true}'); } flush(); });
}
require('node:http').createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    fs.writeSync(fd, Buffer.concat([...chunks, Buffer.from('\\n')]));
    waiting.push(res);
    if (!flushing) flush();
  });
}).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
`;

/**
 * BENCH_ROUNDS rounds (default 2) with durable commits on and one with them off (after the first),
 * each a fresh server of ours and a fresh reference, both up the whole round, each warmed until its
 * rate settles (support.ts warmUntilSteady), then
 * BENCH_SLICES pairs of slices (default 6) of BENCH_SLICE_SECONDS (default half of BENCH_SECONDS)
 * alternating them (support.ts alternatingSlices). The figure: the median of the pairs' ratios
 * (ours / reference) with their min–max; what durability costs is the on rounds' median ratio
 * against the off round's.
 */
export async function benchDurable(dataDir: string, seconds: number): Promise<Row[]> {
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
  const pairs = Math.max(1, Number(process.env.BENCH_SLICES ?? 6));
  const slice = Number(process.env.BENCH_SLICE_SECONDS ?? Math.max(1, seconds / 2));
  const modes = Array.from({ length: rounds }, () => 'on' as 'on' | 'off');
  modes.splice(1, 0, 'off');
  const got = { on: { a: [], b: [], ratios: [] } as Slices, off: { a: [], b: [], ratios: [] } as Slices };
  const scratch = mkdtempSync(join(tmpdir(), 'ucp-group-commit-'));
  try {
    for (const [round, mode] of modes.entries()) {
      const [port, refPort] = [await freePort(), await freePort()];
      const reference = await startChild(process.execPath, ['-e', GROUP_COMMIT_SOURCE], { PORT: String(refPort), FILE: join(scratch, `log-${round}`) }, /ready/);
      // Budgets off as in every bench server: one load generator is one address; the limiter's cost is its own area.
      const server = await startChild(process.execPath, ['--import', 'tsx', 'server/main.ts'], { PORT: String(port), DATA_DIR: dataDir, HOST: '127.0.0.1', UCP_DURABLE_COMMITS: mode, UCP_RATE_LIMITS: 'off' }, /listening/).catch(async (e) => {
        await stop(reference);
        throw e;
      });
      const create = (warmupSec: number, durationSec = slice) => load(`cart create, durable commits ${mode}`, { url: `http://127.0.0.1:${port}`, host: 'demo.localhost', method: 'POST', path: '/api/ucp/carts', bodies: CART_CREATE_BODIES, durationSec, warmupSec });
      const append = (warmupSec: number, durationSec = slice) => load('reference: append + fdatasync group commit', { url: `http://127.0.0.1:${refPort}`, host: 'bench', method: 'POST', path: '/', bodies: CART_CREATE_BODIES, durationSec, warmupSec });
      try {
        await expectCreated(`http://127.0.0.1:${port}`, 'demo.localhost', '/api/ucp/carts', CART_CREATE_BODIES);
        // Each side warmed until its rate settles (support.ts warmUntilSteady): ours takes ~25 s.
        const warm = { ours: await warmUntilSteady((sec) => create(0, sec)), reference: await warmUntilSteady((sec) => append(0, sec)) };
        console.log(`  warm-up (${mode}), req/s per 3 s window: ours ${warm.ours.join(', ')}; reference ${warm.reference.join(', ')}`);
        await alternatingSlices(mode === 'off' ? Math.ceil(pairs / 2) : pairs, round, () => create(0), () => append(0), got[mode]);
      } finally {
        await stop(server);
        await stop(reference);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const { on, off } = got;
  const rps = (s: Slices, side: 'a' | 'b') => Math.round(median(s[side].map((r) => r.rps)));
  const ratio = spread(on.ratios, pct);
  console.log(
    `  durable cart create, ${on.ratios.length} pairs of ${slice} s slices: ${spread(on.a.map((r) => r.rps))}/s, p99 ${spread(on.a.map((r) => r.p99))} ms; ` +
      `reference ${spread(on.b.map((r) => r.rps))}/s; ours / reference per pair ${ratio}; ` +
      `commits left in the page cache (${off.ratios.length} pairs): ${spread(off.a.map((r) => r.rps))}/s, ${spread(off.ratios, pct)} of the reference; durability costs ${pct(1 - median(on.ratios) / median(off.ratios))}`,
  );
  console.log(`    pairs (durable): ${on.ratios.map(pct).join(', ')}`);
  return [
    { name: 'reference: append + fdatasync group commit (node:http), median slice', rps: rps(on, 'b'), p99: median(on.b.map((r) => r.p99)) },
    { name: `cart create, durable commits (default): ${ratio} of the reference (median pair, min–max of ${on.ratios.length})`, rps: rps(on, 'a'), p99: median(on.a.map((r) => r.p99)) },
    { name: `cart create, UCP_DURABLE_COMMITS=off: ${spread(off.ratios, pct)} of the reference`, rps: rps(off, 'a'), p99: median(off.a.map((r) => r.p99)) },
  ];
}
