/** The stock rule (server/core/products/stock.ts), pure: units a buyer may take and how lines share them. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { allotStock, availabilityStatus, isAvailable, unitsAvailable } from '../server/core/products/stock.ts';

describe('unitsAvailable', () => {
  it('follows the count, and the status where it overrides it', () => {
    expect(unitsAvailable({})).toBeNull();
    expect(unitsAvailable({ inventory: 50 })).toBe(50);
    expect(unitsAvailable({ inventory: 0 })).toBe(0);
    expect(unitsAvailable({ inventory: 50, status: 'in_stock' })).toBe(50);
    expect(unitsAvailable({ inventory: 50, status: 'out_of_stock' })).toBe(0);
    expect(unitsAvailable({ inventory: 50, status: 'discontinued' })).toBe(0);
    expect(unitsAvailable({ inventory: 0, status: 'backorder' })).toBeNull();
    expect(unitsAvailable({ inventory: 0, status: 'preorder' })).toBeNull();
  });

  it('availability agrees with it', () => {
    expect(isAvailable({ inventory: 0 })).toBe(false);
    expect(isAvailable({ inventory: 0, status: 'backorder' })).toBe(true);
    expect(availabilityStatus({ inventory: 3 })).toBe('in_stock');
    expect(availabilityStatus({ inventory: 0 })).toBe('out_of_stock');
    expect(availabilityStatus({ inventory: 0, status: 'in_stock' })).toBe('out_of_stock');
    expect(availabilityStatus({ inventory: 0, status: 'preorder' })).toBe('preorder');
  });
});

describe('allotStock', () => {
  it('caps a line to what is left and says how many were left', () => {
    expect(allotStock([{ variantId: 'a', quantity: 999 }], new Map([['a', 50]]))).toEqual([{ quantity: 50, capped: 50 }]);
    expect(allotStock([{ variantId: 'a', quantity: 5 }], new Map([['a', 50]]))).toEqual([{ quantity: 5 }]);
  });

  it('lines of one variant share its stock in order; untracked variants are unlimited', () => {
    const stock = new Map<string, number | null>([['a', 10], ['b', null]]);
    expect(allotStock([{ variantId: 'a', quantity: 6 }, { variantId: 'b', quantity: 900 }, { variantId: 'a', quantity: 6 }, { variantId: 'a', quantity: 1 }], stock)).toEqual([
      { quantity: 6 },
      { quantity: 900 },
      { quantity: 4, capped: 4 },
      { quantity: 0, capped: 0 },
    ]);
    expect(allotStock([{ variantId: 'unknown', quantity: 3 }], stock)).toEqual([{ quantity: 3 }]);
  });

  it('never gives more than the stock in total, nor more than asked', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ variantId: fc.constantFrom('a', 'b'), quantity: fc.integer({ min: 1, max: 999 }) }), { maxLength: 20 }), fc.nat(2000), fc.nat(2000), (lines, a, b) => {
        const out = allotStock(lines, new Map([['a', a], ['b', b]]));
        for (const [id, n] of [['a', a], ['b', b]] as const) {
          const given = out.filter((_, i) => lines[i].variantId === id).reduce((s, x) => s + x.quantity, 0);
          const asked = lines.filter((l) => l.variantId === id).reduce((s, l) => s + l.quantity, 0);
          expect(given).toBe(Math.min(n, asked));
        }
        out.forEach((x, i) => expect(x.quantity <= lines[i].quantity && (x.capped === undefined) === (x.quantity === lines[i].quantity)).toBe(true));
      }),
    );
  });
});
