/**
 * A real shop moves in (docs/catalog-import.md): WooCommerce's own sample export becomes a live
 * shop that agents search and buy from, and importing again is a sync. Runs the import core
 * (server/import/run.ts, the code the CLI and the running server's control route both call) on a
 * real server's database, then asks the server over HTTP, on both databases.
 */
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSources, runImport, ImportRefused, type ImportOptions } from '../server/import/run.ts';
import { ImportParseError } from '../server/import/adapter.ts';
import { CatalogFileError } from '../server/core/catalog/catalog-check.ts';
import { SHRINK_GUARD } from '../server/core/catalog/catalog-sync.ts';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from './support/server.ts';

const WOO = 'test/fixtures/import/woocommerce/sample_products.csv';
const HOST = 'woo-import.localhost';
const SITE = 'https://woo.example.com';
let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'ucp-import-'));

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const shop = { id: 'shop_woo_import', domain: HOST, storefrontUrl: SITE, currency: 'USD' };
const run = (files: string[], more: Partial<ImportOptions> = {}) => runImport(server.db, { sources: fileSources(files), shop, ...more });
const search = async (query: string) => (await server.req(HOST, 'POST', '/api/ucp/catalog/search', { query, limit: 50 })).body.products as Array<{ id: string; url: string; variants: Array<{ id: string }> }>;

/** The sample with rows edited: `drop` ids removed, `edit` applied to the rest (column name -> value). */
function variantOf(name: string, drop: string[], edit: (row: Record<string, string>) => void = () => {}): string {
  const rows = parse(readFileSync(WOO, 'utf8'), { bom: true }) as string[][];
  const [head, ...body] = rows;
  const out = body.filter((r) => !drop.includes(r[0])).map((r) => {
    const row = Object.fromEntries(head.map((h, i) => [h, r[i]]));
    edit(row);
    return head.map((h) => row[h]);
  });
  const quote = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  const file = join(dir, name);
  writeFileSync(file, [head, ...out].map((r) => r.map(quote).join(',')).join('\r\n'));
  return file;
}

describe('a WooCommerce export becomes a live shop', () => {
  it('creates the shop with its products, the grouped and external products reported, not sold', async () => {
    const r = await run([WOO]);
    expect(r).toMatchObject({ shop: shop.id, format: 'woocommerce', shop_created: true, products: { created: 16, updated: 0, unchanged: 0, unavailable: 0 }, variants: 27 });
    expect(r.skipped.map((s) => s.ref)).toEqual([expect.stringContaining('ID 87'), expect.stringContaining('ID 89')]);
    expect(r.dropped_fields['Tax status']).toBeGreaterThan(0);
    const discovery = await server.req(HOST, 'GET', '/.well-known/ucp');
    expect(discovery.status).toBe(200);
  });

  it("links agents to the shop's own product pages, answers the HTML description beside the plain text, sells a variation", async () => {
    const hits = await search('hoodie');
    expect(hits.map((p) => p.id).sort()).toEqual(['45', '46', '66']); // 64 is hidden in the export
    expect(hits.find((p) => p.id === '45')!.url).toBe(`${SITE}/?p=45`);
    const product = (await server.req(HOST, 'POST', '/api/ucp/catalog/product', { id: '44' })).body.product;
    expect(product.description.plain).not.toMatch(/<[a-z]/);
    expect(product.title).toBe('V-Neck T-Shirt');
    const cart = await server.req(HOST, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: '90' }, quantity: 2 }] });
    expect(cart.status).toBe(201);
    expect(cart.body.totals.find((t: { type: string }) => t.type === 'total').amount).toBe(9000);
  });

  it("the MCP Apps view may load images from the hosts the shop's catalog uses, and from no other", async () => {
    const read = await server.req(HOST, 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'ui://ucp/shop.html' } }, { accept: 'application/json, text/event-stream' });
    expect(read.body.result.contents[0]._meta.ui.csp.resourceDomains).toEqual([`http://${HOST}:${server.port}`, 'https://woocommercecore.mystagingwebsite.com']);
  });

  it('a catalog-hidden product is not offered in search but is found by id and sold', async () => {
    expect((await search('pocket')).map((p) => p.id)).toEqual([]);
    const found = await server.req(HOST, 'POST', '/api/ucp/catalog/lookup', { ids: ['64'] });
    expect(found.body.products.map((p: { id: string }) => p.id)).toEqual(['64']);
    const cart = await server.req(HOST, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: found.body.products[0].variants[0].id }, quantity: 1 }] });
    expect(cart.status).toBe(201);
  });
});

describe('importing again is a sync', () => {
  it('the same export again changes nothing and writes nothing', async () => {
    const before = await server.db.selectFrom('products').select(['id', 'updated_at']).where('shop_id', '=', shop.id).orderBy('id').execute();
    const r = await run([WOO]);
    expect(r).toMatchObject({ unchanged: true, products: { created: 0, updated: 0, unchanged: 16, unavailable: 0 } });
    const after = await server.db.selectFrom('products').select(['id', 'updated_at']).where('shop_id', '=', shop.id).orderBy('id').execute();
    expect(after).toEqual(before);
  });

  it('a new price updates in place; a product the export no longer lists becomes unavailable, not deleted', async () => {
    const cart = await server.req(HOST, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: '90' }, quantity: 1 }] });
    expect(cart.status).toBe(201);
    const file = variantOf('woo-next.csv', ['45', '79', '80', '81', '90'], (row) => {
      if (row.ID === '58') row['Regular price'] = '60';
    });
    const r = await run([file]);
    expect(r.products).toEqual({ created: 0, updated: 1, unchanged: 14, unavailable: 1 });
    expect((await search('hoodie')).map((p) => p.id).sort()).toEqual(['46', '66']);
    const belt = (await server.req(HOST, 'POST', '/api/ucp/catalog/product', { id: '58' })).body.product;
    expect([belt.price_range.min.amount, belt.list_price_range.min.amount]).toEqual([5500, 6000]); // on sale at 55: the regular price is the list price
    // Gone from the source: still readable by id, every variant discontinued.
    const hoodie = (await server.req(HOST, 'POST', '/api/ucp/catalog/product', { id: '45' })).body.product;
    expect(hoodie.variants.map((v: { availability: { status: string } }) => v.availability.status)).toEqual(hoodie.variants.map(() => 'discontinued'));
    // The cart that holds it keeps reading, with a message; a new cart cannot take it.
    const read = await server.req(HOST, 'GET', `/api/ucp/carts/${cart.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.messages).toEqual([expect.objectContaining({ code: 'out_of_stock', path: '$.line_items[0]' })]);
    const fresh = await server.req(HOST, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: '90' }, quantity: 1 }] });
    expect(fresh.body.ucp.status).toBe('error');
    expect(fresh.body.messages[0].content).toBe("Variant '90' is no longer sold.");
  });

  it('the product listed again comes back; --partial makes nothing unavailable', async () => {
    const back = await run([WOO]);
    expect(back.products).toMatchObject({ created: 0, updated: 2, unavailable: 0 });
    expect((await search('hoodie')).map((p) => p.id).sort()).toEqual(['45', '46', '66']);
    const partial = await run([variantOf('woo-few.csv', ['45', '46', '79', '80', '81', '90'])], { partial: true });
    expect(partial.products.unavailable).toBe(0);
    expect((await search('hoodie')).map((p) => p.id).sort()).toEqual(['45', '46', '66']);
  });
});

describe('a file that lists much less than its source had (SHRINK_GUARD)', () => {
  const shrink = { id: 'shop_woo_shrink', domain: 'woo-shrink.localhost', currency: 'USD' };
  const available = async () => (await server.db.selectFrom('products').select('id').where('shop_id', '=', shrink.id).where(sql<boolean>`doc->>'status' is distinct from 'unavailable'`).execute()).length;

  it('is refused, writing nothing, unless --allow-shrink says the shop really stopped selling the rest', async () => {
    expect((await runImport(server.db, { sources: fileSources([WOO]), shop: shrink })).products.created).toBe(16);
    // A download cut at a line break: the first three products' rows and nothing after.
    const rows = parse(readFileSync(WOO, 'utf8'), { bom: true }) as string[][];
    const kept = new Set(rows.slice(1).map((r) => r[0]).slice(0, 3));
    const cut = variantOf('woo-cut-at-a-line.csv', rows.slice(1).map((r) => r[0]).filter((id) => !kept.has(id)));
    const refused = await runImport(server.db, { sources: fileSources([cut]), shop: shrink }).catch((e) => e);
    expect(refused).toBeInstanceOf(CatalogFileError);
    expect(refused.message).toMatch(/^this would make 1\d of shop shop_woo_shrink's products unavailable and list only \d: a file cut short .* Nothing was written\. .*--allow-shrink/);
    expect(await available()).toBe(16);
    // Fewer than SHRINK_GUARD leaving, or no more than it lists: an ordinary re-import.
    const few = await runImport(server.db, { sources: fileSources([variantOf('woo-minus-two.csv', ['45', '90'])]), shop: shrink });
    expect(few.products.unavailable).toBeGreaterThan(0);
    expect(few.products.unavailable).toBeLessThan(SHRINK_GUARD);
    const allowed = await runImport(server.db, { sources: fileSources([cut]), shop: shrink, allowShrink: true });
    expect(allowed.products.unavailable).toBeGreaterThanOrEqual(SHRINK_GUARD);
    expect(await available()).toBeLessThan(SHRINK_GUARD);
  });
});

describe('bad input writes nothing', () => {
  const other = { id: 'shop_never', domain: 'never.localhost', currency: 'USD' };
  const none = async () => (await server.db.selectFrom('shops').select('id').where('id', '=', other.id).execute()).length;

  it('--dry-run reports what would happen and writes nothing', async () => {
    const r = await runImport(server.db, { sources: fileSources([WOO]), shop: other, dryRun: true });
    expect(r).toMatchObject({ dry_run: true, shop_created: true, products: { created: 16 } });
    expect(await none()).toBe(0);
  });

  it('a file cut inside a quoted field names its line and leaves no shop', async () => {
    const cut = join(dir, 'cut.csv');
    const text = readFileSync(WOO, 'utf8');
    // Inside the third row's quoted short description.
    writeFileSync(cut, text.slice(0, text.indexOf('"This is a variable product.', text.indexOf('\n45,')) + 10));
    await expect(runImport(server.db, { sources: fileSources([cut]), shop: other })).rejects.toThrow(ImportParseError);
    await expect(runImport(server.db, { sources: fileSources([cut]), shop: other })).rejects.toThrow(/cut\.csv: line \d+/);
    expect(await none()).toBe(0);
  });

  it('bytes that are not UTF-8 are refused at their line', async () => {
    const latin = join(dir, 'latin1.csv');
    writeFileSync(latin, Buffer.concat([Buffer.from('ID,Type,SKU,Name\n1,simple,a,Mug\n2,simple,b,Caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    await expect(runImport(server.db, { sources: fileSources([latin]), shop: other })).rejects.toThrow(/line 3, column 15: not UTF-8/);
    expect(await none()).toBe(0);
  });

  it('a new shop needs a domain; an existing shop keeps its currency', async () => {
    await expect(runImport(server.db, { sources: fileSources([WOO]), shop: { id: 'shop_nodomain' } })).rejects.toThrow(ImportRefused);
    await expect(runImport(server.db, { sources: fileSources([WOO]), shop: { id: shop.id, currency: 'EUR' } })).rejects.toThrow(/prices are in USD/);
  });

  it('a forced format the file is not is refused naming what it lacks', async () => {
    await expect(runImport(server.db, { sources: fileSources([WOO]), shop: other, format: 'shopify' })).rejects.toThrow(/not a shopify file: no column Handle.*looks like a woocommerce file/);
  });
});
