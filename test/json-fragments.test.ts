/**
 * server/lib/json-fragments.ts: a body written from remembered texts is exactly JSON.stringify's
 * text of it, and a remembered object cannot change under its text.
 */
import { describe, expect, it } from 'vitest';
import { serializedOnce, toJson, toJsonBytes, toJsonWithEscaped } from '../server/lib/json-fragments.ts';

describe('toJson', () => {
  const product = () => serializedOnce({ id: 'p1', title: 'Flask "steel" \u2028', variants: [{ id: 'v1', price: { amount: 1, currency: 'USD' } }], tags: undefined });

  it('equals JSON.stringify for bodies with remembered items, plain values, undefined and nulls', () => {
    const bodies: object[] = [
      { ucp: { version: '2026-04-08' }, products: [product(), product()], pagination: { has_next_page: false } },
      { products: [product(), { id: 'plain', n: null }, null], skipped: undefined, f: () => 1, empty: [], nested: { products: [product()] } },
      { only: product() },
      product(),
      {},
      // eslint-disable-next-line no-sparse-arrays
      { products: [product(), , Symbol('s'), undefined, product()], s: Symbol('t') },
    ];
    for (const body of bodies) expect(toJson(body)).toBe(JSON.stringify(body));
  });

  it('the escaped form is the text as the contents of a JSON string, first and later times alike (MCP answers)', () => {
    const p = product();
    const bodies: object[] = [
      { ucp: { version: '2026-04-08' }, products: [p, product()], note: 'back\\slash "q" \n \u2028 ✓' },
      p,
      { products: [p, null, 'x'] },
      {},
    ];
    for (let round = 0; round < 2; round++) {
      for (const body of bodies) {
        const { text, escaped } = toJsonWithEscaped(body);
        expect(text).toBe(JSON.stringify(body));
        expect(`"${escaped}"`).toBe(JSON.stringify(text));
        expect(JSON.parse(JSON.parse(`"${escaped}"`))).toEqual(JSON.parse(JSON.stringify(body)));
      }
    }
  });

  it('the bytes are the UTF-8 of that text, first and later times alike (REST answers)', () => {
    const p = serializedOnce({ id: 'p2', title: 'Café ✓ 😀 "q"', variants: [] });
    const bodies: object[] = [{ ucp: { version: '2026-04-08' }, products: [p, product(), p], note: 'é \u2028 ✓' }, p, {}, { products: [] }];
    for (let round = 0; round < 2; round++) {
      for (const body of bodies) expect(toJsonBytes(body).equals(Buffer.from(JSON.stringify(body)))).toBe(true);
    }
  });

  it('freezes what it remembers, deeply: the text stays the object', () => {
    const p = product();
    expect(() => {
      (p as { id: string }).id = 'changed';
    }).toThrow(TypeError);
    expect(() => {
      p.variants[0].price.amount = 2;
    }).toThrow(TypeError);
    expect(toJson({ products: [p] })).toBe(JSON.stringify({ products: [p] }));
  });
});
