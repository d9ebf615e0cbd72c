/**
 * The WooCommerce product CSV adapter (server/import/woocommerce.ts, docs/import-formats/woocommerce.md):
 * WooCommerce's own sample file loads field by field, and small generated files prove each rule.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { woocommerce, wooList } from '../server/import/woocommerce.ts';
import { importContext, ImportParseError, readAll } from '../server/import/adapter.ts';
import { detectFormat } from '../server/import/detect.ts';
import { ImportReport } from '../server/import/report.ts';
import { StoredProduct } from '../server/formats/catalog-format.ts';

const SAMPLE = join(import.meta.dirname, 'fixtures/import/woocommerce/sample_products.csv');
// The import's reader hands adapters text with the BOM removed; WooCommerce's file has one.
const sample = () => readFileSync(SAMPLE, 'utf8').replace(/^\uFEFF/, '');

async function load(text: string | string[], options: { currency?: string; storefrontUrl?: string } = {}) {
  const report = new ImportReport();
  const ctx = importContext({ currency: options.currency ?? 'USD', language: 'en', storefrontUrl: options.storefrontUrl, report });
  const products = await readAll(woocommerce, text, ctx);
  for (const p of products) StoredProduct.parse(p);
  return { products, report };
}

const HEADER = [
  'ID', 'Type', 'SKU', 'GTIN, UPC, EAN, or ISBN', 'Name', 'Published', 'Is featured?', 'Visibility in catalog', 'Short description', 'Description',
  'Date sale price starts', 'Date sale price ends', 'Tax class', 'In stock?', 'Stock', 'Backorders allowed?', 'Sale price', 'Regular price', 'Categories', 'Tags',
  'Images', 'Parent', 'Grouped products', 'External URL', 'Brands', 'Position',
  'Attribute 1 name', 'Attribute 1 value(s)', 'Attribute 1 visible', 'Attribute 1 global', 'Attribute 2 name', 'Attribute 2 value(s)', 'Attribute 2 visible', 'Attribute 2 global', 'Meta: _custom',
];
type Cells = Partial<Record<string, string>>;
function csv(rows: Cells[]): string {
  const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  return [HEADER.map(quote).join(','), ...rows.map((r) => HEADER.map((n) => quote(r[n] ?? '')).join(','))].join('\n') + '\n';
}
const simple = (extra: Cells = {}): Cells => ({ ID: '10', Type: 'simple', SKU: 'mug', Name: 'Mug', Published: '1', 'Visibility in catalog': 'visible', 'In stock?': '1', 'Regular price': '12.00', ...extra });
const tee = (extra: Cells = {}): Cells => ({
  ID: '20', Type: 'variable', SKU: 'tee', Name: 'Tee', Published: '1', 'Visibility in catalog': 'visible',
  'Attribute 1 name': 'Size', 'Attribute 1 value(s)': 'Small, Medium, Large', 'Attribute 1 visible': '1', 'Attribute 1 global': '1',
  'Attribute 2 name': 'Color', 'Attribute 2 value(s)': 'Red, Blue', 'Attribute 2 visible': '1', 'Attribute 2 global': '1', ...extra,
});
const variation = (id: string, size: string, color: string, extra: Cells = {}): Cells => ({
  ID: id, Type: 'variation', SKU: `tee-${id}`, Name: `Tee - ${size}`, Published: '1', Parent: 'id:20', 'Regular price': '15.00', 'In stock?': '1',
  'Attribute 1 name': 'Size', 'Attribute 1 value(s)': size, 'Attribute 2 name': 'Color', 'Attribute 2 value(s)': color, ...extra,
});

describe('WooCommerce sample_products.csv (woocommerce/woocommerce sample-data)', () => {
  it('loads 16 products and 27 variants; the grouped and the external product are skipped', async () => {
    const { products, report } = await load(sample());
    expect(products).toHaveLength(16);
    expect(products.flatMap((p) => p.variants)).toHaveLength(27);
    expect(report.skipped).toEqual([
      { ref: 'ID 87 (SKU logo-collection)', reason: expect.stringMatching(/^grouped product: .*woo-hoodie-with-logo, woo-tshirt, woo-beanie/) },
      { ref: 'ID 89 (SKU wp-pennant)', reason: 'external product: sold at https://mercantile.wordpress.org/product/wordpress-pennant/' },
    ]);
    expect(report.warnings).toEqual([]);
  });

  it('V-Neck T-Shirt: variations with Size left empty ("any") become one variant per parent size', async () => {
    const { products } = await load(sample(), { storefrontUrl: 'https://shop.example.com' });
    const vneck = products.find((p) => p.id === '44')!;
    expect(vneck).toMatchObject({ handle: 'v-neck-t-shirt', title: 'V-Neck T-Shirt', categories: ['Clothing', 'Tshirts'], url: 'https://shop.example.com/?p=44' });
    expect(vneck.options?.map((o) => [o.name, o.values.map((v) => v.label)])).toEqual([
      ['color', ['Blue', 'Green', 'Red']],
      ['size', ['Large', 'Medium', 'Small']],
    ]);
    expect(vneck.media?.map((m) => m.url.split('/').at(-1))).toEqual(['vneck-tee-2.jpg', 'vnech-tee-green-1.jpg', 'vnech-tee-blue-1.jpg']);
    expect(vneck.variants.map((v) => [v.id, v.options, v.price])).toEqual([
      ['76-large', { color: 'red', size: 'large' }, 2000],
      ['76-medium', { color: 'red', size: 'medium' }, 2000],
      ['76-small', { color: 'red', size: 'small' }, 2000],
      ['77-large', { color: 'green', size: 'large' }, 2000],
      ['77-medium', { color: 'green', size: 'medium' }, 2000],
      ['77-small', { color: 'green', size: 'small' }, 2000],
      ['78-large', { color: 'blue', size: 'large' }, 1500],
      ['78-medium', { color: 'blue', size: 'medium' }, 1500],
      ['78-small', { color: 'blue', size: 'small' }, 1500],
    ]);
    expect(vneck.variants[0].media).toEqual([{ type: 'image', url: 'https://woocommercecore.mystagingwebsite.com/wp-content/uploads/2017/12/vneck-tee-2.jpg' }]);
  });

  it('Hoodie: variations in Position order, a variation found at the end of the file, the sale price as price', async () => {
    const { products } = await load(sample());
    const hoodie = products.find((p) => p.id === '45')!;
    expect(hoodie.variants.map((v) => [v.id, v.sku, v.options, v.price, v.list_price])).toEqual([
      ['90', 'woo-hoodie-blue-logo', { color: 'blue', logo: 'yes' }, 4500, undefined],
      ['79', 'woo-hoodie-red', { color: 'red', logo: 'no' }, 4200, 4500],
      ['80', 'woo-hoodie-green', { color: 'green', logo: 'no' }, 4500, undefined],
      ['81', 'woo-hoodie-blue', { color: 'blue', logo: 'no' }, 4500, undefined],
    ]);
  });

  it('simple products: one variant ID-default, a visible one-value attribute as an option; sale below regular; hidden visibility', async () => {
    const { products } = await load(sample());
    const beanie = products.find((p) => p.id === '48')!;
    expect(beanie).toMatchObject({ handle: 'beanie', title: 'Beanie', categories: ['Clothing', 'Accessories'], options: [{ name: 'color', label: 'Color', values: [{ id: 'red', label: 'Red' }] }] });
    expect(beanie.variants).toEqual([{ id: '48-default', sku: 'woo-beanie', options: { color: 'red' }, price: 1800, list_price: 2000 }]);
    expect(beanie.description).toMatch(/^Pellentesque habitant/);
    expect(products.find((p) => p.id === '64')!.status).toBe('hidden');
    expect(products.find((p) => p.id === '58')!.options).toBeUndefined();
  });

  it('downloadable/virtual simple products are carried like simple ones', async () => {
    const { products } = await load(sample());
    const album = products.find((p) => p.id === '73')!;
    expect(album).toMatchObject({ title: 'Album', categories: ['Music'] });
    expect(album.variants).toEqual([{ id: '73-default', sku: 'woo-album', options: {}, price: 1500 }]);
  });

  it('counts what it does not carry (Meta, dimensions, downloads, the unused short description)', async () => {
    const { report } = await load(sample());
    expect(report.droppedFields()).toMatchObject({ 'Meta: _wpcom_is_markdown': 16, 'Weight (lbs)': 14, 'Download 1 URL': 2, 'Short description': 16, 'Is featured?': 23 });
    expect(report.droppedFields()['Regular price']).toBeUndefined();
  });
});

describe('WooCommerce CSV rules', () => {
  it('a file cut inside a quoted field is an ImportParseError with the line', async () => {
    const err = await load(csv([simple()]) + '11,simple,cup,"Cup\n').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportParseError);
    expect((err as ImportParseError).line).toBe(3);
  });

  it("WooCommerce's sample cut inside its last row (a stopped download) is refused, not read with a cut price", async () => {
    const whole = sample();
    const last = whole.lastIndexOf('\n', whole.length - 3) + 1;
    const at = whole.indexOf(',45,', last) + ',4'.length; // variation 90's Regular price 45 → 4
    const err = await load(whole.slice(0, at)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportParseError);
    expect((err as ImportParseError).reason).toMatch(/cut short/);
    expect((err as ImportParseError).line).toBe(26);
  });

  it("WooCommerce's sample saved by a spreadsheet with semicolons is named as such, with what to do, whatever --format says", () => {
    const semicolons = sample()
      .split('\r\n')
      .map((line, i) => (i === 0 ? line.replaceAll(',', ';') : line))
      .join('\r\n');
    const detected = detectFormat(semicolons);
    expect(detected.format).toBeUndefined();
    expect(detected.why).toMatch(/^a semicolon-separated file \(header ID;Type;SKU;Name;…\)/);
    expect(detected.fix).toMatch(/CSV UTF-8 \(comma delimited\)/);
    expect(detectFormat(sample())).toEqual({ format: 'woocommerce' });
  });

  it('a file without ID, Type or Name is refused naming them', async () => {
    const err = await load('SKU,Name,Regular price\nmug,Mug,5\n').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportParseError);
    expect((err as Error).message).toContain('not a WooCommerce product CSV: no column ID, Type');
  });

  it('a negative price skips that row with its ref; the rest loads', async () => {
    const { products, report } = await load(csv([simple({ ID: '42', SKU: 'woo-hoodie', 'Regular price': '-5' }), simple({ ID: '43', SKU: 'ok', Name: 'Cup' }), simple({ ID: '44', SKU: 'none', Name: 'Free', 'Regular price': '' })]));
    expect(products.map((p) => p.id)).toEqual(['43']);
    expect(report.skipped).toEqual([
      { ref: 'ID 42 (SKU woo-hoodie)', reason: expect.stringMatching(/^Regular price: a negative amount/) },
      { ref: 'ID 44 (SKU none)', reason: expect.stringMatching(/^no price/) },
    ]);
  });

  it('a variation whose parent is not in the file is skipped', async () => {
    const { products, report } = await load(csv([simple(), variation('21', 'Small', 'Red', { Parent: 'id:999' }), variation('22', 'Small', 'Red', { Parent: 'missing-sku' })]));
    expect(products.map((p) => p.id)).toEqual(['10']);
    expect(report.skipped).toEqual([
      { ref: 'ID 21 (SKU tee-21)', reason: 'its parent id:999 is not a variable product in this file' },
      { ref: 'ID 22 (SKU tee-22)', reason: 'its parent missing-sku is not a variable product in this file' },
    ]);
  });

  it('a variation naming a value the parent does not list is skipped; its parent by SKU works', async () => {
    const { products, report } = await load(csv([tee(), variation('21', 'Small', 'Purple'), variation('22', 'Small', 'Red', { Parent: 'tee' })]));
    expect(products[0].variants.map((v) => v.id)).toEqual(['22']);
    expect(report.skipped).toEqual([{ ref: 'ID 21 (SKU tee-21)', reason: "Color Purple is not one of the parent's values (Red, Blue)" }]);
  });

  it('an empty ("any") attribute on a variation expands to each parent value; later duplicates are not repeated', async () => {
    const { products, report } = await load(csv([tee(), variation('21', '', 'Red'), variation('22', 'Medium', 'Red', { 'Regular price': '18' }), variation('23', 'Large', 'Blue')]));
    expect(products[0].variants.map((v) => [v.id, v.options, v.price])).toEqual([
      ['21-small', { size: 'small', color: 'red' }, 1500],
      ['21-medium', { size: 'medium', color: 'red' }, 1500],
      ['21-large', { size: 'large', color: 'red' }, 1500],
      ['23', { size: 'large', color: 'blue' }, 1500],
    ]);
    expect(report.skipped).toEqual([{ ref: 'ID 22 (SKU tee-22)', reason: 'the same option values as ID 21 (SKU tee-21)' }]);
  });

  it('option order is the parent attribute order, not alphabetical', async () => {
    const { products } = await load(csv([tee(), variation('21', 'Small', 'Red')]));
    expect(products[0].options?.map((o) => [o.name, o.label])).toEqual([
      ['size', 'Size'],
      ['color', 'Color'],
    ]);
    expect(products[0].variants[0].title).toBeUndefined();
  });

  it('a variable product without variations is skipped', async () => {
    const { products, report } = await load(csv([tee()]));
    expect(products).toEqual([]);
    expect(report.skipped).toEqual([{ ref: 'ID 20 (SKU tee)', reason: 'variable product without variations in the file' }]);
  });

  it('Published 0 or -1 is unavailable, Visibility hidden is hidden, catalog and search stay active', async () => {
    const rows = [['1', '1', 'visible'], ['2', '0', 'visible'], ['3', '-1', 'visible'], ['4', '1', 'hidden'], ['5', '1', 'catalog'], ['6', '1', 'search']];
    const { products } = await load(csv(rows.map(([ID, Published, v]) => simple({ ID, SKU: `s${ID}`, Name: `P${ID}`, Published, 'Visibility in catalog': v }))));
    expect(products.map((p) => p.status)).toEqual([undefined, 'unavailable', 'unavailable', 'hidden', undefined, undefined]);
  });

  it('JPY prices have no decimals and KWD prices three', async () => {
    expect((await load(csv([simple({ 'Regular price': '1500' })]), { currency: 'JPY' })).products[0].variants[0].price).toBe(1500);
    expect((await load(csv([simple({ 'Regular price': '2.125' })]), { currency: 'KWD' })).products[0].variants[0].price).toBe(2125);
    expect((await load(csv([simple({ 'Regular price': '2.1255' })]), { currency: 'KWD' })).report.skipped[0].reason).toMatch(/more decimals than KWD/);
  });

  it('sale price is the price and a higher regular price the list price; a regular price below the sale is no list price', async () => {
    const { products } = await load(csv([simple({ ID: '1', 'Sale price': '9', 'Regular price': '12' }), simple({ ID: '2', SKU: 'b', Name: 'B', 'Sale price': '14', 'Regular price': '12' })]));
    expect(products.map((p) => [p.variants[0].price, p.variants[0].list_price])).toEqual([
      [900, 1200],
      [1400, undefined],
    ]);
  });

  it('a sale that has ended (or not started) is ignored with a warning', async () => {
    const { products, report } = await load(
      csv([
        simple({ ID: '1', 'Sale price': '9', 'Date sale price ends': '2001-01-31 23:59:59' }),
        simple({ ID: '2', SKU: 'b', Name: 'B', 'Sale price': '9', 'Date sale price starts': '2999-01-01 00:00:00' }),
        simple({ ID: '3', SKU: 'c', Name: 'C', 'Sale price': '9', 'Date sale price ends': '2999-01-01 00:00:00' }),
      ]),
    );
    expect(products.map((p) => p.variants[0].price)).toEqual([1200, 1200, 900]);
    expect(report.warnings).toEqual([expect.stringMatching(/^ID 1 \(SKU mug\): the sale price 9 ended/), expect.stringMatching(/^ID 2 \(SKU b\): the sale price 9 starts/)]);
  });

  it('stock: Stock managed (never below 0), In stock? 0 out of stock, backorder, backorders allowed with none left, no Stock untracked', async () => {
    const cases: Cells[] = [
      { 'In stock?': '1' },
      { 'In stock?': '1', Stock: '7' },
      { 'In stock?': '0', Stock: '-2' },
      { 'In stock?': 'backorder' },
      { 'In stock?': '1', Stock: '0', 'Backorders allowed?': 'notify' },
      { 'In stock?': '1', Stock: '3', 'Backorders allowed?': '1' },
      { 'In stock?': '0' },
    ];
    const { products } = await load(csv(cases.map((c, i) => simple({ ID: `${i + 1}`, SKU: `s${i}`, Name: `P${i}`, ...c }))));
    expect(products.map((p) => [p.variants[0].inventory, p.variants[0].status])).toEqual([
      [undefined, undefined],
      [7, undefined],
      [0, 'out_of_stock'],
      [undefined, 'backorder'],
      [0, 'backorder'],
      [3, undefined],
      [undefined, 'out_of_stock'],
    ]);
  });

  it('a variation says its own stock; with the stock managed on the parent it is untracked', async () => {
    const { products } = await load(csv([tee({ Stock: '40' }), variation('21', 'Small', 'Red', { Stock: '3' }), variation('22', 'Small', 'Blue')]));
    expect(products[0].variants.map((v) => v.inventory)).toEqual([3, undefined]);
  });

  it('a disabled variation (Published 0) is carried as discontinued', async () => {
    const { products } = await load(csv([tee(), variation('21', 'Small', 'Red', { Published: '0', Stock: '3' })]));
    expect(products[0].variants[0].status).toBe('discontinued');
  });

  it('images in order, the first the main image; a variation Images is its media', async () => {
    const { products } = await load(csv([tee({ Images: 'https://x.example/a.jpg, https://x.example/b.jpg' }), variation('21', 'Small', 'Red', { Images: 'https://x.example/r.jpg' })]));
    expect(products[0].media?.map((m) => m.url)).toEqual(['https://x.example/a.jpg', 'https://x.example/b.jpg']);
    expect(products[0].variants[0].media).toEqual([{ type: 'image', url: 'https://x.example/r.jpg' }]);
  });

  it('HTML Description is description + description_html; only a short description is used; none uses the Name', async () => {
    const { products, report } = await load(
      csv([
        simple({ ID: '1', Description: '<p>Big <em>mug</em></p>', 'Short description': 'Short' }),
        simple({ ID: '2', SKU: 'b', Name: 'Cup', 'Short description': 'A cup.' }),
        simple({ ID: '3', SKU: 'c', Name: 'Bowl' }),
      ]),
    );
    expect(products.map((p) => [p.description, p.description_html])).toEqual([
      ['Big mug', '<p>Big <em>mug</em></p>'],
      ['A cup.', undefined],
      ['Bowl', undefined],
    ]);
    expect(report.droppedFields()['Short description']).toBe(1);
  });

  it('categories: each level of each path once, in order; tags and brand', async () => {
    const { products } = await load(csv([simple({ Categories: 'Clothing > Tshirts, Clothing > Hoodies, Sale', Tags: 'cotton, summer', Brands: 'Acme' })]));
    expect(products[0]).toMatchObject({ categories: ['Clothing', 'Tshirts', 'Hoodies', 'Sale'], tags: ['cotton', 'summer'], brand: 'Acme' });
  });

  it('lists keep an escaped comma inside an entry', () => {
    expect(wooList('Red\\, dark, Blue')).toEqual(['Red, dark', 'Blue']);
  });

  it('barcodes get their GS1 type; an Excel-mangled GTIN or SKU is warned and not stored', async () => {
    const { products, report } = await load(csv([simple({ ID: '1', 'GTIN, UPC, EAN, or ISBN': '012345678905' }), simple({ ID: '2', SKU: '7.1E+12', Name: 'B', 'GTIN, UPC, EAN, or ISBN': '3.65275E+11' })]));
    expect(products[0].variants[0].barcodes).toEqual([{ type: 'gtin12', value: '012345678905' }]);
    expect(products[1].variants[0]).toEqual({ id: '2-default', options: {}, price: 1200 });
    expect(report.warnings).toEqual([expect.stringMatching(/^ID 2 \(SKU 7\.1E\+12\): SKU/), expect.stringMatching(/^ID 2 \(SKU 7\.1E\+12\): GTIN, UPC, EAN, or ISBN 3\.65275E\+11/)]);
  });

  it('handles are the slugified Name, -ID added on a collision; no url without a storefront', async () => {
    const { products } = await load(csv([simple({ ID: '1', Name: 'Mug' }), simple({ ID: '2', SKU: 'b', Name: 'mug' })]));
    expect(products.map((p) => [p.id, p.handle, p.url])).toEqual([
      ['1', 'mug', undefined],
      ['2', 'mug-2', undefined],
    ]);
  });

  it('product and variant ids never collide', async () => {
    const { products } = await load(sample());
    const ids = products.flatMap((p) => [p.id, ...p.variants.map((v) => v.id)]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a hidden attribute on a simple product, and one with several values, is dropped and counted', async () => {
    const { products, report } = await load(
      csv([simple({ 'Attribute 1 name': 'Material', 'Attribute 1 value(s)': 'Steel', 'Attribute 1 visible': '0', 'Attribute 2 name': 'Color', 'Attribute 2 value(s)': 'Red, Blue', 'Attribute 2 visible': '1' })]),
    );
    expect(products[0].options).toBeUndefined();
    expect(report.droppedFields()).toMatchObject({ 'Attribute 1 name': 1, 'Attribute 1 value(s)': 1, 'Attribute 1 visible': 1, 'Attribute 2 name': 1 });
  });

  it('counts dropped columns, Meta: ones included', async () => {
    const { report } = await load(csv([simple({ 'Meta: _custom': 'x', 'Tax class': 'reduced-rate', 'Is featured?': '1' })]));
    expect(report.droppedFields()).toEqual({ 'Is featured?': 1, 'Meta: _custom': 1, 'Tax class': 1 });
  });

  it('streams: a simple product is yielded while most of the file has not been read', async () => {
    const report = new ImportReport();
    const ctx = importContext({ currency: 'USD', language: 'en', report });
    const lines = csv(Array.from({ length: 3000 }, (_, i) => simple({ ID: `${i + 1}`, SKU: `s${i}`, Name: `P${i}`, Description: 'x'.repeat(200) }))).split(/(?<=\n)/);
    let sent = 0;
    async function* chunks() {
      for (const line of lines) {
        sent++;
        yield line;
      }
    }
    for await (const product of woocommerce.read(chunks(), ctx)) {
      expect(product.id).toBe('1');
      expect(sent).toBeLessThan(lines.length / 2);
      break;
    }
  });
});
