/**
 * Loading a platform of many shops with the real command line: SHOPS generated files of PRODUCTS
 * products (bench/shop-files.ts) in one `ucp-storefront seed` run, into a fresh embedded database or
 * a fresh database on a PostgreSQL server. Reports products/s and how the time per file develops
 * from the first files to the last (each burst of "loaded" lines is one committed group; with one
 * file per transaction, one file).
 *
 *   BENCH_ONLY=load npm run bench                   # 120 x 300 embedded, 500 x 200 on PostgreSQL
 *   npx tsx bench/catalog-load.ts --shops 120 --products 300 [--database-url URL] [--code DIR]
 *
 * `--code DIR` runs another checkout's bin (an earlier commit, for before/after pairs); it is given
 * the files one by one, as older versions take no directory.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { createTestDatabase } from '../test/support/postgres.ts';
import { writeShopFiles } from './shop-files.ts';

export interface LoadRun {
  label: string;
  products: number;
  seconds: number;
  rate: number;
  /** Seconds from the start to the first file's "loaded" line (opening, migrating, the first group). */
  firstLoaded: number;
  /** Seconds per file in each committed group after the first, in order. */
  perFile: number[];
}

/** `databaseUrl`: a PostgreSQL server; the run gets a fresh database there, dropped afterwards. */
export async function benchCatalogLoad(opts: { shops: number; products: number; databaseUrl?: string; code?: string; label?: string }): Promise<LoadRun> {
  const dir = mkdtempSync(join(tmpdir(), 'ucp-bench-load-'));
  const pg = opts.databaseUrl ? await createTestDatabase(opts.databaseUrl) : undefined;
  try {
    const files = writeShopFiles(join(dir, 'shops'), opts.shops, opts.products);
    const code = resolve(opts.code ?? '.');
    const env = { ...process.env, DATA_DIR: join(dir, 'data'), DATABASE_URL: pg?.url ?? '', NODE_ENV: 'development' };
    const t0 = performance.now();
    const stamps = await runSeed(join(code, 'bin/ucp-storefront.mjs'), opts.code ? files : [join(dir, 'shops')], env, code);
    const seconds = (performance.now() - t0) / 1000;
    const products = opts.shops * opts.products;
    const bursts = burstsOf(stamps.map((t) => (t - t0) / 1000));
    const perFile = bursts.slice(1).map((b, i) => (b.at - bursts[i].at) / b.files);
    const label = opts.label ?? `${opts.shops} x ${opts.products}, ${opts.databaseUrl ? 'PostgreSQL' : 'embedded'}`;
    const run = { label, products, seconds, rate: Math.round(products / seconds), firstLoaded: bursts[0]?.at ?? NaN, perFile };
    print(run);
    return run;
  } finally {
    await pg?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the seed command; resolves with the time of each "loaded" line on stdout (milliseconds, performance.now()). */
function runSeed(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number[]> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, 'seed', ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const stamps: number[] = [];
    let rest = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop()!;
      for (const l of lines) if (/: loaded \d+ products into shop /.test(l)) stamps.push(performance.now());
    });
    child.stderr.on('data', (chunk: Buffer) => void (err = (err + chunk.toString()).slice(-4000)));
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done(stamps) : fail(new Error(`seed exited ${code}: ${err}`))));
  });
}

/** Lines within 50 ms of the one before belong to one commit. */
function burstsOf(times: number[]): Array<{ at: number; files: number }> {
  const out: Array<{ at: number; files: number }> = [];
  for (const t of times) {
    const last = out[out.length - 1];
    if (last && t - last.at < 0.05) {
      last.at = t;
      last.files++;
    } else out.push({ at: t, files: 1 });
  }
  return out;
}

function print(r: LoadRun): void {
  const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  const tenth = Math.max(1, Math.floor(r.perFile.length / 10));
  const [first, last] = [avg(r.perFile.slice(0, tenth)), avg(r.perFile.slice(-tenth))];
  console.log(
    `  ${r.label}: ${r.products} products in ${r.seconds.toFixed(1)} s = ${r.rate} products/s; first file loaded at ${r.firstLoaded.toFixed(1)} s; ` +
      `per file ${(first * 1000).toFixed(0)} ms in the first tenth, ${(last * 1000).toFixed(0)} ms in the last (${r.perFile.length + 1} commits)`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { shops: { type: 'string', default: '120' }, products: { type: 'string', default: '300' }, 'database-url': { type: 'string' }, code: { type: 'string' }, label: { type: 'string' } } });
  await benchCatalogLoad({ shops: Number(values.shops), products: Number(values.products), databaseUrl: values['database-url'], code: values.code, label: values.label });
  process.exit(0);
}
