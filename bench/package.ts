/**
 * BENCH_ONLY=package (issue 38): the packages as people install them, before and after, in one run.
 *
 *   BENCH_ONLY=package npm run bench
 *   BENCH_ONLY=package BENCH_BASE_REF=<commit> BENCH_RUNS=5 npm run bench
 *
 * "before" is the package packed from BENCH_BASE_REF (default a7acd29, the last commit before the
 * package was split and precompiled: tsx at run time, one package), extracted with `git archive`
 * into a temporary directory, installed (`npm ci`) and packed there; "after" is this checkout's two
 * packages. Each tarball is installed into an empty project, and measured there:
 *  - install: packages and bytes of node_modules (file sizes, before block rounding);
 *  - CLI cold start: `ucp-storefront --help` wall time and CPU (user+system), median of BENCH_RUNS,
 *    runs alternating, beside `node -e 0` (the baseline: a ratio of 1 is Node's own start);
 *    the checkout's tsx start (`node bin/ucp-storefront.mjs --help`) beside `UCP_RUN=compiled`;
 *  - server start: `ucp-storefront start --port 0` on a new data directory until /readyz answers 200;
 *  - idle memory: RSS of a `startSandbox()` server 5 s after it is ready.
 * Results: printed, and .tmp/bench-package.json. docs/benchmarks.md "Packages" has a run with `uptime`.
 */
import { execFileSync, spawn, spawnSync, type StdioOptions } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, lstatSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CPU_HOOK = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\nCPU_MS '+((u.user+u.system)/1000).toFixed(0)+'\\n')})`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const quiet: { stdio: StdioOptions } = { stdio: ['ignore', 'ignore', 'inherit'] };

function bytesUnder(path: string): number {
  return readdirSync(path, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((n, e) => n + lstatSync(join(e.parentPath, e.name)).size, 0);
}

/** Packages in a node_modules tree (scoped ones counted one by one, nested ones included). */
function packagesUnder(modules: string): number {
  let n = 0;
  for (const name of readdirSync(modules)) {
    if (name.startsWith('.')) continue;
    const dirs = name.startsWith('@') ? readdirSync(join(modules, name)).map((s) => join(modules, name, s)) : [join(modules, name)];
    for (const d of dirs) {
      n++;
      try {
        n += packagesUnder(join(d, 'node_modules'));
      } catch {
        // no nested node_modules
      }
    }
  }
  return n;
}

function pack(cwd: string, out: string, args: string[] = []): string {
  mkdirSync(out, { recursive: true });
  const name = execFileSync('npm', ['pack', ...args, '--pack-destination', out, '--silent'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').pop()!;
  return join(out, name);
}

function install(dir: string, tarballs: string[]): { packages: number; bytes: number } {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-consumer', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--omit=dev', ...tarballs, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, ...quiet });
  return { packages: packagesUnder(join(dir, 'node_modules')), bytes: bytesUnder(join(dir, 'node_modules')) };
}

/** Wall and CPU milliseconds of one `node ARGS` run to its end. */
function timed(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): { wall: number; cpu: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', CPU_HOOK, ...args], { cwd, env: { ...process.env, NODE_OPTIONS: '', ...env }, encoding: 'utf8' });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}\n${r.stderr}`);
  return { wall, cpu: Number(/CPU_MS (\d+)/.exec(r.stderr)?.[1] ?? NaN) };
}

/** Medians over RUNS of each case, the cases alternating within a run. */
function coldStarts(cases: Array<{ name: string; args: string[]; cwd: string; env?: NodeJS.ProcessEnv }>): Array<{ name: string; wallMs: number; cpuMs: number }> {
  const walls: number[][] = cases.map(() => []);
  const cpus: number[][] = cases.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    cases.forEach((c, k) => {
      const t = timed(c.args, c.cwd, c.env);
      walls[k]!.push(t.wall);
      cpus[k]!.push(t.cpu);
    });
  }
  return cases.map((c, k) => ({ name: c.name, wallMs: Math.round(median(walls[k]!)), cpuMs: Math.round(median(cpus[k]!)) }));
}

/** Milliseconds from spawning `start --port 0` on a new data directory to /readyz answering 200. */
async function startToReady(bin: string, cwd: string, env: NodeJS.ProcessEnv = {}): Promise<number> {
  const data = mkdtempSync(join(tmpdir(), 'ucp-bench-start-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin, 'start', '--port', '0'], { cwd, env: { ...process.env, NODE_OPTIONS: '', NODE_ENV: 'development', DATA_DIR: data, DATABASE_URL: '', PORT: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      const on = (d: Buffer) => {
        out += d;
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      };
      child.stdout.on('data', on);
      child.stderr.on('data', on);
      child.once('exit', (c) => reject(new Error(`start exited ${c}\n${out}`)));
    });
    while ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status !== 200) await new Promise((r) => setTimeout(r, 20));
    return Math.round(performance.now() - t0);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(data, { recursive: true, force: true });
  }
}

/** RSS (MB) of an idle startSandbox() server of the install in `proj`, 5 s after it is ready. */
function idleSandboxRss(proj: string, env: Record<string, string> = {}): number {
  const script = `import { startSandbox } from 'ucp-storefront/testing';
import { execFileSync } from 'node:child_process';
const sb = await startSandbox({ port: 0, dataDir: 'temp', env: ${JSON.stringify(env)} });
await new Promise((r) => setTimeout(r, 5000));
const line = execFileSync('ps', ['-o', 'rss=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\\n').find((l) => l.includes('ucp-storefront.mjs'));
console.log('RSS_KB', line.trim().split(/\\s+/)[0]);
await sb.stop();`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: proj, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  return Math.round(Number(/RSS_KB (\d+)/.exec(out)![1]) / 1024);
}

export async function benchPackage(): Promise<void> {
  const ref = process.env.BENCH_BASE_REF ?? 'a7acd29';
  const dir = mkdtempSync(join(tmpdir(), 'ucp-bench-package-'));
  try {
    console.log(`\n== packages: ${ref} (before) and this checkout (after); ${RUNS} runs per cold start`);
    const base = join(dir, 'base');
    mkdirSync(base);
    execFileSync('bash', ['-c', `git archive ${ref} | tar -x -C ${base}`], { cwd: ROOT });
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: base, ...quiet });
    const tarBefore = pack(base, join(dir, 'tarballs-before')); // same file name as after's
    const tarAfter = pack(ROOT, join(dir, 'tarballs-after'));
    const tarClient = pack(ROOT, join(dir, 'tarballs-after'), ['-w', 'ucp-storefront-client']);
    const before = join(dir, 'before');
    const after = join(dir, 'after');
    const clientOnly = join(dir, 'client-only');
    const installs = {
      'before: ucp-storefront': install(before, [tarBefore]),
      'after: ucp-storefront (+ its client package)': install(after, [tarAfter, tarClient]),
      'after: ucp-storefront-client alone': install(clientOnly, [tarClient]),
    };
    const binBefore = join(before, 'node_modules/ucp-storefront/bin/ucp-storefront.mjs');
    const binAfter = join(after, 'node_modules/ucp-storefront/bin/ucp-storefront.mjs');
    const checkoutBin = join(ROOT, 'bin/ucp-storefront.mjs');
    const starts = coldStarts([
      { name: 'baseline: node -e 0', args: ['-e', '0'], cwd: dir },
      { name: 'before: installed --help (tsx)', args: [binBefore, '--help'], cwd: before },
      { name: 'after: installed --help (dist/server)', args: [binAfter, '--help'], cwd: after },
      { name: 'checkout: --help through tsx (npm start path)', args: [checkoutBin, '--help'], cwd: ROOT },
      { name: 'checkout: --help UCP_RUN=compiled', args: [checkoutBin, '--help'], cwd: ROOT, env: { UCP_RUN: 'compiled' } },
    ]);
    const ready: Record<string, number[]> = { before: [], after: [] };
    for (let i = 0; i < 3; i++) {
      ready.before!.push(await startToReady(binBefore, before));
      ready.after!.push(await startToReady(binAfter, after));
    }
    const rss: Record<string, number[]> = { before: [], after: [], 'after, PGLITE_SHARED_BUFFERS_MB=160': [] };
    for (let i = 0; i < 2; i++) {
      rss.before!.push(idleSandboxRss(before));
      rss.after!.push(idleSandboxRss(after));
      rss['after, PGLITE_SHARED_BUFFERS_MB=160']!.push(idleSandboxRss(after, { PGLITE_SHARED_BUFFERS_MB: '160' }));
    }
    const baseline = starts[0]!;
    console.log('\ninstall (npm install --omit=dev of the tarballs into an empty project)');
    for (const [k, v] of Object.entries(installs)) console.log(`  ${k.padEnd(48)} ${String(v.packages).padStart(4)} packages ${(v.bytes / 1048576).toFixed(1).padStart(7)} MB`);
    console.log('\nCLI cold start (median wall / CPU, ratio of wall to the baseline)');
    for (const s of starts) console.log(`  ${s.name.padEnd(48)} ${String(s.wallMs).padStart(6)} ms ${String(s.cpuMs).padStart(6)} ms CPU  x${(s.wallMs / baseline.wallMs).toFixed(1)}`);
    console.log('\nstart → /readyz on a new data directory (3 runs, median)');
    for (const [k, v] of Object.entries(ready)) console.log(`  ${k.padEnd(48)} ${median(v)} ms  (${v.join(', ')})`);
    console.log('\nidle startSandbox() server RSS (2 runs)');
    for (const [k, v] of Object.entries(rss)) console.log(`  ${k.padEnd(48)} ${v.join(', ')} MB`);
    mkdirSync(join(ROOT, '.tmp'), { recursive: true });
    writeFileSync(join(ROOT, '.tmp/bench-package.json'), JSON.stringify({ at: new Date().toISOString(), ref, runs: RUNS, installs, starts, ready, rss }, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
