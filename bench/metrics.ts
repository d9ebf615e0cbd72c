/**
 * What request metrics cost (BENCH_ONLY=metrics), two ways:
 * - isolated: the bare node:http JSON server of the baseline, with and without the server's own
 *   instrumentation (observeRequest and an operation name, exactly what app.ts adds to every
 *   request), alternating over four rounds in both orders. The cheapest request there is, so this
 *   is an upper bound on what metrics take from any real endpoint;
 * - REST search: two servers side by side (METRICS=on and off, the demo shop in memory), driven in
 *   alternating 5 s bursts after one unmeasured burst each, so both see the same neighbours' load
 *   and are equally warm. A fresh server per measurement (bench/run.ts onOffCost) mixed JIT and
 *   index warm-up into the figure and moved by ±40 % between runs on a shared machine.
 * Both report the servers' CPU time per request (from /proc), steadier there than req/s.
 */
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { freePort, load, startChild, stop, type Row } from './support.ts';

const SOURCE = `
const http = require('node:http');
const instrument = process.env.INSTRUMENT === '1';
import('./server/http/metrics.ts').then(({ observeRequest, nameRoute, watchDatabase }) => {
  const body = JSON.stringify({ ucp: { version: '2026-04-08', services: {}, capabilities: {}, payment_handlers: {} } });
  http.createServer((req, res) => {
    if (instrument) observeRequest(req, res);
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' });
    res.end(body);
    if (instrument) nameRoute(req, '/.well-known/ucp');
  }).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
});
`;

/** CPU seconds (user + system) a process has used so far, from /proc (Linux; clock ticks of 1/100 s). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function benchMetricsOverhead(seconds: number): Promise<Row[]> {
  const sum = { on: { rps: 0, cpu: 0, p99: 0 }, off: { rps: 0, cpu: 0, p99: 0 } };
  const rounds = 4;
  for (let round = 0; round < rounds; round++) {
    for (const mode of round % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      const port = await freePort();
      const server = await startChild(process.execPath, ['--import', 'tsx', '-e', SOURCE], { PORT: String(port), INSTRUMENT: mode === 'on' ? '1' : '0' }, /ready/);
      try {
        const url = `http://127.0.0.1:${port}`;
        await load('warm-up', { url, host: 'bench', path: '/.well-known/ucp', durationSec: 1 });
        const before = cpuSeconds(server.pid!);
        const r = await load(`bare server, metrics ${mode}`, { url, host: 'bench', path: '/.well-known/ucp', durationSec: seconds });
        sum[mode].cpu += (cpuSeconds(server.pid!) - before) / Math.max(1, r.rps * seconds);
        sum[mode].rps += r.rps;
        sum[mode].p99 = Math.max(sum[mode].p99, r.p99);
      } finally {
        await stop(server);
      }
    }
  }
  const us = (s: number) => ((s / rounds) * 1e6).toFixed(1);
  console.log(
    `  metrics on a bare server: on ${Math.round(sum.on.rps / rounds)} req/s vs off ${Math.round(sum.off.rps / rounds)} req/s = ${((sum.on.rps / sum.off.rps) * 100).toFixed(1)}%; ` +
      `CPU ${us(sum.on.cpu)} µs vs ${us(sum.off.cpu)} µs per request (+${us(sum.on.cpu - sum.off.cpu)} µs)`,
  );
  return (['on', 'off'] as const).map((mode) => ({ name: `bare node:http, request metrics ${mode}`, rps: Math.round(sum[mode].rps / rounds), p99: sum[mode].p99 }));
}

const SEARCH_BODIES = ['linen', 'mug', 'flask', 'tee', 'lamp'].map((query) => JSON.stringify({ query, limit: 10 }));

export async function benchMetricsOnSearch(burstSec = 5, rounds = 6): Promise<Row[]> {
  const servers: Array<{ mode: 'on' | 'off'; url: string; child: ChildProcess; rps: number; cpu: number; requests: number; p99: number }> = [];
  for (const mode of ['on', 'off'] as const) {
    const port = await freePort();
    const env = { PORT: String(port), DATA_DIR: 'memory://', HOST: '127.0.0.1', METRICS: mode, UCP_RATE_LIMITS: 'off' };
    servers.push({ mode, url: `http://127.0.0.1:${port}`, child: await startChild(process.execPath, ['--import', 'tsx', 'server/main.ts'], env, /listening/), rps: 0, cpu: 0, requests: 0, p99: 0 });
  }
  try {
    for (let round = 0; round < rounds; round++) {
      for (const s of round % 2 ? [...servers].reverse() : servers) {
        const before = cpuSeconds(s.child.pid!);
        const r = await load(`search, metrics ${s.mode}`, { url: s.url, host: 'demo.localhost', method: 'POST', path: '/api/ucp/catalog/search', bodies: SEARCH_BODIES, durationSec: burstSec });
        if (round === 0) continue; // warm-up: JIT, the index, the caches
        s.cpu += cpuSeconds(s.child.pid!) - before;
        s.requests += r.rps * burstSec;
        s.rps += r.rps;
        s.p99 = Math.max(s.p99, r.p99);
      }
    }
  } finally {
    for (const s of servers) await stop(s.child);
  }
  const [on, off] = servers;
  const us = (s: (typeof servers)[number]) => ((s.cpu / s.requests) * 1e6).toFixed(0);
  console.log(`  metrics on REST search: on ${Math.round(on.rps / (rounds - 1))} req/s vs off ${Math.round(off.rps / (rounds - 1))} req/s = ${((on.rps / off.rps) * 100).toFixed(1)}%; CPU ${us(on)} µs vs ${us(off)} µs per request`);
  return servers.map((s) => ({ name: `catalog search (demo), request metrics ${s.mode}`, rps: Math.round(s.rps / (rounds - 1)), p99: s.p99 }));
}
