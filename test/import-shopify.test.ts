/**
 * The Shopify product CSV adapter (server/import/shopify.ts, docs/import-formats/shopify.md): Shopify's
 * own published templates load field by field, and small generated files prove each mapping rule.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { shopify } from '../server/import/shopify.ts';
import { importContext, ImportParseError, readAll } from '../server/import/adapter.ts';
import { ImportReport } from '../server/import/report.ts';
import { StoredProduct } from '../server/formats/catalog-format.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures/import/shopify');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8').replace(/^\uFEFF/, '');

async function load(text: string | string[], options: { currency?: string; storefrontUrl?: string } = {}) {
  const report = new ImportReport();
  const ctx = importContext({ currency: options.currency ?? 'USD', language: 'en', storefrontUrl: options.storefrontUrl, report });
  const products = await readAll(shopify, text, ctx);
  for (const p of products) StoredProduct.parse(p);
  return { products, report };
}

const HEADER =
  'Handle,Title,Body (HTML),Vendor,Product Category,Type,Tags,Published,Option1 Name,Option1 Value,Option2 Name,Option2 Value,Option3 Name,Option3 Value,Variant SKU,Variant Grams,Variant Inventory Tracker,Variant Inventory Qty,Variant Inventory Policy,Variant Price,Variant Compare At Price,Variant Barcode,Image Src,Image Position,Image Alt Text,Variant Image,Status';
type Cells = Partial<Record<string, string>>;
/** A CSV of HEADER's columns from rows given by column name (quoted, so commas and quotes are safe). */
function csv(rows: Cells[]): string {
  const names = HEADER.split(',');
  const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  return [HEADER, ...rows.map((r) => names.map((n) => quote(r[n] ?? '')).join(','))].join('\n') + '\n';
}
const tee = (extra: Cells = {}): Cells => ({ Handle: 'classic-tee', Title: 'Classic Tee', 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant Price': '20.00', Status: 'active', Published: 'TRUE', ...extra });

describe('Shopify official template (help.shopify.com product_template.csv)', () => {
  it('loads 3 products and 16 variants, skipping none, each passing StoredProduct', async () => {
    const { products, report } = await load(fixture('product_template.csv'));
    expect(products.map((p) => [p.id, p.variants.length])).toEqual([['example-shirt', 12], ['example-pants', 3], ['example-hat', 1]]);
    expect(report.skipped).toEqual([]);
  });

  it('example-shirt field by field: options in file order, SKU ids, images by position with alt text', async () => {
    const { products } = await load(fixture('product_template.csv'), { storefrontUrl: 'https://shop.example.com/' });
    const shirt = products[0];
    expect(shirt).toMatchObject({ handle: 'example-shirt', title: 'Example T-Shirt', brand: 'Acme', url: 'https://shop.example.com/products/example-shirt' });
    expect(shirt.status).toBeUndefined();
    expect(shirt.description).toMatch(/^This t-shirt is as simple as it gets\./);
    expect(shirt.description_html).toMatch(/^<p>This t-shirt/);
    expect(shirt.categories).toEqual(['Shirts', 'Apparel & Accessories', 'Clothing', 'Clothing Tops', 'T-Shirts']);
    expect(shirt.tags).toEqual(['Made to Order', 'Shirt Tag']);
    expect(shirt.options?.map((o) => [o.name, o.label, o.values.map((v) => v.id)])).toEqual([
      ['color', 'Color', ['green', 'blue', 'gray', 'purple']],
      ['size', 'Size', ['s', 'm', 'l']],
    ]);
    expect(shirt.media?.map((m) => m.alt_text)).toEqual(['A rack of T-Shirts', 'T-Shirt color swatches', 'Green T-Shirt', 'Blue T-Shirt', 'Gray T-Shirt', 'Purple T-Shirt']);
    // Tracker empty: Shopify does not count this stock, so neither do we.
    expect(shirt.variants[0]).toEqual({
      id: 'SRT_COT_111',
      sku: 'SRT_COT_111',
      options: { color: 'green', size: 's' },
      price: 2500,
      media: [{ type: 'image', url: 'https://burst.shopifycdn.com/photos/green-t-shirt.jpg?width=1500', alt_text: 'Green T-Shirt' }],
    });
  });

  it('example-pants is a draft (unavailable), tracked with deny; its compare-at below the price is no list price', async () => {
    const { products } = await load(fixture('product_template.csv'));
    const pants = products[1];
    expect(pants.status).toBe('unavailable');
    expect(pants.variants.map((v) => [v.id, v.price, v.list_price, v.inventory])).toEqual([
      ['PNT_DEN_285', 9500, undefined, 20],
      ['PNT_DEN_305', 9500, undefined, 15],
      ['PNT_DEN_405', 9500, undefined, 10],
    ]);
    expect(pants.media).toHaveLength(4);
  });

  it('example-hat: Default Title is no option; archived; compare-at above the price is the list price', async () => {
    const { products } = await load(fixture('product_template.csv'));
    const hat = products[2];
    expect(hat.options).toBeUndefined();
    expect(hat.status).toBe('unavailable');
    expect(hat.variants).toEqual([{ id: 'HAT_GRY_275', sku: 'HAT_GRY_275', options: {}, price: 1799, list_price: 2299, inventory: 50 }]);
  });

  it('warns about every spreadsheet-mangled barcode in the template and stores none', async () => {
    const { products, report } = await load(fixture('product_template.csv'));
    expect(products.flatMap((p) => p.variants).filter((v) => v.barcodes)).toEqual([]);
    expect(report.warnings.filter((w) => /Variant Barcode .*E\+11/.test(w))).toHaveLength(16);
    expect(report.warnings[0]).toContain('Handle example-shirt, SKU SRT_COT_111');
  });

  it('counts the columns it does not carry', async () => {
    const { report } = await load(fixture('product_template.csv'));
    const dropped = report.droppedFields();
    expect(dropped).toMatchObject({ 'Variant Grams': 16, 'SEO Title': 3, 'Cost per item': 4, 'Google Shopping / MPN': 3, 'Variant Weight Unit': 16 });
    expect(dropped['Variant Price']).toBeUndefined();
  });

  it('reads the 2024+ template headers (URL handle, Price, Product image URL, ...) as the classic ones', async () => {
    const { products, report } = await load(fixture('product_template_2025.csv'));
    expect(products.map((p) => [p.id, p.variants.length])).toEqual([['physical-product-the-band-t-shirt', 12], ['digital-product-the-history-of-rock-music', 3]]);
    expect(report.skipped).toEqual([]);
    const [shirt, book] = products;
    expect(shirt.options?.map((o) => o.name)).toEqual(['size', 'color']);
    expect(shirt.variants[0]).toMatchObject({ id: 'TheBandTShirt-SG', price: 1999, list_price: 2499, inventory: 47, barcodes: [{ type: 'barcode', value: '5784397765' }] });
    expect(book.variants.map((v) => [v.id, v.price, v.list_price, v.inventory])).toEqual([
      ['HRM-EBK-PDF', 1499, undefined, undefined],
      ['HRM-EBK-AUD', 2199, undefined, undefined],
      ['HRM-EBK-KND', 999, 1499, undefined],
    ]);
    expect(report.droppedFields()).toMatchObject({ 'Option2 Linked To': 1, 'Weight value (grams)': 12 });
  });
});

describe('Shopify CSV rules', () => {
  it('a file cut inside a quoted field is an ImportParseError with the line', async () => {
    const text = csv([tee()]) + 'cut-tee,"Cut Tee,<p>never closed\n';
    const err = await load(text).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportParseError);
    expect((err as ImportParseError).line).toBe(3);
    expect((err as ImportParseError).reason).toMatch(/quoted field is never closed/);
  });

  it('a file cut inside a row (no line break, fewer cells than the header) is refused, not read with a cut price', async () => {
    // Shopify's own template, cut in the last product's Variant Price (17.99 → 17.9), as a download that stopped.
    const whole = fixture('product_template.csv');
    const cut = whole.slice(0, whole.indexOf(',17.99,') + 5);
    const err = await load(cut).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportParseError);
    expect((err as ImportParseError).line).toBe(whole.slice(0, cut.length).split('\n').length);
    expect((err as ImportParseError).reason).toMatch(/cut short/);
    // The template itself has no final line break and loads: only a short last row is refused.
    expect(whole.endsWith('\n')).toBe(false);
    expect((await load(whole)).products).toHaveLength(3);
    // Split in chunks at any point, the same.
    const err2 = await load([cut.slice(0, 100), cut.slice(100, cut.length - 3), cut.slice(cut.length - 3)]).catch((e: unknown) => e);
    expect((err2 as ImportParseError).reason).toMatch(/cut short/);
  });

  it('a file without a Handle column is refused naming the column', async () => {
    const err = await load('Title,Variant Price\nMug,5.00\n').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportParseError);
    expect((err as Error).message).toContain('not a Shopify product CSV: no column Handle');
  });

  it('a negative price skips that variant with its ref, the rest loads', async () => {
    const { products, report } = await load(
      csv([
        tee({ 'Option1 Name': 'Size', 'Option1 Value': 'S', 'Variant SKU': 'TEE-S', 'Variant Price': '-5.00' }),
        { Handle: 'classic-tee', 'Option1 Value': 'M', 'Variant SKU': 'TEE-M', 'Variant Price': '20.00' },
        { Handle: 'mug', Title: 'Mug', 'Variant Price': '' },
      ]),
    );
    expect(products.map((p) => [p.id, p.variants.map((v) => v.id)])).toEqual([['classic-tee', ['TEE-M']]]);
    expect(report.skipped).toEqual([
      { ref: 'Handle classic-tee, SKU TEE-S', reason: expect.stringMatching(/negative/) },
      { ref: 'Handle mug, options (none)', reason: expect.stringMatching(/no amount/) },
      { ref: 'Handle mug', reason: expect.stringMatching(/no variant/) },
    ]);
  });

  it('JPY prices have no decimals and KWD prices three', async () => {
    expect((await load(csv([tee({ 'Variant Price': '1500' })]), { currency: 'JPY' })).products[0].variants[0].price).toBe(1500);
    expect((await load(csv([tee({ 'Variant Price': '2.250' })]), { currency: 'KWD' })).products[0].variants[0].price).toBe(2250);
    const { products, report } = await load(csv([tee({ 'Variant Price': '15.50' })]), { currency: 'JPY' });
    expect(products).toEqual([]);
    expect(report.skipped[0].reason).toMatch(/more decimals than JPY/);
  });

  it('compare-at below or equal to the price is no list price; above it is', async () => {
    const { products } = await load(
      csv([
        tee({ Handle: 'a', 'Variant Compare At Price': '15.00' }),
        tee({ Handle: 'b', 'Variant Compare At Price': '20.00' }),
        tee({ Handle: 'c', 'Variant Compare At Price': '25.00' }),
      ]),
    );
    expect(products.map((p) => p.variants[0].list_price)).toEqual([undefined, undefined, 2500]);
  });

  it('keeps Option1..3 in file order, even when not alphabetical; values in order of appearance', async () => {
    const { products } = await load(
      csv([
        tee({ 'Option1 Name': 'Size', 'Option1 Value': 'XL', 'Option2 Name': 'Color', 'Option2 Value': 'Navy Blue', 'Option3 Name': 'Fit', 'Option3 Value': 'Slim' }),
        { Handle: 'classic-tee', 'Option1 Value': 'S', 'Option2 Value': 'Navy Blue', 'Option3 Value': 'Slim', 'Variant Price': '20' },
      ]),
    );
    const p = products[0];
    expect(p.options?.map((o) => [o.name, o.label, o.values])).toEqual([
      ['size', 'Size', [{ id: 'xl', label: 'XL' }, { id: 's', label: 'S' }]],
      ['color', 'Color', [{ id: 'navy-blue', label: 'Navy Blue' }]],
      ['fit', 'Fit', [{ id: 'slim', label: 'Slim' }]],
    ]);
    // No SKU: the id comes from the product and its option value ids; no title is set (the server derives it).
    expect(p.variants.map((v) => [v.id, v.options, v.title])).toEqual([
      ['classic-tee-xl-navy-blue-slim', { size: 'xl', color: 'navy-blue', fit: 'slim' }, undefined],
      ['classic-tee-s-navy-blue-slim', { size: 's', color: 'navy-blue', fit: 'slim' }, undefined],
    ]);
  });

  it('an option-less product has one variant named product-default', async () => {
    const { products } = await load(csv([tee()]));
    expect(products[0].variants.map((v) => v.id)).toEqual(['classic-tee-default']);
  });

  it('a SKU used twice, or equal to a product id, is not the id the second time', async () => {
    const { products, report } = await load(csv([tee({ Handle: 'a', 'Variant SKU': 'SAME' }), tee({ Handle: 'b', 'Variant SKU': 'SAME' }), tee({ Handle: 'c', 'Variant SKU': 'c' })]));
    expect(products.map((p) => [p.id, p.variants[0].id, p.variants[0].sku])).toEqual([
      ['a', 'SAME', 'SAME'],
      ['b', 'b-default', 'SAME'],
      ['c', 'c-default', 'c'],
    ]);
    expect(report.warnings).toHaveLength(2);
  });

  it('draft, archived and unpublished products are unavailable; active and published stay active', async () => {
    const { products } = await load(
      csv([tee({ Handle: 'draft', Status: 'draft' }), tee({ Handle: 'archived', Status: 'Archived' }), tee({ Handle: 'unpublished', Published: 'FALSE' }), tee({ Handle: 'live' })]),
    );
    expect(products.map((p) => [p.id, p.status])).toEqual([
      ['draft', 'unavailable'],
      ['archived', 'unavailable'],
      ['unpublished', 'unavailable'],
      ['live', undefined],
    ]);
  });

  it("Unlisted (Shopify's status since 2025-10: sold by its link, not in search) is hidden, in the 2025 template too", async () => {
    const template = fixture('product_template_2025.csv');
    expect(template).toContain(',TRUE,Active,TheBandTShirt-SG,');
    const { products } = await load(template.replace(',TRUE,Active,TheBandTShirt-SG,', ',TRUE,Unlisted,TheBandTShirt-SG,'));
    expect(products.map((p) => [p.id, p.status])).toEqual([
      ['physical-product-the-band-t-shirt', 'hidden'],
      ['digital-product-the-history-of-rock-music', undefined],
    ]);
    const unlisted = await load(csv([tee({ Handle: 'unlisted', Status: 'unlisted' }), tee({ Handle: 'unlisted-unpublished', Status: 'unlisted', Published: 'FALSE' })]));
    expect(unlisted.products.map((p) => [p.id, p.status])).toEqual([
      ['unlisted', 'hidden'],
      ['unlisted-unpublished', 'unavailable'],
    ]);
  });

  it('a Status that is none of Shopify\'s (a cut or hand-typed value) is imported as active and said in the report; known ones are not', async () => {
    const { products, report } = await load(csv([tee({ Handle: 'cut', Status: 'arch' }), tee({ Handle: 'known', Status: 'Archived' }), tee({ Handle: 'blank', Status: '' })]));
    expect(products.map((p) => [p.id, p.status])).toEqual([
      ['cut', undefined],
      ['known', 'unavailable'],
      ['blank', undefined],
    ]);
    expect(report.warnings).toEqual([expect.stringMatching(/^Handle cut.*: Status arch is not one of Shopify's \(active, draft, archived, unlisted\); imported as active$/)]);
  });

  it('stock: no tracker untracked; deny counts (never below 0); continue is untracked with stock, backorder without', async () => {
    const { products } = await load(
      csv([
        tee({ Handle: 'untracked', 'Variant Inventory Qty': '5', 'Variant Inventory Policy': 'deny' }),
        tee({ Handle: 'deny', 'Variant Inventory Tracker': 'shopify', 'Variant Inventory Qty': '7', 'Variant Inventory Policy': 'deny' }),
        tee({ Handle: 'oversold', 'Variant Inventory Tracker': 'shopify', 'Variant Inventory Qty': '-3', 'Variant Inventory Policy': 'deny' }),
        tee({ Handle: 'continue', 'Variant Inventory Tracker': 'shopify', 'Variant Inventory Qty': '4', 'Variant Inventory Policy': 'continue' }),
        tee({ Handle: 'backorder', 'Variant Inventory Tracker': 'shopify', 'Variant Inventory Qty': '0', 'Variant Inventory Policy': 'continue' }),
      ]),
    );
    expect(products.map((p) => [p.id, p.variants[0].inventory, p.variants[0].status])).toEqual([
      ['untracked', undefined, undefined],
      ['deny', 7, undefined],
      ['oversold', 0, undefined],
      ['continue', undefined, undefined],
      ['backorder', undefined, 'backorder'],
    ]);
  });

  it('images keep Image Position order and alt text; image-only rows add images, not variants; Variant Image is the variant media', async () => {
    const { products } = await load(
      csv([
        tee({ 'Option1 Name': 'Color', 'Option1 Value': 'Red', 'Image Src': 'https://cdn.example/b.jpg', 'Image Position': '2', 'Image Alt Text': 'Back', 'Variant Image': 'https://cdn.example/a.jpg' }),
        { Handle: 'classic-tee', 'Image Src': 'https://cdn.example/a.jpg', 'Image Position': '1', 'Image Alt Text': 'Front' },
      ]),
    );
    const p = products[0];
    expect(p.media).toEqual([
      { type: 'image', url: 'https://cdn.example/a.jpg', alt_text: 'Front' },
      { type: 'image', url: 'https://cdn.example/b.jpg', alt_text: 'Back' },
    ]);
    expect(p.variants).toHaveLength(1);
    expect(p.variants[0].media).toEqual([{ type: 'image', url: 'https://cdn.example/a.jpg', alt_text: 'Front' }]);
  });

  it('HTML body is description (plain) plus description_html; no body uses the title; Vendor is brand', async () => {
    const { products } = await load(csv([tee({ Handle: 'html', 'Body (HTML)': '<p>Soft <b>cotton</b> &amp; more</p>', Vendor: 'Acme' }), tee({ Handle: 'none' })]));
    expect(products[0]).toMatchObject({ description: 'Soft cotton & more', description_html: '<p>Soft <b>cotton</b> &amp; more</p>', brand: 'Acme' });
    expect(products[1]).toMatchObject({ description: 'Classic Tee' });
    expect(products[1].description_html).toBeUndefined();
  });

  it('categories are Type then each Product Category level, once each; tags split on commas', async () => {
    const { products } = await load(csv([tee({ Type: 'Shirts', 'Product Category': 'Apparel > Shirts > Tees', Tags: 'summer, cotton,sale' })]));
    expect(products[0].categories).toEqual(['Shirts', 'Apparel', 'Tees']);
    expect(products[0].tags).toEqual(['summer', 'cotton', 'sale']);
  });

  it('a real barcode is stored with its GS1 type; an Excel-mangled one or SKU is warned and not stored', async () => {
    const { products, report } = await load(csv([tee({ Handle: 'good', 'Variant Barcode': '0123456789012' }), tee({ Handle: 'bad', 'Variant Barcode': '3.65275E+11', 'Variant SKU': '1.2E+5' })]));
    expect(products[0].variants[0].barcodes).toEqual([{ type: 'gtin13', value: '0123456789012' }]);
    expect(products[1].variants[0]).toEqual({ id: 'bad-default', options: {}, price: 2000 });
    expect(report.warnings).toEqual([expect.stringMatching(/^Handle bad, SKU 1\.2E\+5: Variant SKU/), expect.stringMatching(/^Handle bad, SKU 1\.2E\+5: Variant Barcode 3\.65275E\+11/)]);
  });

  it('no url without a storefront', async () => {
    const { products } = await load(csv([tee()]));
    expect(products[0].url).toBeUndefined();
  });

  it('counts dropped columns per row that has a value', async () => {
    const { report } = await load(csv([tee({ 'Variant Grams': '100' }), tee({ Handle: 'b', 'Variant Grams': '' })]));
    expect(report.droppedFields()).toEqual({ 'Variant Grams': 1 });
  });

  it('streams: the first product is yielded while most of the file has not been read', async () => {
    const report = new ImportReport();
    const ctx = importContext({ currency: 'USD', language: 'en', report });
    const lines = csv(Array.from({ length: 3000 }, (_, i) => tee({ Handle: `p${i}`, 'Body (HTML)': 'x'.repeat(200) }))).split(/(?<=\n)/);
    let sent = 0;
    async function* chunks() {
      for (const line of lines) {
        sent++;
        yield line;
      }
    }
    for await (const product of shopify.read(chunks(), ctx)) {
      expect(product.id).toBe('p0');
      expect(sent).toBeLessThan(lines.length / 2);
      break;
    }
  });

  it('rows of a handle split across chunks at any point read the same', async () => {
    const text = csv([tee({ 'Body (HTML)': '<p>a, "quoted"\nbody</p>' }), tee({ Handle: 'b' })]);
    const pieces = text.match(/[\s\S]{1,7}/g) ?? [];
    expect((await load(pieces)).products).toEqual((await load(text)).products);
  });
});
