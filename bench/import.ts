/**
 * `BENCH_ONLY=import npm run bench` (docs/benchmarks.md "Import"): the same generated catalog as
 * our JSON (loaded by `seed`, the baseline), as a Shopify product CSV and as a Google Merchant
 * Center RSS feed (each through `ucp-storefront import`), each in a fresh process on a fresh
 * embedded database: products/s and each process's peak RSS, at 10,000 and 100,000 products
 * (BENCH_IMPORT_PRODUCTS). Ratios to the baseline of the same run are what we compare.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { generateProduct } from '../server/seed/generate.ts';
import type { StoredProduct } from '../server/formats/catalog-format.ts';

const en = (v: unknown) => (typeof v === 'string' ? v : (v as Record<string, string>).en);
const money = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
const csv = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
const xml = (v: string) => v.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const IMAGE = 'https://cdn.example.com/p.jpg';

/** A generated product in what all three files can say: English texts, options, prices, stock, one image. */
function productOf(i: number): StoredProduct {
  const g = generateProduct(i);
  return {
    id: g.handle,
    handle: g.handle,
    title: en(g.title),
    description: en(g.description),
    categories: g.categories,
    media: [{ type: 'image', url: IMAGE }],
    ...(g.options ? { options: g.options.map((o) => ({ name: o.name, label: en(o.label), values: o.values.map((v) => ({ id: v.id, label: en(v.label) })) })) } : {}),
    variants: g.variants.map((v) => ({ id: v.sku!.toLowerCase(), sku: v.sku!.toLowerCase(), options: v.options, price: v.price, ...(v.inventory !== undefined ? { inventory: v.inventory } : {}) })),
  };
}

function writeFiles(dir: string, n: number) {
  const files = { json: join(dir, 'catalog.json'), shopify: join(dir, 'products.csv'), google: join(dir, 'feed.xml') };
  const fds = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, openSync(f, 'w')])) as Record<keyof typeof files, number>;
  const buffers: Record<keyof typeof files, string[]> = { json: [], shopify: [], google: [] };
  const out = (k: keyof typeof files, s: string) => {
    buffers[k].push(s);
    if (buffers[k].length > 2000) writeSync(fds[k], buffers[k].splice(0).join(''));
  };
  out('json', `{"shop":{"id":"shop_bench","domain":"bench.localhost","name":"Bench"},"products":[\n`);
  out('shopify', 'Handle,Title,Body (HTML),Vendor,Type,Tags,Published,Option1 Name,Option1 Value,Option2 Name,Option2 Value,Variant SKU,Variant Inventory Tracker,Variant Inventory Qty,Variant Inventory Policy,Variant Price,Image Src,Image Position,Status\n');
  out('google', '<?xml version="1.0"?>\n<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel><title>Bench</title><link>https://bench.example.com</link>\n');
  for (let i = 0; i < n; i++) {
    const p = productOf(i);
    out('json', `${i ? ',\n' : ''}${JSON.stringify(p)}`);
    const opts = p.options ?? [];
    p.variants.forEach((v, k) => {
      const values = opts.map((o) => en(o.values.find((x) => x.id === v.options[o.name])!.label));
      const first = k === 0;
      const row = [p.handle, first ? (p.title as string) : '', first ? (p.description as string) : '', first ? 'Bench' : '', first ? p.categories[0] : '', '', first ? 'TRUE' : '',
        opts[0] ? (first ? (opts[0].label as string) : '') : 'Title', values[0] ?? 'Default Title', opts[1] && first ? (opts[1].label as string) : '', values[1] ?? '',
        v.sku!, v.inventory !== undefined ? 'shopify' : '', v.inventory !== undefined ? String(v.inventory) : '', 'deny', money(v.price), first ? IMAGE : '', first ? '1' : '', first ? 'active' : ''];
      out('shopify', `${row.map(csv).join(',')}\n`);
      const attrs = opts.map((o, j) => `<g:${['color', 'size'][j] ?? 'material'}>${xml(values[j])}</g:${['color', 'size'][j] ?? 'material'}>`).join('');
      out('google', `<item><g:id>${v.sku}</g:id><title>${xml(p.title as string)}${values.length ? ` - ${xml(values.join(' / '))}` : ''}</title><description>${xml(p.description as string)}</description><link>https://bench.example.com/p/${p.handle}</link><g:image_link>${IMAGE}</g:image_link><g:price>${money(v.price)} USD</g:price><g:availability>in_stock</g:availability>${p.variants.length > 1 ? `<g:item_group_id>${p.handle}</g:item_group_id>` : ''}${attrs}<g:product_type>${p.categories[0]}</g:product_type></item>\n`);
    });
  }
  out('json', '\n]}\n');
  out('google', '</channel></rss>\n');
  for (const k of Object.keys(files) as Array<keyof typeof files>) {
    writeSync(fds[k], buffers[k].join(''));
    closeSync(fds[k]);
  }
  return files;
}

/** One command in a fresh process on a fresh data directory: seconds and peak RSS (MB, /usr/bin/time). */
function timed(args: string[], dir: string): { seconds: number; rssMb: number; out: string } {
  const data = mkdtempSync(join(dir, 'data-'));
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'maxrss %M', process.execPath, resolve('bin/ucp-storefront.mjs'), ...args], { env: { ...process.env, DATA_DIR: data, NODE_ENV: 'development', DATABASE_URL: '' }, encoding: 'utf8', maxBuffer: 1 << 26 });
  const seconds = (performance.now() - t0) / 1000;
  rmSync(data, { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr.slice(-2000)}`);
  const rss = /maxrss (\d+)/.exec(r.stderr);
  return { seconds, rssMb: rss ? Number(rss[1]) / 1024 : NaN, out: r.stdout };
}

export async function benchImport(): Promise<void> {
  const sizes = (process.env.BENCH_IMPORT_PRODUCTS ?? '10000,100000').split(',').map(Number);
  const dir = mkdtempSync(join(tmpdir(), 'ucp-bench-import-'));
  try {
    const rows: string[][] = [];
    for (const n of sizes) {
      const files = writeFiles(dir, n);
      const seed = timed(['seed', files.json], dir);
      const shopify = timed(['import', '--shop', 'shop_bench', '--domain', 'bench.localhost', '--json', files.shopify], dir);
      const google = timed(['import', '--shop', 'shop_bench', '--domain', 'bench.localhost', '--json', files.google], dir);
      for (const [name, t] of [['seed JSON (baseline)', seed], ['import Shopify CSV', shopify], ['import Google RSS', google]] as const) {
        const created = name.startsWith('import') ? JSON.parse(t.out).products.created : n;
        if (created !== n) throw new Error(`${name}: ${created} products of ${n}`);
        rows.push([String(n), name, t.seconds.toFixed(1), String(Math.round(n / t.seconds)), `${Math.round((seed.seconds / t.seconds) * 100)} %`, t.rssMb.toFixed(0)]);
      }
    }
    const head = ['products', 'run', 's', 'products/s', 'of baseline', 'peak RSS MB'];
    console.log(`\nImport (${new Date().toISOString()})`);
    for (const r of [head, ...rows]) console.log(r.map((c, i) => (i === 1 ? c.padEnd(22) : c.padStart(11))).join(' '));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
