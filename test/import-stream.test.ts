/**
 * An import writes as it reads (server/core/catalog/catalog-sync.ts, docs/catalog-import.md
 * "Memory"): records are let go once their batch is written, so memory stays flat however long the
 * file, and the whole run is still one transaction: a file that breaks off after thousands of
 * products, or a refusal only its end shows, leaves the shop as it was. Variants may move between
 * products whichever batch each is in. The Google adapter imports a group once the feed has moved
 * past it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fileSources, runImport } from '../server/import/run.ts';
import { syncCatalog } from '../server/core/catalog/catalog-sync.ts';
import { ShopSettings, type StoredProduct } from '../server/formats/catalog-format.ts';
import { importContext, readAll } from '../server/import/adapter.ts';
import { google, googleTuning } from '../server/import/google.ts';
import { ImportReport } from '../server/import/report.ts';
import { startTestServer, type TestServer } from './support/server.ts';

let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'ucp-import-stream-'));
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const HEAD = 'Handle,Title,Body (HTML),Option1 Name,Option1 Value,Variant SKU,Variant Price,Status\n';
/** A Shopify CSV of `n` products with two sizes each; `price(i)` in dollars; `extra` rows appended as written. */
function shopifyFile(name: string, n: number, price: (i: number) => number = () => 20, extra = ''): string {
  const rows: string[] = [HEAD];
  for (let i = 0; i < n; i++) {
    const h = `p${String(i).padStart(5, '0')}`;
    rows.push(`${h},Product ${i},Plain text,Size,S,${h}-s,${price(i)}.00,active\n`, `${h},,,,M,${h}-m,${price(i)}.00,\n`);
  }
  const file = join(dir, name);
  writeFileSync(file, rows.join('') + extra);
  return file;
}
const shop = (id: string) => ({ id, domain: `${id.replaceAll('_', '-')}.localhost`, currency: 'USD' });
const count = async (shopId: string) => Number((await server.db.selectFrom('products').select((e) => e.fn.countAll().as('n')).where('shop_id', '=', shopId).executeTakeFirstOrThrow()).n);
const priceOf = async (shopId: string, id: string) => {
  const row = await server.db.selectFrom('products').select('price_min').where('shop_id', '=', shopId).where('id', '=', id).executeTakeFirst();
  return row ? Number(row.price_min) : undefined;
};

describe('an import writes as it reads, in one transaction', () => {
  it('records are let go once their batch is written: a long run holds only the batches in flight', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const early: Array<WeakRef<StoredProduct>> = [];
    let aliveLate = -1;
    const settings = ShopSettings.parse({ currency: 'USD', default_language: 'en', languages: ['en'] });
    async function* records(): AsyncGenerator<StoredProduct> {
      for (let i = 0; i < 4000; i++) {
        if (i === 3500) {
          // Three thousand records later (six batches written): the first 500 are garbage.
          gc();
          await new Promise((r) => setTimeout(r, 0));
          gc();
          aliveLate = early.filter((w) => w.deref()).length;
        }
        const p: StoredProduct = { id: `r${i}`, handle: `r${i}`, title: `Record ${i}`, description: 'text', categories: [], media: [], source: 'stream', variants: [{ id: `r${i}-v`, options: {}, price: 100 }] };
        if (i < 500) early.push(new WeakRef(p));
        yield p;
      }
    }
    const s = { id: 'shop_stream_gc', domain: 'stream-gc.localhost', name: 'Stream', protocol_enabled: true, settings };
    const counts = await syncCatalog(server.db, { shop: () => s, products: records(), sources: () => ['stream'] });
    expect(counts).toMatchObject({ created: 4000, shopCreated: true });
    expect(aliveLate).toBe(0);
    expect(await count('shop_stream_gc')).toBe(4000);
  });

  it('a file that breaks off after more than a thousand products leaves the shop as it was', async () => {
    const id = 'shop_stream_cut';
    expect((await runImport(server.db, { sources: fileSources([shopifyFile('a.csv', 1200)]), shop: shop(id) })).products.created).toBe(1200);
    // The same products at a new price, then a quoted field that never closes, after 1,200 products (three batches).
    const cut = shopifyFile('cut.csv', 1200, () => 30, 'p99999,"Never closed,x,Size,S,x,1.00,active\n');
    await expect(runImport(server.db, { sources: fileSources([cut]), shop: shop(id) })).rejects.toThrow(/line 2402/);
    expect(await priceOf(id, 'p00000')).toBe(2000);
    expect(await priceOf(id, 'p01199')).toBe(2000);
    expect(await count(id)).toBe(1200);
    // A new shop cut the same way is not created at all.
    await expect(runImport(server.db, { sources: fileSources([cut]), shop: shop('shop_stream_cut_new') })).rejects.toThrow(/line 2402/);
    expect(await server.db.selectFrom('shops').select('id').where('id', '=', 'shop_stream_cut_new').executeTakeFirst()).toBeUndefined();
  });

  it("a refusal only the file's end shows (its shop's currency) comes after writes began, and nothing stays", async () => {
    const id = 'shop_stream_eur';
    await runImport(server.db, { sources: fileSources([shopifyFile('eur.csv', 1500)]), shop: { ...shop(id), currency: 'EUR' } });
    // 1,500 products at a new price (written as they are read), then our own catalog file whose shop's prices are in USD.
    const file = join(dir, 'usd-shop.json');
    writeFileSync(file, JSON.stringify({ shop: { id, domain: 'x.localhost', name: 'X', settings: { currency: 'USD' } }, products: [{ id: 'extra', handle: 'extra', title: 'Extra', description: 'x', categories: [], media: [], variants: [{ id: 'extra-v', options: {}, price: 1 }] }] }));
    await expect(runImport(server.db, { sources: fileSources([shopifyFile('eur2.csv', 1500, () => 30), file]), shop: { id } })).rejects.toThrow(/in USD, shop shop_stream_eur's in EUR/);
    expect(await priceOf(id, 'p00000')).toBe(2000);
  });

  it('a variant moves to a product written in an earlier batch than the product that held it', async () => {
    const id = 'shop_stream_move';
    await runImport(server.db, { sources: fileSources([shopifyFile('m1.csv', 1500)]), shop: shop(id) });
    // p01400's size M (a later batch) becomes p00001's size L (the first batch).
    const moved = readFileSync(shopifyFile('m2.csv', 1500), 'utf8').replace('p00001,,,,M,p00001-m,20.00,\n', 'p00001,,,,M,p00001-m,20.00,\np00001,,,,L,p01400-m,20.00,\n').replace('p01400,,,,M,p01400-m,20.00,\n', '');
    writeFileSync(join(dir, 'm2.csv'), moved);
    const r = await runImport(server.db, { sources: fileSources([join(dir, 'm2.csv')]), shop: shop(id) });
    expect(r.products).toEqual({ created: 0, updated: 2, unchanged: 1498, unavailable: 0 });
    const owner = await server.db.selectFrom('variants').select('product_id').where('shop_id', '=', id).where('id', '=', 'p01400-m').executeTakeFirst();
    expect(owner?.product_id).toBe('p00001');
    const cart = await server.req(`${id.replaceAll('_', '-')}.localhost`, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'p01400-m' }, quantity: 1 }] });
    expect(cart.status).toBe(201);
  });

  it('a variant taken from a product the run does not list is refused in words; nothing is written', async () => {
    const id = 'shop_stream_taken';
    await runImport(server.db, { sources: fileSources([shopifyFile('t1.csv', 1200)]), shop: shop(id) });
    // --partial: p01100 is not listed, and p00000 claims its variant.
    const file = join(dir, 't2.csv');
    writeFileSync(file, readFileSync(shopifyFile('t2.csv', 1100, () => 25), 'utf8').replace('p00000,,,,M,p00000-m,25.00,\n', 'p00000,,,,M,p00000-m,25.00,\np00000,,,,L,p01100-m,25.00,\n'));
    const err = await runImport(server.db, { sources: fileSources([file]), shop: shop(id), partial: true }).catch((e: unknown) => e);
    expect(err).toMatchObject({ message: 'a variant id belongs to another product', issues: [{ code: 'variant_id_taken', content: expect.stringMatching(/^variant id p01100-m of product p00000 already belongs to product p01100 of shop shop_stream_taken, which this file does not list/) }] });
    expect(await priceOf(id, 'p00000')).toBe(2000);
  });
});

describe('the Google adapter imports a group once the feed has moved past it', () => {
  const held = googleTuning.heldItems;
  afterEach(() => {
    googleTuning.heldItems = held;
  });
  const item = (id: string, group: string, size: string) => `<item><g:id>${id}</g:id><title>Tee ${size}</title><g:price>10.00 USD</g:price><g:item_group_id>${group}</g:item_group_id><g:size>${size}</g:size></item>\n`;
  const feed = (items: string[]) => [`<?xml version="1.0"?><rss xmlns:g="http://base.google.com/ns/1.0" version="2.0"><channel><title>S</title>\n`, ...items, '</channel></rss>\n'];

  it('a group is yielded before the feed ends; a group whose items are apart within the limit is one product', async () => {
    googleTuning.heldItems = 3;
    const items = [item('a1', 'A', 'S'), item('b1', 'B', 'S'), item('a2', 'A', 'M'), item('c1', 'C', 'S'), item('c2', 'C', 'M'), item('d1', 'D', 'S'), item('d2', 'D', 'M')];
    const order: string[] = [];
    async function* chunks() {
      for (const c of feed(items)) {
        order.push(`chunk`);
        yield c;
      }
    }
    const report = new ImportReport();
    const ctx = importContext({ currency: 'USD', language: 'en', report });
    const products: StoredProduct[] = [];
    for await (const p of google.read(chunks(), ctx)) {
      order.push(p.id);
      products.push(p);
    }
    expect(products.map((p) => [p.id, p.variants.length])).toEqual([['B', 1], ['A', 2], ['C', 2], ['D', 2]]);
    // B and A were imported while items were still to come.
    expect(order.indexOf('A')).toBeLessThan(order.lastIndexOf('chunk'));
    expect(report.skipped).toEqual([]);
  });

  it('an item of a group already imported is skipped, saying to keep a group together', async () => {
    googleTuning.heldItems = 2;
    const { length } = await readAll(google, feed([item('a1', 'A', 'S'), item('b1', 'B', 'S'), item('c1', 'C', 'S'), item('a2', 'A', 'M')]).join(''), importContext({ currency: 'USD', language: 'en', report: new ImportReport() }));
    expect(length).toBe(3);
    const report = new ImportReport();
    await readAll(google, feed([item('a1', 'A', 'S'), item('b1', 'B', 'S'), item('c1', 'C', 'S'), item('a2', 'A', 'M')]).join(''), importContext({ currency: 'USD', language: 'en', report }));
    expect(report.skipped).toEqual([{ ref: 'id a2', reason: expect.stringMatching(/item_group_id A came more than 2 items earlier .* list a group's items together/) }]);
  });
});

describe('the import command runs with a tighter old generation than V8 chooses (bin/ucp-storefront.mjs)', () => {
  // The flags the bin sets, recorded by a preload that wraps node:v8's setFlagsFromString.
  const recorder = join(dir, 'record-v8-flags.mjs');
  writeFileSync(recorder, `import v8 from 'node:v8';\nimport { syncBuiltinESMExports } from 'node:module';\nconst set = v8.setFlagsFromString;\nv8.setFlagsFromString = (f) => { process.stderr.write('v8 flag ' + f + '\\n'); set(f); };\nsyncBuiltinESMExports();\n`);
  const flagsOf = (nodeArgs: string[], args: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      const c = spawn(process.execPath, [...nodeArgs, '--import', pathToFileURL(recorder).href, 'bin/ucp-storefront.mjs', ...args, '--help'], { cwd: join(import.meta.dirname, '..') });
      let err = '';
      c.stderr.on('data', (d) => (err += d));
      c.once('error', reject);
      c.once('exit', (code) => (code === 0 ? resolve([...err.matchAll(/^v8 flag (.*)$/gm)].map((m) => m[1])) : reject(new Error(`exit ${code}: ${err}`))));
    });

  it('import: --heap-growing-percent=50; start and seed: V8 defaults; a node --heap-growing-percent given wins', async () => {
    expect(await flagsOf([], ['import'])).toEqual(['--heap-growing-percent=50']);
    expect(await flagsOf([], ['start'])).toEqual([]);
    expect(await flagsOf([], ['seed'])).toEqual([]);
    expect(await flagsOf(['--heap-growing-percent=80'], ['import'])).toEqual([]);
  }, 60_000);
});
