import { describe, expect, it } from 'vitest';
import { allocate, priceCart, roundHalfAwayFromZero, taxRateBps } from '../server/core/carts/pricing.ts';
import { validateCustomizations } from '../server/core/carts/customizations.ts';
import { evaluateCodes } from '../server/core/carts/discounts.ts';
import { canonicalJson, fingerprint } from '../server/core/carts/idempotency.ts';
import type { CustomizationDef, StoredDiscount } from '../server/formats/types.ts';

describe('pricing', () => {
  it('allocates proportionally with integer parts summing exactly', () => {
    expect(allocate(100, [500, 500, 500])).toEqual([34, 33, 33]);
    expect(allocate(1000, [7500, 2500])).toEqual([750, 250]);
    expect(allocate(0, [5, 5])).toEqual([0, 0]);
    for (const [a, w] of [[7, [3, 3, 3]], [999, [100, 200, 300, 400]], [5, [3, 3]]] as Array<[number, number[]]>) {
      expect(allocate(a, w).reduce((x, y) => x + y, 0)).toBe(a);
    }
  });

  it('rounds half away from zero', () => {
    expect(roundHalfAwayFromZero(652.5)).toBe(653);
    expect(roundHalfAwayFromZero(-652.5)).toBe(-653);
  });

  it('picks the tax rate: region, then country, then default', () => {
    const tax = { default_bps: 100, by_country: { US: 300, FR: 2000 }, by_region: { 'US-CA': 725 } };
    expect(taxRateBps(tax, 'US', 'CA')).toBe(725);
    expect(taxRateBps(tax, 'us', 'ny')).toBe(300);
    expect(taxRateBps(tax, 'FR')).toBe(2000);
    expect(taxRateBps(tax, undefined)).toBe(100);
  });

  it('prices lines, stacks discounts in order, taxes the discounted amount', () => {
    const p = priceCart(
      [{ unitPrice: 3750, quantity: 2 }, { unitPrice: 2500, quantity: 1 }],
      [{ kind: 'percentage', value: 1000 }, { kind: 'fixed_amount', value: 500 }],
      725,
    );
    expect(p.subtotal).toBe(10000);
    expect(p.discounts.map((d) => d.amount)).toEqual([1000, 500]);
    expect(p.discounts[1].allocations.reduce((a, b) => a + b, 0)).toBe(500);
    expect(p.discount).toBe(1500);
    expect(p.tax).toBe(roundHalfAwayFromZero(8500 * 0.0725));
    expect(p.total).toBe(8500 + p.tax);
    expect(p.lines.reduce((s, l) => s + l.total, 0)).toBe(8500);
  });

  it('caps a fixed discount at the amount left', () => {
    const p = priceCart([{ unitPrice: 300, quantity: 1 }], [{ kind: 'fixed_amount', value: 500 }], 0);
    expect(p.discount).toBe(300);
    expect(p.total).toBe(0);
    expect(p.tax).toBe(0);
  });
});

const FLASK: CustomizationDef[] = [
  { id: 'engraving', type: 'text', label: 'Engraving', required: true, min_length: 1, max_length: 20 },
  { id: 'gift_box', type: 'single_select', label: 'Gift box', required: true, options: [{ id: 'none', label: 'No' }, { id: 'kraft', label: 'Kraft', price_modifier: 300 }] },
  { id: 'extras', type: 'multi_select', label: 'Extras', required: false, min_selections: 1, max_selections: 2, options: [{ id: 'card', label: 'Card', price_modifier: 250 }, { id: 'ribbon', label: 'Ribbon', price_modifier: 150 }, { id: 'funnel', label: 'Funnel', price_modifier: 400 }] },
];

describe('customizations', () => {
  const v = (entries: Array<{ id: string; value: string }> | undefined, defs = FLASK) => validateCustomizations(defs, entries, '$.line_items[0]');

  it('accepts valid choices and sums price modifiers', () => {
    const r = v([{ id: 'engraving', value: 'For Sam' }, { id: 'gift_box', value: 'kraft' }, { id: 'extras', value: 'card' }, { id: 'extras', value: 'ribbon' }]);
    expect(r.issues).toEqual([]);
    expect(r.modifier).toBe(300 + 250 + 150);
    expect(r.accepted).toHaveLength(4);
  });

  it('names every offending field with a path and a stable code', () => {
    const r = v([{ id: 'engraving', value: 'x'.repeat(21) }, { id: 'bogus', value: 'a' }, { id: 'extras', value: 'card' }, { id: 'extras', value: 'ribbon' }, { id: 'extras', value: 'funnel' }]);
    const got = r.issues.map((i) => [i.code, i.path]);
    expect(got).toContainEqual(['customization_unknown', '$.line_items[0].customizations[1].id']);
    expect(got).toContainEqual(['customization_too_long', '$.line_items[0].customizations[0].value']);
    expect(got).toContainEqual(['customization_required', '$.line_items[0].customizations']);
    expect(got).toContainEqual(['customization_too_many_selections', '$.line_items[0].customizations[4]']);
  });

  it('rejects values that are not options, duplicates and repeated single selects', () => {
    const r = v([{ id: 'engraving', value: 'Hi' }, { id: 'gift_box', value: 'gold' }, { id: 'extras', value: 'card' }, { id: 'extras', value: 'card' }]);
    expect(r.issues.map((i) => [i.code, i.path])).toEqual([
      ['customization_invalid_option', '$.line_items[0].customizations[1].value'],
      ['customization_duplicate', '$.line_items[0].customizations[3].value'],
    ]);
    const two = v([{ id: 'engraving', value: 'Hi' }, { id: 'gift_box', value: 'none' }, { id: 'gift_box', value: 'kraft' }]);
    expect(two.issues.map((i) => i.code)).toEqual(['customization_too_many_selections']);
  });

  it('enforces min_selections only when something is chosen; counts code points', () => {
    const defs: CustomizationDef[] = [{ id: 'x', type: 'multi_select', label: 'X', required: true, min_selections: 2, options: [{ id: 'a', label: 'A' }, { id: 'b', label: 'B' }] }];
    expect(v([{ id: 'x', value: 'a' }], defs).issues.map((i) => i.code)).toEqual(['customization_too_few_selections']);
    const text: CustomizationDef[] = [{ id: 't', type: 'text', label: 'T', required: false, max_length: 2 }];
    expect(v([{ id: 't', value: '😀😀' }], text).issues).toEqual([]);
    expect(v([{ id: 't', value: '' }], text)).toMatchObject({ issues: [], accepted: [], modifier: 0 });
  });

  it('rejects customizations on a variant that has none', () => {
    expect(validateCustomizations(undefined, [{ id: 'a', value: 'b' }], '$.line_items[2]').issues).toEqual([
      { path: '$.line_items[2].customizations', code: 'customization_not_supported', content: expect.any(String) },
    ]);
  });
});

describe('discount codes', () => {
  const defs: StoredDiscount[] = [
    { code: 'WELCOME10', title: '10%', kind: 'percentage', value: 1000 },
    { code: 'SUMMER2024', title: 'x', kind: 'percentage', value: 2000, ends_at: '2024-09-01T00:00:00Z' },
    { code: 'BIGSPENDER', title: 'x', kind: 'fixed_amount', value: 2000, min_subtotal: 15000 },
  ];
  const now = new Date('2026-01-01T00:00:00Z');
  it('accepts case-insensitively and explains each rejection', () => {
    const r = evaluateCodes(['welcome10', 'nope', 'SUMMER2024', 'WELCOME10', 'bigspender'], defs, 10000, (d) => d.min_subtotal ?? 0, String, now);
    expect(r.accepted.map((a) => a.def.code)).toEqual(['WELCOME10']);
    expect(r.messages.map((m) => [m.code, m.path])).toEqual([
      ['discount_code_invalid', '$.discounts.codes[1]'],
      ['discount_code_expired', '$.discounts.codes[2]'],
      ['discount_code_already_applied', '$.discounts.codes[3]'],
      ['discount_code_min_subtotal_not_met', '$.discounts.codes[4]'],
    ]);
    expect(evaluateCodes(['BIGSPENDER'], defs, 15000, (d) => d.min_subtotal ?? 0, String, now).accepted).toHaveLength(1);
  });
});

describe('idempotency fingerprint', () => {
  it('ignores key order but not values', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: 1 }] })).toBe('{"a":[{"x":1,"y":2}],"b":1}');
    expect(fingerprint({ a: 1, b: 2 })).toBe(fingerprint({ b: 2, a: 1 }));
    expect(fingerprint({ a: 1 })).not.toBe(fingerprint({ a: 2 }));
  });
});
