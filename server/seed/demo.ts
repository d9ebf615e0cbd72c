/** The demo data: the shops under server/seed/data, loaded when the database is empty. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DB } from '../db/index.ts';
import { loadCatalogFile } from '../core/catalog-store.ts';

export const DEMO_DATA_DIR = fileURLToPath(new URL('./data/', import.meta.url));

export async function isEmpty(db: DB): Promise<boolean> {
  const row = await db.selectFrom('shops').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n) === 0;
}

/** Loads every demo shop file. Returns the loaded shop ids. */
export async function seedDemo(db: DB): Promise<string[]> {
  const ids: string[] = [];
  for (const name of readdirSync(DEMO_DATA_DIR).filter((f) => f.endsWith('.json')).sort()) {
    const { shopId } = await loadCatalogFile(db, JSON.parse(readFileSync(join(DEMO_DATA_DIR, name), 'utf8')));
    ids.push(shopId);
  }
  return ids;
}
