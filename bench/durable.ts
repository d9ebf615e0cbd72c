/**
 * What durable cart creates cost, beside what the machine allows (issue 17, docs/benchmarks.md):
 *
 * - the reference: a bare node:http server that appends each request body to a file and answers
 *   201 only after an `fdatasync` covering it, with adaptive group commit (the next flush starts
 *   when the last one ends, carrying every append that arrived meanwhile). Nothing can be durable
 *   faster than this on the same disk with the same HTTP stack.
 * - our `POST /api/ucp/carts` on the embedded database with durable commits (the default) and with
 *   UCP_DURABLE_COMMITS=off, alternating servers so neither always runs warmer.
 *
 *   BENCH_ONLY=durable BENCH_PRODUCTS=2000 BENCH_POSTGRES=0 npm run bench
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, load, startChild, stop, type Row } from './support.ts';

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

const BODIES = [
  JSON.stringify({ line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 2 }] }),
  JSON.stringify({ line_items: [{ item: { id: 'var_flask_steel' }, quantity: 1, customizations: [{ id: 'engraving', value: 'For Sam' }] }] }),
];

export async function benchDurable(dataDir: string, seconds: number): Promise<Row[]> {
  const sums = { on: 0, off: 0, ref: 0, p99on: 0, p99off: 0, p99ref: 0 };
  const scratch = mkdtempSync(join(tmpdir(), 'ucp-group-commit-'));
  try {
    for (let round = 0; round < 2; round++) {
      for (const mode of round % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
        const port = await freePort();
        const env = { PORT: String(port), DATA_DIR: dataDir, HOST: '127.0.0.1', UCP_DURABLE_COMMITS: mode };
        const server = await startChild(process.execPath, ['--import', 'tsx', 'server/main.ts'], env, /listening/);
        try {
          const r = await load(`cart create, durable commits ${mode}`, { url: `http://127.0.0.1:${port}`, host: 'demo.localhost', method: 'POST', path: '/api/ucp/carts', bodies: BODIES, durationSec: seconds });
          sums[mode] += r.rps;
          const key = mode === 'on' ? 'p99on' : 'p99off';
          sums[key] = Math.max(sums[key], r.p99);
        } finally {
          await stop(server);
        }
      }
      const port = await freePort();
      const ref = await startChild(process.execPath, ['-e', GROUP_COMMIT_SOURCE], { PORT: String(port), FILE: join(scratch, `log-${round}`) }, /ready/);
      try {
        const r = await load('reference: append + fdatasync group commit', { url: `http://127.0.0.1:${port}`, host: 'bench', method: 'POST', path: '/', bodies: BODIES, durationSec: seconds });
        sums.ref += r.rps;
        sums.p99ref = Math.max(sums.p99ref, r.p99);
      } finally {
        await stop(ref);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const on = Math.round(sums.on / 2);
  const off = Math.round(sums.off / 2);
  const ref = Math.round(sums.ref / 2);
  console.log(`  durable cart create: ${on}/s = ${((on / ref) * 100).toFixed(0)}% of the group-commit reference (${ref}/s); durability costs ${((1 - on / off) * 100).toFixed(0)}% against commits left in the page cache (${off}/s)`);
  return [
    { name: 'reference: append + fdatasync group commit (node:http)', rps: ref, p99: sums.p99ref },
    { name: `cart create, durable commits (default): ${((on / ref) * 100).toFixed(0)}% of the reference`, rps: on, p99: sums.p99on },
    { name: 'cart create, UCP_DURABLE_COMMITS=off', rps: off, p99: sums.p99off },
  ];
}
