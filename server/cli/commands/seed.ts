/**
 * `ucp-storefront seed FILE...` loads catalog files (docs/catalog-format.md), `seed --demo` the demo
 * shops. A shop that exists is updated (its products upserted). Long loads show progress (./progress.ts).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ZodError } from 'zod';
import { loadCatalogFile } from '../../core/catalog-store.ts';
import { DEMO_DATA_DIR } from '../../seed/demo.ts';
import { UsageError, type Command } from '../cli.ts';
import { withDb } from '../open.ts';
import { progress } from '../progress.ts';

export const seed: Command = {
  name: 'seed',
  summary: 'load catalog files (or the demo shops) into the database',
  usage: `usage: ucp-storefront seed FILE [FILE ...] [--json]
       ucp-storefront seed --demo [--json]

  FILE     a catalog file (docs/catalog-format.md); its shop is created or updated
  --demo   the demo shops (server/seed/data), as a fresh development server loads them`,
  options: { demo: { type: 'boolean' } },
  positionals: true,
  async run({ values, positionals, io }) {
    if (values.demo && positionals.length) throw new UsageError('give FILEs or --demo, not both');
    const files = values.demo ? readdirSync(DEMO_DATA_DIR).filter((f) => f.endsWith('.json')).sort().map((f) => join(DEMO_DATA_DIR, f)) : positionals;
    if (!files.length) throw new UsageError('no catalog FILE given');
    const results: Array<{ file: string; shop?: string; products?: number; error?: string; issues?: string[] }> = [];
    await withDb(io, async (db) => {
      for (const file of files) {
        const bar = progress(io, file);
        try {
          const { shopId, products } = await loadCatalogFile(db, JSON.parse(readFileSync(file, 'utf8')), (done, total, stage) =>
            stage ? bar.note('merging the search index and refreshing statistics') : bar.update(done, total),
          );
          bar.stop();
          results.push({ file, shop: shopId, products });
          if (!values.json) io.out(`${file}: loaded ${products} products into shop ${shopId}`);
        } catch (e) {
          bar.stop();
          const issues = e instanceof ZodError ? e.issues.slice(0, 20).map((i) => `${i.path.join('.')}: ${i.message}`) : undefined;
          const error = e instanceof ZodError ? 'not a valid catalog file' : (e as Error).message;
          results.push({ file, error, ...(issues ? { issues } : {}) });
          if (!values.json) {
            io.err(`${file}: ${error}`);
            for (const i of issues ?? []) io.err(`  ${i}`);
          }
        }
      }
    });
    if (values.json) io.out(JSON.stringify(results, null, 2));
    return results.some((r) => r.error) ? 1 : 0;
  },
};
