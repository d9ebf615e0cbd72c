/** `npm run seed -- FILE [FILE...]`: loads catalog files (docs/catalog-format.md) into the database. */
import { readFileSync } from 'node:fs';
import { ZodError } from 'zod';
import { loadConfig } from '../config.ts';
import { migrateToLatest } from '../db/index.ts';
import { openForCli } from './open.ts';
import { loadCatalogFile } from '../core/catalog-store.ts';

const files = process.argv.slice(2);
if (!files.length) {
  console.error('usage: npm run seed -- FILE [FILE...]   (see docs/catalog-format.md)');
  process.exit(2);
}
const db = await openForCli(loadConfig());
await migrateToLatest(db);
let failed = false;
for (const file of files) {
  try {
    const { shopId, products } = await loadCatalogFile(db, JSON.parse(readFileSync(file, 'utf8')));
    console.log(`${file}: loaded ${products} products into shop ${shopId}`);
  } catch (e) {
    failed = true;
    if (e instanceof ZodError) {
      console.error(`${file}: not a valid catalog file`);
      for (const i of e.issues.slice(0, 20)) console.error(`  ${i.path.join('.')}: ${i.message}`);
    } else console.error(`${file}: ${(e as Error).message}`);
  }
}
await db.destroy();
process.exit(failed ? 1 : 0);
