/**
 * The amounts a shopper reads add up (src/format/amounts.ts, docs/carts.md "What a line shows"):
 * a line shows its amount before discounts, so the lines add up to the Subtotal, and Subtotal −
 * discounts + tax = Total; the same on the checkout handoff pages, in every currency.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { lineAmount, signedAmount } from '../src/format/amounts.ts';
import { formatMoney } from '../server/core/shared/money.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

const FLASK = { item: { id: 'var_flask_steel' }, quantity: 2, customizations: [{ id: 'engraving', value: 'For Sam' }, { id: 'gift_box', value: 'kraft' }] };
const TEE = { item: { id: 'var_tee_m_navy' }, quantity: 3 };
const row = (cart: any, type: string) => cart.totals.find((t: any) => t.type === type);

describe('lineAmount / signedAmount', () => {
  it('a line shows its subtotal (before discounts), never its total after its share of a code', () => {
    const line = { item: { price: 5244 }, quantity: 2, totals: [{ type: 'subtotal', amount: 10488 }, { type: 'items_discount', amount: -1356 }, { type: 'total', amount: 9132 }] };
    expect(lineAmount(line)).toBe(10488);
    // A cart that carries no line totals (a handed-over cart may omit them): unit price × quantity.
    expect(lineAmount({ item: { price: 250 }, quantity: 3, totals: [] })).toBe(750);
  });

  it('discount rows read negative whichever sign they carry; other rows as they are', () => {
    expect(signedAmount({ type: 'items_discount', amount: -890 })).toBe(-890);
    expect(signedAmount({ type: 'discount', amount: 890 })).toBe(-890);
    expect(signedAmount({ type: 'tax', amount: 120 })).toBe(120);
    expect(signedAmount({ type: 'total', amount: 8010 })).toBe(8010);
  });
});

describe('rendered carts add up', () => {
  for (const currency of ['USD', 'EUR']) {
    it(`${currency}: lines = Subtotal, Subtotal − discounts + tax = Total, line = unit × quantity`, async () => {
      const r = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [FLASK, TEE], context: { currency }, discounts: { codes: ['WELCOME10', 'SAVE5'] } });
      expect(r.status).toBe(201);
      const cart = r.body;
      expect(cart.currency).toBe(currency);
      expect(row(cart, 'items_discount')).toBeDefined(); // the codes applied: there is a discount to hide
      for (const l of cart.line_items) expect(lineAmount(l)).toBe(l.item.price * l.quantity);
      const lines = cart.line_items.reduce((n: number, l: any) => n + lineAmount(l), 0);
      expect(lines).toBe(row(cart, 'subtotal').amount);
      const rows = cart.totals.filter((t: any) => t.type !== 'total').reduce((n: number, t: any) => n + signedAmount(t), 0);
      expect(rows).toBe(row(cart, 'total').amount);
    });
  }

  it('the handoff preview shows each line as unit × quantity and the totals as the cart has them', async () => {
    const created = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [FLASK], context: { currency: 'EUR' }, discounts: { codes: ['WELCOME10'] } });
    const cart = created.body;
    const origin = `http://demo.localhost:${s.port}`;
    const preview = await s.req('demo.localhost', 'POST', '/handoff-preview', new URLSearchParams({ cart: JSON.stringify(cart), cart_id: cart.id }).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
      origin,
      'sec-fetch-site': 'same-origin',
    });
    expect(preview.status).toBe(200);
    const fmt = (n: number) => formatMoney(n, 'EUR', 'en').replace(/&/g, '&amp;');
    const [line] = cart.line_items;
    const cells = [...preview.text.matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1]);
    // Quantity, unit price, line amount (= 2 × unit, before the code), then Subtotal, Discounts, Total.
    expect(cells.slice(0, 3)).toEqual(['2', fmt(line.item.price), fmt(line.item.price * 2)]);
    expect(cells.slice(3)).toEqual([fmt(row(cart, 'subtotal').amount), fmt(-Math.abs(row(cart, 'items_discount').amount)), fmt(row(cart, 'total').amount)]);
  });
});
