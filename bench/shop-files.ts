/**
 * Writes SHOPS generated catalog files of PRODUCTS products each (`shop_0001.json` …) into DIR, for
 * measuring how a platform of many shops loads (`ucp-storefront seed DIR`, docs/benchmarks.md;
 * BENCH_ONLY=load in bench/run.ts). Each file is its own shop with its own domain and ids.
 *
 *   npx tsx bench/shop-files.ts DIR SHOPS PRODUCTS
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeCatalog } from '../server/seed/generate.ts';

export function writeShopFiles(dir: string, shops: number, products: number): string[] {
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (let i = 1; i <= shops; i++) {
    const id = `shop_${String(i).padStart(4, '0')}`;
    const file = join(dir, `${id}.json`);
    const fd = openSync(file, 'w');
    try {
      writeCatalog(fd, { products, shopId: id, domain: `${id.replace('_', '-')}.localhost`, name: `Shop ${i}`, seed: i, validate: false });
    } finally {
      closeSync(fd);
    }
    files.push(file);
  }
  return files;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [dir, shops, products] = process.argv.slice(2);
  if (!dir || !(Number(shops) > 0) || !(Number(products) > 0)) {
    console.error('usage: npx tsx bench/shop-files.ts DIR SHOPS PRODUCTS');
    process.exit(2);
  }
  writeShopFiles(dir, Number(shops), Number(products));
}
