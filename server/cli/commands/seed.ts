/**
 * `ucp-storefront seed FILE|DIR...` loads catalog files (docs/catalog-format.md), `seed --demo` the
 * demo shops, all in one run (server/core/catalog/catalog-load.ts): each file whole or not at all, the others
 * loaded whatever one of them does, exit 1 and the failed files listed last when any failed. A shop
 * that exists is updated (its products upserted). Long runs show progress (../progress.ts).
 */
import { loadCatalogs, type FileResult } from '../../core/catalog/catalog-load.ts';
import { catalogSources } from '../../seed/catalog-files.ts';
import { demoSources } from '../../seed/demo.ts';
import { UsageError, type Command, type Io } from '../cli.ts';
import { withDb } from '../open.ts';
import { progress } from '../progress.ts';
import { openSync, readSync, closeSync } from 'node:fs';
import { importFormatOf } from '../../import/detect.ts';

export const seed: Command = {
  name: 'seed',
  summary: 'load catalog files (or the demo shops) into the database',
  usage: `usage: ucp-storefront seed FILE|DIR [FILE|DIR ...] [--json]
       ucp-storefront seed --demo [--json]

  FILE     a catalog file (docs/catalog-format.md); its shop is created or updated
  DIR      every .json file directly in the directory, in name order
  --demo   the demo shops (server/seed/data), as a fresh development server loads them

  Each file loads whole or not at all: a file that fails leaves nothing, its shop included, and the
  other files still load. Any failure: the failed files are listed at the end and the exit code is 1.`,
  options: { demo: { type: 'boolean' } },
  positionals: true,
  async run({ values, positionals, io }) {
    if (values.demo && positionals.length) throw new UsageError('give FILEs or --demo, not both');
    if (!values.demo && !positionals.length) throw new UsageError('no catalog FILE given');
    const sources = values.demo ? demoSources() : catalogSources(positionals);
    const many = sources.length > 1;
    const bar = progress(io, many ? `${sources.length} files` : sources[0].name);
    // A terminal's progress bar redraws its line: file lines wait for it to stop; logs get them as they come.
    const held: Array<() => void> = [];
    const say = (line: () => void) => (values.json ? undefined : io.isTTY && io.stream ? held.push(line) : line());
    const t0 = performance.now();
    let finished = 0;
    const results = await withDb(io, (db) =>
      loadCatalogs(db, sources, {
        file(r) {
          if (many) bar.update(++finished, sources.length);
          say(() => printResult(io, r));
        },
        products: many ? undefined : (done, total) => bar.update(done, total),
        stage: (stage) => bar.note(stage === 'statistics' ? 'refreshing statistics' : many ? 'merging the search index' : 'merging the search index and refreshing statistics'),
      }),
    );
    bar.stop();
    for (const line of held) line();
    const seconds = (performance.now() - t0) / 1000;
    const failed = results.filter((r) => r.error);
    if (values.json) io.out(JSON.stringify(results.map(jsonResult), null, 2));
    else if (many) summarize(io, results, failed, seconds);
    return failed.length ? 1 : 0;
  },
};

function printResult(io: Io, r: FileResult): void {
  if (!r.error) return io.out(`${r.file}: loaded ${r.products} products into shop ${r.shop}`);
  io.err(`${r.file}: ${r.error}`);
  const other = r.error.startsWith('invalid JSON') ? importFormatOf(head(r.file)) : undefined;
  if (other) io.err(`  this looks like ${FORMAT_WORDS[other]}, not a catalog file: use ucp-storefront import --shop ID [--domain HOST] ${r.file}`);
  for (const i of r.issues ?? []) io.err(`  ${i.path}: ${i.content}`);
}

/** The run in one line, then each failed file again, so the end of a long log says what to fix. */
function summarize(io: Io, results: FileResult[], failed: FileResult[], seconds: number): void {
  const loaded = results.filter((r) => !r.error);
  const products = loaded.reduce((n, r) => n + r.products!, 0);
  const shops = new Set(loaded.map((r) => r.shop)).size;
  io.out(`loaded ${products} products into ${shops} shops from ${loaded.length} of ${results.length} files in ${seconds.toFixed(1)} s (${Math.round(products / seconds)} products/s)`);
  if (!failed.length) return;
  io.err(`${failed.length} of ${results.length} files failed and left nothing in the database:`);
  for (const r of failed) io.err(`  ${r.file}: ${r.error}`);
}

/** --json: one record per file, in the order given; issues as `path: content` lines. */
function jsonResult(r: FileResult) {
  return { file: r.file, ...(r.error ? { error: r.error, ...(r.issues ? { issues: r.issues.map((i) => `${i.path}: ${i.content}`) } : {}) } : { shop: r.shop, products: r.products }) };
}

const FORMAT_WORDS: Record<string, string> = { shopify: 'a Shopify product CSV', woocommerce: 'a WooCommerce product CSV', google: 'a Google Merchant Center feed', jsonld: 'schema.org JSON-LD' };

/** The file's first 64 KiB as text ('' when it cannot be read). */
function head(path: string): string {
  try {
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(64 * 1024);
      return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}
