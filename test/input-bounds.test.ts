/**
 * Everything a caller can store is bounded (docs/carts.md "Limits"): any string in a UCP request
 * (extension fields included) by MAX_UCP_STRING_LENGTH, each open object (buyer, context, signals,
 * attribution) by MAX_OPEN_OBJECT_BYTES, the whole cart request by MAX_CART_REQUEST_BYTES, nesting
 * by MAX_DEPTH. Over a bound: 400 naming the field, nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { MAX_CART_REQUEST_BYTES, MAX_LINE_ITEMS, MAX_OPEN_OBJECT_BYTES } from '../src/wire/cart.ts';
import { MAX_DEPTH, MAX_UCP_STRING_LENGTH } from '../src/wire/input.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

const LINE = { item: { id: 'var_tee_s_white' }, quantity: 1 };
const carts = async () => (await s.db.selectFrom('carts').select('id').execute()).length;
const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { n: nested(depth - 1) });

describe('stored input is bounded', () => {
  const over: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['a long extension string in buyer', { buyer: { blob: 'x'.repeat(MAX_UCP_STRING_LENGTH + 1) } }, '$.buyer.blob', /at most 4096 characters/],
    ['a buyer over its JSON budget', { buyer: { a: 'x'.repeat(3000), b: 'y'.repeat(3000) } }, '$.buyer', /buyer must be at most 4096 bytes/],
    ['context over its budget', { context: { intent: 'x'.repeat(1000), more: 'z'.repeat(3500) } }, '$.context', /context must be at most/],
    ['signals over their budget', { signals: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, 'v'.repeat(20)])) }, '$.signals', /signals must be at most/],
    ['attribution over its budget', { attribution: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, 'v'.repeat(20)])) }, '$.attribution', /attribution must be at most/],
    ['nesting deeper than allowed', { signals: { deep: nested(MAX_DEPTH + 2) } }, '$.signals.deep', /Nested deeper than 32/],
  ];
  it.each(over)('%s → 400 at its path, nothing stored', async (_name, extra, path, message) => {
    const before = await carts();
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [LINE], ...extra });
    expect(r.status).toBe(400);
    const m = r.body.messages.find((x: any) => x.path.startsWith(path));
    expect(m, JSON.stringify(r.body.messages)).toBeDefined();
    expect(m.content).toMatch(message);
    expect(await carts()).toBe(before);
  });

  it('a whole cart request over its budget → 400 at $, nothing stored; the largest honest cart fits', async () => {
    const before = await carts();
    const extras = Array.from({ length: 50 }, (_, i) => ({ id: `x${i}`, value: 'v'.repeat(60) }));
    const huge = { line_items: Array.from({ length: MAX_LINE_ITEMS }, () => ({ ...LINE, customizations: extras })) };
    expect(JSON.stringify(huge).length).toBeGreaterThan(MAX_CART_REQUEST_BYTES);
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/carts', huge);
    expect(r.status).toBe(400);
    expect(r.body.messages.map((m: any) => m.path)).toContain('$');
    expect(await carts()).toBe(before);
    const full = await s.req('demo.localhost', 'POST', '/api/ucp/carts', {
      // Gift cards: no stock limit (server/core/products/stock.ts), so 100 lines of them are an honest cart.
      line_items: Array.from({ length: MAX_LINE_ITEMS }, (_, i) => ({ item: { id: ['var_gift_card_25', 'var_gift_card_50', 'var_gift_card_100'][i % 3] }, quantity: 1 })),
      buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
      context: { address_country: 'GB', intent: 'a gift' },
    });
    expect(full.status).toBe(201);
  });

  it('an update over a bound leaves the cart as it was', async () => {
    const created = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [LINE], buyer: { first_name: 'Ada' } });
    const r = await s.req('demo.localhost', 'PUT', `/api/ucp/carts/${created.body.id}`, { line_items: [LINE], buyer: { first_name: 'Ada', note: 'n'.repeat(MAX_OPEN_OBJECT_BYTES) } });
    expect(r.status).toBe(400);
    expect((await s.req('demo.localhost', 'GET', `/api/ucp/carts/${created.body.id}`)).body.buyer).toEqual({ first_name: 'Ada' });
  });
});
