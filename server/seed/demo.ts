/** The demo data: the shops under server/seed/data, loaded when the database is empty. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DB } from '../db/index.ts';
import { loadCatalogs, type CatalogSource, type LoadHooks } from '../core/catalog/catalog-load.ts';
import { fileSource } from './catalog-files.ts';

export const DEMO_DATA_DIR = fileURLToPath(new URL('./data/', import.meta.url));

export async function isEmpty(db: DB): Promise<boolean> {
  const row = await db.selectFrom('shops').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n) === 0;
}

/** The demo shop files, in name order. */
export function demoSources(): CatalogSource[] {
  return readdirSync(DEMO_DATA_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => fileSource(join(DEMO_DATA_DIR, f)));
}

/**
 * Loads every demo shop file in one run. Returns the loaded shop ids; a file that fails (a broken
 * checkout) throws. `fence` (LoadHooks.fence): the first-run seed's guard against a second seeder.
 */
export async function seedDemo(db: DB, fence?: LoadHooks['fence']): Promise<string[]> {
  const results = await loadCatalogs(db, demoSources(), { fence });
  const failed = results.find((r) => r.error);
  if (failed) throw new Error(`${failed.file}: ${failed.error}${(failed.issues ?? []).map((i) => `\n  ${i.path}: ${i.content}`).join('')}`);
  return results.map((r) => r.shop!);
}
