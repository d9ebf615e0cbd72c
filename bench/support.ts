/** Shared pieces of the benchmarks: child-process servers, autocannon runs, result rows. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import autocannon from 'autocannon';

export interface Row {
  name: string;
  rps: number;
  p99: number;
  /** Throughput relative to the same-run baseline. */
  ratio?: number;
}

export interface LoadOptions {
  url: string;
  host: string;
  durationSec: number;
  method?: 'GET' | 'POST' | 'PUT';
  path: string;
  headers?: Record<string, string>;
  /** Bodies cycled through, one per request. */
  bodies?: string[];
  connections?: number;
  /** Seconds of unrecorded load first (default BENCH_WARMUP, 2); 0 for a slice of a warm server. */
  warmupSec?: number;
}

/** Seconds of unrecorded load before each measured case (BENCH_WARMUP). */
const WARMUP_SEC = Number(process.env.BENCH_WARMUP ?? 2);

/**
 * One autocannon run, after a warm-up with the same requests that is not recorded: a fresh server's
 * first seconds measure V8 compiling (the embedded database's WASM tiers up under load, which alone
 * put p99 at 2-5× its steady value), not the steady state a long-running server serves in.
 */
export async function measure(opts: autocannon.Options, warmupSec = WARMUP_SEC): Promise<autocannon.Result> {
  if (warmupSec > 0) await autocannon({ ...opts, duration: warmupSec });
  return autocannon(opts);
}

export async function load(name: string, o: LoadOptions): Promise<Row> {
  const bodies = o.bodies ?? [];
  let i = 0;
  const result = await measure({
    url: o.url,
    connections: o.connections ?? 10,
    duration: o.durationSec,
    requests: [
      {
        method: o.method ?? 'GET',
        path: o.path,
        headers: { host: o.host, ...(bodies.length ? { 'content-type': 'application/json' } : {}), ...o.headers },
        ...(bodies.length ? { setupRequest: (req: any) => ({ ...req, body: bodies[i++ % bodies.length] }) } : {}),
      },
    ],
  }, o.warmupSec);
  if (result.non2xx > 0 || result.errors > 0) {
    console.warn(`  ! ${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  return { name, rps: Math.round(result.requests.average), p99: result.latency.p99 };
}

/** The baseline: a raw node:http server answering a small JSON document, in its own process. */
export const BASELINE_SOURCE = `
const http = require('node:http');
const body = JSON.stringify({ ucp: { version: '2026-04-08', services: {}, capabilities: {}, payment_handlers: {} } });
http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' }); res.end(body); })
  .listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
`;

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const outputs = new WeakMap<ChildProcess, () => string>();

/** What a child started by startChild has printed so far. */
export function childOutput(child: ChildProcess): string {
  return outputs.get(child)?.() ?? '';
}

/** Starts a child process and resolves once it prints `marker`. */
export function startChild(cmd: string, args: string[], env: Record<string, string>, marker: RegExp): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    outputs.set(child, () => out);
    child.stdout!.on('data', (d) => {
      out += d;
      if (marker.test(out)) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`${cmd} exited with ${code}: ${out}`)));
  });
}

/** Resolves once the child's output (from its start) matches `marker`. */
export function waitForOutput(child: ChildProcess, marker: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!marker.test(childOutput(child))) return;
      child.stdout!.off('data', check);
      resolve();
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`exited with ${code} before printing ${marker}: ${childOutput(child)}`)));
    check();
  });
}

/** One JSON POST with a Host header (fetch may not set Host); resolves with the status. */
export function postJson(url: string, host: string, path: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method: 'POST', headers: { host, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/**
 * The cart-create bodies of the durable and on/off benchmarks: two carts the demo shop creates (201).
 * Until 2026-12-02 the second lacked the flask's required `gift_box` and was answered 200 with a
 * `customization_required` error: half the "creates" measured wrote nothing.
 */
export const CART_CREATE_BODIES = [
  JSON.stringify({ line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 2 }] }),
  JSON.stringify({ line_items: [{ item: { id: 'var_flask_steel' }, quantity: 1, customizations: [{ id: 'engraving', value: 'For Sam' }, { id: 'gift_box', value: 'kraft' }] }] }),
];

/** Throws unless each body, posted once, is answered 201: a bench of creates must measure creates. */
export async function expectCreated(url: string, host: string, path: string, bodies: readonly string[]): Promise<void> {
  for (const body of bodies) {
    const status = await postJson(url, host, path, JSON.parse(body));
    if (status !== 201) throw new Error(`${path} answered ${status}, not 201, to ${body}: the benchmark would not measure creates`);
  }
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    // A child that already ended (a crash mid-case) would never say so again: waiting for it hung the bench.
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export function printRows(rows: Row[]): void {
  console.log('\n| benchmark | req/s | p99 ms | vs baseline |\n|---|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.name} | ${r.rps} | ${r.p99} | ${r.ratio === undefined ? '' : `${(r.ratio * 100).toFixed(0)}%`} |`);
}

/** A process's resident set in MB (Linux /proc). */
export const residentMb = (pid: number | undefined) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

/** CPU seconds the process has used (user + system; /proc clock ticks at 100 Hz). */
export const cpuSeconds = (pid: number | undefined) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

/** The middle of `xs` (the mean of the two middle ones for an even count): the figure of a run of on/off pairs. */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A ratio as a percentage with one decimal. */
export const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** `median (min–max)` of a run of figures, each written by `fmt`. */
export function spread(xs: readonly number[], fmt: (x: number) => string = (x) => String(Math.round(x))): string {
  return `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
}

/**
 * Loads a fresh server until its rate stops climbing, unrecorded: windows of `windowSec` (default 3 s)
 * until the best of the last three is within 5 % of the best before them (at least 8 windows: a
 * dip early on ended a shorter one still climbing; at most BENCH_WARM_MAX seconds, default 60). Returns each window's rate. A fixed short warm-up
 * measured a server still compiling: a fresh cart-create server ran 590-720/s in its first 3 s and
 * ~2,600/s after ~25 s (its JavaScript and the embedded database's WASM tier up under load;
 * 2026-12-02), while a bare `node:http` server is warm within a second.
 */
export async function warmUntilSteady(run: (durationSec: number) => Promise<Row>, windowSec = 3): Promise<number[]> {
  const maxSec = Number(process.env.BENCH_WARM_MAX ?? 60);
  const rates: number[] = [];
  while (rates.length * windowSec < maxSec) {
    rates.push((await run(windowSec)).rps);
    if (rates.length < 8) continue;
    const before = Math.max(...rates.slice(0, -3));
    if (Math.max(...rates.slice(-3)) <= before * 1.05) break;
  }
  return rates;
}

/** What alternating slices of two servers gave: each slice's rows, and `a / b` per pair. */
export interface Slices {
  a: Row[];
  b: Row[];
  /** a.rps / b.rps of each pair (the two slices run back to back). */
  ratios: number[];
}

/**
 * `pairs` pairs of slices of two warm servers, both up the whole time, one loaded at a time: a, b
 * then b, a (from `offset`, so rounds can start on either side), neither always second. Two runs'
 * sums differed by up to 18 points on this shared machine (issue 47 point 10); the median pair and
 * the pairs' spread say what one sum cannot.
 */
export async function alternatingSlices(pairs: number, offset: number, a: () => Promise<Row>, b: () => Promise<Row>, into: Slices = { a: [], b: [], ratios: [] }): Promise<Slices> {
  for (let k = 0; k < pairs; k++) {
    const got: { a?: Row; b?: Row } = {};
    for (const side of (k + offset) % 2 ? (['b', 'a'] as const) : (['a', 'b'] as const)) got[side] = await (side === 'a' ? a() : b());
    into.a.push(got.a!);
    into.b.push(got.b!);
    into.ratios.push(got.a!.rps / got.b!.rps);
  }
  return into;
}
