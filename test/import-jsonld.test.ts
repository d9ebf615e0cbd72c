/**
 * The schema.org JSON-LD adapter (server/import/jsonld.ts, docs/import-formats/jsonld.md):
 * schema.org's and Google's own examples read field by field, and one small document per rule.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StoredProduct } from '../server/formats/catalog-format.ts';
import { ImportParseError, importContext, readAll, type ShopHints } from '../server/import/adapter.ts';
import { jsonld } from '../server/import/jsonld.ts';
import { ImportReport } from '../server/import/report.ts';

const DIR = join(import.meta.dirname, 'fixtures/import/jsonld');
const fixture = (name: string) => readFileSync(join(DIR, name), 'utf8');

async function load(text: string | string[], options: { currency?: string; storefrontUrl?: string } = {}) {
  const report = new ImportReport();
  const hints: ShopHints[] = [];
  const ctx = importContext({ currency: options.currency ?? 'USD', language: 'en', storefrontUrl: options.storefrontUrl, report, onHint: (h) => hints.push(h) });
  const products = await readAll(jsonld, text, ctx);
  for (const p of products) StoredProduct.parse(p);
  return { products, report, hints };
}

const mug = (extra: Record<string, unknown> = {}) => ({
  '@context': 'https://schema.org',
  '@type': 'Product',
  name: 'Mug',
  sku: 'MUG-1',
  offers: { '@type': 'Offer', price: '12.50', priceCurrency: 'USD', availability: 'https://schema.org/InStock' },
  ...extra,
});
const page = (...blocks: string[]) => `<!doctype html>\n<html><head>\n${blocks.map((b) => `<script type="application/ld+json">${b}</script>`).join('\n')}\n</head><body></body></html>\n`;

describe("schema.org's and Google's examples", () => {
  it('schema.org eg-0010: Product, Offer, AggregateRating', async () => {
    const { products, report } = await load(fixture('schemaorg-eg-0010-product-offer-rating.html'), { storefrontUrl: 'https://shop.example.com' });
    expect(products).toEqual([
      {
        id: 'kenmore-white-17-microwave',
        handle: 'kenmore-white-17-microwave',
        title: 'Kenmore White 17" Microwave',
        description: '0.7 cubic feet countertop microwave. Has six preset cooking categories and convenience features like Add-A-Minute and Child Lock.',
        categories: [],
        variants: [{ id: 'kenmore-white-17-microwave-default', options: {}, price: 5500 }],
        media: [{ type: 'image', url: 'https://shop.example.com/kenmore-microwave-17in.jpg' }],
        rating: { value: 3.5, scale_max: 5, count: 11 },
      },
    ]);
    expect(report.droppedFields()).toEqual({ review: 1 });
  });

  it('schema.org eg-0011: AggregateOffer without priced offers sells at lowPrice; bestRating is the scale', async () => {
    const { products, report } = await load(fixture('schemaorg-eg-0011-product-aggregateoffer.html'));
    expect(products).toHaveLength(1);
    expect(products[0]).toMatchObject({ id: 'dell-ultrasharp-30-lcd-monitor', title: 'Dell UltraSharp 30" LCD Monitor', media: [{ url: '/dell-30in-lcd.jpg' }], rating: { value: 87, scale_max: 100, count: 24 } });
    expect(products[0].variants).toEqual([{ id: 'dell-ultrasharp-30-lcd-monitor-default', options: {}, price: 125000 }]);
    expect(report.droppedFields()).toEqual({ 'offers.highPrice': 1 });
  });

  it("Google's product variants example: ProductGroup, hasVariant, variesBy", async () => {
    const { products, report } = await load(fixture('google-product-variants-single-page-nested.html'));
    expect(products).toHaveLength(1);
    const [coat] = products;
    expect(coat).toMatchObject({ id: '44E01', handle: '44e01', title: 'Wool winter coat', description: 'Wool coat, new for the coming winter season', brand: 'Good brand', url: 'https://www.example.com/coat' });
    expect(coat.options).toEqual([
      { name: 'size', label: 'Size', values: [{ id: 'small', label: 'small' }, { id: 'large', label: 'large' }] },
      { name: 'color', label: 'Color', values: [{ id: 'green', label: 'Green' }, { id: 'light-blue', label: 'light blue' }] },
    ]);
    expect(coat.variants.map((v) => [v.id, v.sku, v.title, v.options, v.price, v.status, v.barcodes, v.url, v.media?.[0].url])).toEqual([
      ['44E01-M11000', '44E01-M11000', 'Small green coat', { size: 'small', color: 'green' }, 3999, undefined, [{ type: 'gtin14', value: '98766051104214' }], 'https://www.example.com/coat?size=small&color=green', 'https://www.example.com/coat_small_green.jpg'],
      ['44E01-K11000', '44E01-K11000', 'Small light blue coat', { size: 'small', color: 'light-blue' }, 3999, undefined, [{ type: 'gtin14', value: '98766051104207' }], 'https://www.example.com/coat?size=small&color=lightblue', 'https://www.example.com/coat_small_lightblue.jpg'],
      ['44E01-X1100000', '44E01-X1100000', 'Large light blue coat', { size: 'large', color: 'light-blue' }, 4999, 'backorder', [{ type: 'gtin14', value: '98766051104399' }], 'https://www.example.com/coat?size=large&color=lightblue', 'https://www.example.com/coat_large_lightblue.jpg'],
    ]);
    expect(report.droppedFields()).toEqual({ audience: 1, material: 1, 'offers.hasMerchantReturnPolicy': 3, 'offers.itemCondition': 3, 'offers.shippingDetails': 3, pattern: 1 });
  });
});

describe('JSON-LD rules', () => {
  it('reads a JSON document: an object, an array and an @graph alike', async () => {
    const one = (await load(JSON.stringify(mug()))).products;
    expect(one).toEqual([{ id: 'MUG-1', handle: 'mug-1', title: 'Mug', description: 'Mug', categories: [], variants: [{ id: 'MUG-1-default', sku: 'MUG-1', options: {}, price: 1250 }] }]);
    expect((await load(JSON.stringify([mug()]))).products).toEqual(one);
    expect((await load(JSON.stringify({ '@context': 'https://schema.org', '@graph': [{ '@type': 'BreadcrumbList' }, mug()] }))).products).toEqual(one);
  });

  it('reads several ld+json blocks of a page, streamed in small chunks, and names the shop from WebSite', async () => {
    const html = page(JSON.stringify({ '@context': 'https://schema.org', '@type': 'WebSite', name: 'Mugs & Co', url: 'https://mugs.example.com/' }), JSON.stringify(mug()), JSON.stringify(mug({ sku: 'MUG-2', name: 'Big mug' })));
    const { products, hints } = await load(html.match(/[\s\S]{1,7}/g)!);
    expect(products.map((p) => p.id)).toEqual(['MUG-1', 'MUG-2']);
    expect(hints).toEqual([{ name: 'Mugs & Co', storefrontUrl: 'https://mugs.example.com' }]);
  });

  it('reports a broken ld+json block with its line in the page', async () => {
    const html = page(JSON.stringify(mug()), '{\n  "@type": "Product",\n  "name": "Broken",\n}');
    const err = await load(html).catch((e) => e);
    expect(err).toBeInstanceOf(ImportParseError);
    // Block 2 starts on line 4 of the page; its stray comma before `}` is on the block's 4th line.
    expect(err.line).toBe(7);
    expect(err.reason).toMatch(/ld\+json block is not valid JSON/);
  });

  it('ProductGroup with hasVariant and variesBy in short names', async () => {
    const group = {
      '@context': 'https://schema.org',
      '@type': 'ProductGroup',
      name: 'Tee',
      productGroupID: 'TEE',
      variesBy: ['size', 'https://schema.org/color'],
      hasVariant: ['S', 'M'].map((size) => ({ '@type': 'Product', sku: `TEE-${size}`, name: `Tee ${size}`, size, color: 'Red', offers: { '@type': 'Offer', price: 20, priceCurrency: 'USD' } })),
    };
    const [p] = (await load(JSON.stringify(group))).products;
    expect(p.options!.map((o) => [o.name, o.values.map((v) => v.id)])).toEqual([['size', ['s', 'm']], ['color', ['red']]]);
    expect(p.variants.map((v) => [v.id, v.options])).toEqual([['TEE-S', { size: 's', color: 'red' }], ['TEE-M', { size: 'm', color: 'red' }]]);
  });

  it('variants pointing back with isVariantOf join their group', async () => {
    const doc = [
      { '@context': 'https://schema.org', '@type': 'ProductGroup', '@id': '#tee', name: 'Tee', variesBy: 'https://schema.org/size' },
      ...['S', 'M'].map((size) => ({ '@context': 'https://schema.org', '@type': 'Product', isVariantOf: { '@id': '#tee' }, sku: `T-${size}`, name: `Tee ${size}`, size, offers: { '@type': 'Offer', price: '9', priceCurrency: 'USD' } })),
    ];
    const { products } = await load(JSON.stringify(doc));
    expect(products.map((p) => [p.id, p.variants.map((v) => v.id)])).toEqual([['tee', ['T-S', 'T-M']]]);
  });

  it('AggregateOffer with priced offers: one variant per offer', async () => {
    const offers = { '@type': 'AggregateOffer', priceCurrency: 'USD', lowPrice: '10', highPrice: '15', offers: [{ '@type': 'Offer', sku: 'A', price: '10' }, { '@type': 'Offer', sku: 'B', price: '15' }] };
    const [p] = (await load(JSON.stringify(mug({ offers })))).products;
    expect(p.variants.map((v) => [v.id, v.price])).toEqual([['A', 1000], ['B', 1500]]);
  });

  it('priceSpecification: the sale price, and a ListPrice above it as list price', async () => {
    const offers = { '@type': 'Offer', priceCurrency: 'USD', priceSpecification: [{ '@type': 'UnitPriceSpecification', price: 8 }, { '@type': 'UnitPriceSpecification', priceType: 'https://schema.org/ListPrice', price: 10 }] };
    const [p] = (await load(JSON.stringify(mug({ offers })))).products;
    expect(p.variants[0]).toMatchObject({ price: 800, list_price: 1000 });
  });

  it('skips a product priced in another currency or without a price, with the reason', async () => {
    const eur = mug({ sku: 'EUR', offers: { '@type': 'Offer', price: '12.50', priceCurrency: 'EUR' } });
    const none = mug({ sku: 'NONE', offers: undefined });
    const { products, report } = await load(JSON.stringify([eur, none, mug()]));
    expect(products.map((p) => p.id)).toEqual(['MUG-1']);
    expect(report.skipped).toEqual([
      { ref: 'sku EUR', reason: expect.stringMatching(/an amount in EUR, not the shop's currency USD/) },
      { ref: 'sku NONE', reason: 'no offers: no price to sell at' },
    ]);
  });

  it('carries JPY and KWD amounts by their own minor units', async () => {
    const jpy = mug({ offers: { '@type': 'Offer', price: 2500, priceCurrency: 'JPY' } });
    expect((await load(JSON.stringify(jpy), { currency: 'JPY' })).products[0].variants[0].price).toBe(2500);
    const kwd = mug({ offers: { '@type': 'Offer', price: '1.250', priceCurrency: 'KWD' } });
    expect((await load(JSON.stringify(kwd), { currency: 'KWD' })).products[0].variants[0].price).toBe(1250);
  });

  it('maps offers.availability to variant status', async () => {
    const values = ['InStock', 'OutOfStock', 'PreOrder', 'BackOrder', 'Discontinued', 'SoldOut'];
    const doc = values.map((a, n) => mug({ sku: `S${n}`, offers: { '@type': 'Offer', price: '1', priceCurrency: 'USD', availability: `https://schema.org/${a}` } }));
    const { products } = await load(JSON.stringify(doc));
    expect(products.map((p) => p.variants[0].status)).toEqual([undefined, 'out_of_stock', 'preorder', 'backorder', 'discontinued', 'out_of_stock']);
  });

  it('brand, ImageObject captions, categories, gtin and mpn, HTML descriptions', async () => {
    const [p] = (await load(JSON.stringify(mug({
      brand: { '@type': 'Brand', name: 'Acme' },
      image: [{ '@type': 'ImageObject', contentUrl: 'https://img.example.com/a.jpg', caption: 'Front' }, 'https://img.example.com/b.jpg'],
      category: 'Kitchen > Mugs',
      gtin13: '4006381333931',
      mpn: 'M-1',
      description: '<p>Big <b>mug</b></p>',
    })))).products;
    expect(p).toMatchObject({ brand: 'Acme', categories: ['Kitchen', 'Mugs'], description: 'Big mug', description_html: '<p>Big <b>mug</b></p>' });
    expect(p.media).toEqual([{ type: 'image', url: 'https://img.example.com/a.jpg', alt_text: 'Front' }, { type: 'image', url: 'https://img.example.com/b.jpg' }]);
    expect(p.variants[0].barcodes).toEqual([{ type: 'gtin13', value: '4006381333931' }, { type: 'mpn', value: 'M-1' }]);
  });

  it('refuses a document with no Product', async () => {
    for (const text of [JSON.stringify({ '@context': 'https://schema.org', '@type': 'Organization', name: 'X' }), page(), 'id\ttitle\n']) {
      const err = await load(text).catch((e) => e);
      expect(err).toBeInstanceOf(ImportParseError);
      expect(err.reason).toBe('no schema.org Product in the document');
    }
  });
});
