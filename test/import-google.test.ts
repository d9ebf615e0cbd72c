/**
 * The Google Merchant Center adapter (server/import/google.ts, docs/import-formats/google.md):
 * Google's own example feed read field by field, its Atom and TSV forms giving the same products,
 * and one small generated feed per rule.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StoredProduct } from '../server/formats/catalog-format.ts';
import { ImportParseError, importContext, readAll, type ShopHints } from '../server/import/adapter.ts';
import { utf8Chunks } from '../server/import/input.ts';
import { Readable } from 'node:stream';
import { google, groupTitle } from '../server/import/google.ts';
import { ImportReport } from '../server/import/report.ts';

const DIR = join(import.meta.dirname, 'fixtures/import/google');
const fixture = (name: string) => readFileSync(join(DIR, name), 'utf8');

async function load(text: string | string[], currency = 'USD') {
  const report = new ImportReport();
  const hints: ShopHints[] = [];
  const products = await readAll(google, text, importContext({ currency, language: 'en', report, onHint: (h) => hints.push(h) }));
  for (const p of products) StoredProduct.parse(p);
  return { products, report, hints };
}

/** An RSS 2.0 feed of the given items, each an object of g: attributes (arrays repeat the element). */
function rss(items: Array<Record<string, string | string[]>>, channel = '<title>Shop</title><link>https://shop.example.com/</link>'): string {
  const body = items.map((i) => `<item>${Object.entries(i).flatMap(([k, v]) => [v].flat().map((x) => `<g:${k}>${escape(x)}</g:${k}>`)).join('')}</item>`).join('\n');
  return `<?xml version="1.0"?>\n<rss xmlns:g="http://base.google.com/ns/1.0" version="2.0"><channel>${channel}\n${body}\n</channel></rss>\n`;
}
function atom(items: Array<Record<string, string | string[]>>): string {
  const body = items.map((i) => `<entry>${Object.entries(i).flatMap(([k, v]) => [v].flat().map((x) => `<gm:${k}>${escape(x)}</gm:${k}>`)).join('')}</entry>`).join('\n');
  // Another prefix for the same namespace: the adapter matches the URI, not the letter g.
  return `<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom" xmlns:gm="http://base.google.com/ns/1.0"><title>Shop</title>\n${body}\n</feed>\n`;
}
function tsv(items: Array<Record<string, string | string[]>>): string {
  const cols = [...new Set(items.flatMap((i) => Object.keys(i)))];
  return [cols.join('\t'), ...items.map((i) => cols.map((c) => [i[c] ?? ''].flat().join(',')).join('\t'))].join('\n') + '\n';
}
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

const TEE = { id: 'TEE-1', title: 'Classic tee', description: 'Soft cotton', link: 'https://shop.example.com/tee', image_link: 'https://img.example.com/tee.jpg', price: '25.00 USD', availability: 'in_stock' };

describe("Google's example feed (example_feed_xml_rss.xml)", () => {
  it('reads every item, field by field', async () => {
    const { products, report, hints } = await load(fixture('example_feed_xml_rss.xml'));
    expect(hints).toEqual([{ name: 'Example - Online Store', storefrontUrl: 'http://www.example.com' }]);
    expect(products.map((p) => p.id)).toEqual(['TV_123456', 'DVD-0564738', 'PFM654321', 'CLO-1029384', 'CLO-29473856']);
    const [tv, dvd, cream, jersey, jeans] = products;
    expect(tv).toMatchObject({
      handle: 'tv-123456',
      title: 'LG 22LB4510 - 22" LED TV - 1080p (FullHD)',
      brand: 'LG',
      url: 'http://www.example.com/electronics/tv/22LB4510.html',
      media: [{ type: 'image', url: 'http://images.example.com/TV_123456.png' }],
      categories: ['Consumer Electronics', 'TVs', 'Flat Panel TVs', 'Electronics', 'Video', 'Televisions', 'Flat Panel Televisions'],
    });
    expect(tv.description).toMatch(/^Attractively styled .* LG 22LB4510 - 22" LED TV/);
    expect(tv.variants).toEqual([{ id: 'TV_123456-default', sku: 'TV_123456', options: {}, price: 15900, barcodes: [{ type: 'gtin14', value: '71919219405200' }, { type: 'mpn', value: '22LB4510/US' }] }]);
    // CDATA sections read as text.
    expect(dvd).toMatchObject({ title: 'Merlin: Series 3 - Volume 2 - 3 DVD Box set', url: 'http://www.example.com/media/dvd/?sku=384616&src=gshopping&lang=en', categories: ['DVDs & Movies', 'TV Series', 'Fantasy Drama', 'Media', 'DVDs & Videos'] });
    expect(dvd.variants[0]).toMatchObject({ price: 1199, barcodes: [{ type: 'gtin14', value: '88392916560500' }] });
    expect(cream.media!.map((m) => m.url)).toEqual(['http://images.example.com/PFM654321_1.jpg', 'http://images.example.com/PFM654321_2.jpg', 'http://images.example.com/PFM654321_3.jpg']);
    expect(cream.variants[0].price).toBe(9900);
    // The sale price's dates (2011) are long past: the regular price, no list price.
    expect(jersey.variants[0]).toMatchObject({ price: 3399, options: { color: 'black-red-white', size: 'm' } });
    expect(jersey.variants[0].list_price).toBeUndefined();
    expect(jeans).toMatchObject({ title: 'Roma Cotton Rich Bootcut Jeans', brand: 'M&S', url: 'http://www.example.com/clothing/women/Roma-Cotton-Bootcut-Jeans/?extid=CLO-29473856' });
    expect(jeans.options).toEqual([
      { name: 'color', label: 'Color', values: [{ id: 'navy', label: 'Navy' }] },
      { name: 'size', label: 'Size', values: [{ id: '8-standard', label: '8 Standard' }, { id: '8-tall', label: '8 Tall' }] },
    ]);
    expect(jeans.variants.map((v) => [v.id, v.sku, v.title, v.options, v.status])).toEqual([
      ['CLO-29473856-1', 'CLO-29473856-1', 'Roma Cotton Rich Bootcut Jeans - Size 8 Standard', { color: 'navy', size: '8-standard' }, 'out_of_stock'],
      ['CLO-29473856-2', 'CLO-29473856-2', 'Roma Cotton Rich Bootcut Jeans - Size 8 Tall', { color: 'navy', size: '8-tall' }, undefined],
    ]);
    expect(report.droppedFields()).toEqual({ age_group: 3, condition: 6, gender: 3, shipping: 4 });
    expect(report.skipped).toEqual([]);
  });

  it('gives the same products from its Atom and tab-separated forms', async () => {
    const fromRss = (await load(fixture('example_feed_xml_rss.xml'))).products;
    expect((await load(fixture('example_feed_xml_atom.derived.xml'))).products).toEqual(fromRss);
    expect((await load(fixture('example_feed_txt.derived.tsv'))).products).toEqual(fromRss);
  });

  it('reads the same when the file arrives in chunks cut anywhere', async () => {
    const text = fixture('example_feed_xml_rss.xml');
    const chunks = text.match(/[\s\S]{1,37}/g)!;
    expect((await load(chunks)).products).toEqual((await load(text)).products);
    const t = fixture('example_feed_txt.derived.tsv');
    expect((await load(t.match(/[\s\S]{1,29}/g)!)).products).toEqual((await load(t)).products);
  });
});

describe('Google feed rules', () => {
  const group = [
    { ...TEE, id: 'TEE-S-RED', title: 'Classic tee - Red, S', item_group_id: 'TEE', color: 'Red', size: 'S', gender: 'unisex', link: 'https://shop.example.com/tee?v=1', image_link: 'https://img.example.com/red.jpg' },
    { ...TEE, id: 'TEE-M-BLUE', title: 'Classic tee - Blue, M', item_group_id: 'TEE', color: 'Blue', size: 'M', gender: 'unisex', link: 'https://shop.example.com/tee?v=2', image_link: 'https://img.example.com/blue.jpg' },
  ];

  it('RSS, Atom and TSV forms of the same items give the same products', async () => {
    const items = [TEE, ...group];
    const a = (await load(rss(items))).products;
    expect(a).toHaveLength(2);
    expect((await load(atom(items))).products).toEqual(a);
    expect((await load(tsv(items))).products).toEqual(a);
  });

  it('groups items by item_group_id into one product with color and size options', async () => {
    const { products, report } = await load(rss(group));
    expect(products).toHaveLength(1);
    const [p] = products;
    expect(p).toMatchObject({ id: 'TEE', title: 'Classic tee', url: 'https://shop.example.com/tee?v=1', media: [{ url: 'https://img.example.com/red.jpg' }] });
    expect(p.options!.map((o) => [o.name, o.values.map((v) => v.id)])).toEqual([['color', ['red', 'blue']], ['size', ['s', 'm']]]);
    expect(p.variants.map((v) => [v.id, v.sku, v.options, v.url, v.media?.[0].url])).toEqual([
      ['TEE-S-RED', 'TEE-S-RED', { color: 'red', size: 's' }, 'https://shop.example.com/tee?v=1', 'https://img.example.com/red.jpg'],
      ['TEE-M-BLUE', 'TEE-M-BLUE', { color: 'blue', size: 'm' }, 'https://shop.example.com/tee?v=2', 'https://img.example.com/blue.jpg'],
    ]);
    // gender is the same for the whole group: no option, counted as dropped.
    expect(report.droppedFields()).toEqual({ gender: 2 });
  });

  it('makes gender an option when it differs within the group', async () => {
    const [p] = (await load(rss([group[0], { ...group[1], gender: 'female' }]))).products;
    expect(p.options!.map((o) => o.name)).toEqual(['color', 'size', 'gender']);
  });

  it('never gives a product and its variant the same id (ungrouped: item id and id-default)', async () => {
    const [p] = (await load(rss([TEE]))).products;
    expect([p.id, p.variants[0].id, p.variants[0].sku]).toEqual(['TEE-1', 'TEE-1-default', 'TEE-1']);
    const [g] = (await load(rss([{ ...TEE, id: 'G1', item_group_id: 'G1' }]))).products;
    expect([g.id, g.variants[0].id]).toEqual(['G1', 'G1-default']);
  });

  it('group titles: the common prefix cut at a separator, else the first title', () => {
    expect(groupTitle(['Roma Jeans - Size 8 Standard', 'Roma Jeans - Size 8 Tall'])).toBe('Roma Jeans');
    expect(groupTitle(['Mug red', 'Mug blue'])).toBe('Mug');
    expect(groupTitle(['Red mug', 'Blue mug'])).toBe('');
  });

  it('sells at sale_price while its effective dates include now, with price as list price', async () => {
    const on = { ...TEE, sale_price: '20.00 USD', sale_price_effective_date: '2000-01-01T00:00Z/2999-01-01T00:00Z' };
    expect((await load(rss([on]))).products[0].variants[0]).toMatchObject({ price: 2000, list_price: 2500 });
    const noDates = { ...TEE, sale_price: '20.00 USD' };
    expect((await load(rss([noDates]))).products[0].variants[0]).toMatchObject({ price: 2000, list_price: 2500 });
    const past = { ...on, sale_price_effective_date: '2011-09-01T16:00-08:00/2011-09-03T16:00-08:00' };
    const v = (await load(rss([past]))).products[0].variants[0];
    expect([v.price, v.list_price]).toEqual([2500, undefined]);
    const future = { ...on, sale_price_effective_date: '2999-01-01T00:00Z/2999-02-01T00:00Z' };
    expect((await load(rss([future]))).products[0].variants[0].price).toBe(2500);
  });

  it('skips an item priced in another currency, with the reason, and goes on', async () => {
    const { products, report } = await load(rss([{ ...TEE, id: 'EUR-1', price: '25.00 EUR' }, TEE]));
    expect(products.map((p) => p.id)).toEqual(['TEE-1']);
    expect(report.skipped).toEqual([{ ref: 'id EUR-1', reason: expect.stringMatching(/price 25\.00 EUR: an amount in EUR, not the shop's currency USD/) }]);
  });

  it('carries JPY and KWD amounts by their own minor units', async () => {
    expect((await load(rss([{ ...TEE, price: '2500 JPY' }]), 'JPY')).products[0].variants[0].price).toBe(2500);
    expect((await load(rss([{ ...TEE, price: '1.250 KWD' }]), 'KWD')).products[0].variants[0].price).toBe(1250);
    const { report } = await load(rss([{ ...TEE, price: '2500.50 JPY' }]), 'JPY');
    expect(report.skipped[0].reason).toMatch(/more decimals than JPY/);
  });

  it('keeps image_link then additional_image_link in file order (repeated in XML, comma-separated in TSV)', async () => {
    const item = { ...TEE, additional_image_link: ['https://img.example.com/2.jpg', 'https://img.example.com/3.jpg'] };
    const want = ['https://img.example.com/tee.jpg', 'https://img.example.com/2.jpg', 'https://img.example.com/3.jpg'];
    expect((await load(rss([item]))).products[0].media!.map((m) => m.url)).toEqual(want);
    expect((await load(tsv([item]))).products[0].media!.map((m) => m.url)).toEqual(want);
  });

  it('maps availability to variant status, legacy spellings too; in stock is untracked', async () => {
    const values = ['in_stock', 'in stock', 'out_of_stock', 'out of stock', 'preorder', 'backorder', 'available for order'];
    const { products } = await load(rss(values.map((availability, n) => ({ ...TEE, id: `A${n}`, availability }))));
    expect(products.map((p) => p.variants[0].status)).toEqual([undefined, undefined, 'out_of_stock', 'out_of_stock', 'preorder', 'backorder', undefined]);
  });

  it('pause all makes the product unavailable; ads-only items are hidden; pause ads is ignored', async () => {
    const { products } = await load(rss([{ ...TEE, id: 'P1', pause: 'all' }, { ...TEE, id: 'P2', excluded_destination: 'Free_listings' }, { ...TEE, id: 'P3', pause: 'ads' }]));
    expect(products.map((p) => [p.status, p.variants[0].status])).toEqual([['unavailable', 'discontinued'], ['hidden', undefined], [undefined, undefined]]);
  });

  it('counts attributes carried nowhere by name', async () => {
    const { report } = await load(rss([{ ...TEE, condition: 'new', custom_label_0: 'summer', tax: 'US:CA:8.25:y', google_product_category: '1604' }]));
    expect(report.droppedFields()).toEqual({ condition: 1, custom_label_0: 1, google_product_category: 1, tax: 1 });
  });

  it('keeps product_type and a text google_product_category as categories, deduplicated', async () => {
    const [p] = (await load(rss([{ ...TEE, product_type: ['Apparel > Tops', 'Apparel > Tees'], google_product_category: 'Apparel & Accessories > Clothing' }]))).products;
    expect(p.categories).toEqual(['Apparel', 'Tops', 'Tees', 'Apparel & Accessories', 'Clothing']);
  });

  it('reports XML that is not well-formed with its line', async () => {
    const text = rss([TEE]).replace('<g:price>', '<g:price x>');
    const err = await load(text).catch((e) => e);
    expect(err).toBeInstanceOf(ImportParseError);
    expect(err.line).toBe(3);
  });

  it('reports a TSV cut inside a quoted field, with the line the row starts on', async () => {
    const text = 'id\ttitle\tprice\nA\tMug\t5.00 USD\nB\t"Cut mug\t6.00 USD\n';
    const err = await load(text).catch((e) => e);
    expect(err).toBeInstanceOf(ImportParseError);
    expect(err.line).toBe(3);
    expect(err.reason).toMatch(/never closed.*quoted field/);
  });

  it("reports Google's RSS example cut short as cut short, its position named once", async () => {
    const whole = fixture('example_feed_xml_rss.xml');
    const err = await load(whole.slice(0, whole.indexOf('CLO-29473856-back.jpg'))).catch((e) => e);
    expect(err).toBeInstanceOf(ImportParseError);
    expect(err.reason).toMatch(/^the file ends inside <g:additional_image_link>, never closed: it was cut short/);
    expect(err.reason).not.toMatch(/\d+:\d+/);
  });

  it('refuses a TSV cut inside its last row (no line break, fewer cells than the header), not read with a cut price', async () => {
    const whole = fixture('example_feed_txt.derived.tsv');
    const at = whole.indexOf('\t33.99 USD') + '\t33.9'.length;
    const err = await load(whole.slice(0, at)).catch((e) => e);
    expect(err).toBeInstanceOf(ImportParseError);
    expect(err.reason).toMatch(/cut short/);
    expect(err.line).toBe(whole.slice(0, at).split('\n').length);
    // Whole, with or without its final line break, it loads.
    expect((await load(whole)).products).toHaveLength(5);
    expect((await load(whole.replace(/\n$/, ''))).products).toHaveLength(5);
    // A hand-made feed whose last row is short on purpose loads when it ends with a line break.
    expect((await load('id\ttitle\tprice\tbrand\nA\tMug\t5.00 USD\n')).products).toHaveLength(1);
    expect((await load('id\ttitle\tprice\tbrand\nA\tMug\t5.00 USD').catch((e) => e)).reason).toMatch(/end the file with a line break/);
  });

  it('a feed declaring Latin-1 (ISO-8859-1) or Windows-1252 is read as it declares; another declared encoding is refused naming it, not with advice about spreadsheets', async () => {
    const whole = readFileSync(join(DIR, 'example_feed_xml_rss.xml'));
    // Google's example feed in one byte per character, with an é (0xE9 in Latin-1) before "Dior".
    const single = (declaration: string) =>
      Buffer.concat([Buffer.from(declaration), whole.subarray(whole.indexOf('\n')).subarray(0, whole.indexOf('Dior') - whole.indexOf('\n')), Buffer.from([0xe9]), whole.subarray(whole.indexOf('Dior'))]);
    const text = async (bytes: Buffer) => {
      let out = '';
      for await (const chunk of utf8Chunks(Readable.from([bytes]))) out += chunk;
      return out;
    };
    for (const name of ['ISO-8859-1', 'iso-8859-1', 'windows-1252']) {
      const decoded = await text(single(`<?xml version="1.0" encoding="${name}"?>`));
      expect(decoded).toContain('\u00e9Dior');
      const { products } = await load(decoded);
      expect(products.filter((p) => JSON.stringify(p).includes('\u00e9Dior'))).toHaveLength(1);
    }
    const other = await text(single('<?xml version="1.0" encoding="Shift_JIS"?>')).catch((e) => e);
    expect(other).toBeInstanceOf(ImportParseError);
    expect(other.reason).toBe('not UTF-8 text: the feed declares encoding="Shift_JIS", and the import reads UTF-8, Latin-1 (ISO-8859-1) and Windows-1252 only: have the feed written as UTF-8 (encoding="UTF-8")');
    const undeclared = await text(single('<?xml version="1.0"?>')).catch((e) => e);
    expect(undeclared.reason).toMatch(/^not UTF-8 text \(a spreadsheet may have saved it/);
  });

  it('refuses a file that is not a Google feed, naming what is missing', async () => {
    for (const text of ['{"products": []}', 'Handle\tTitle\nmug\tMug\n', '<rss version="2.0"><channel><item><title>Post</title></item></channel></rss>', '<html><body/></html>']) {
      const err = await load(text).catch((e) => e);
      expect(err).toBeInstanceOf(ImportParseError);
      expect(err.reason).toMatch(/^not a Google Merchant Center feed: no g: namespace items and no id\/title\/price header/);
    }
  });
});
