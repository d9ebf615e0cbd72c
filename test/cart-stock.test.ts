/**
 * Stock in carts through the real server (docs/carts.md "Stock"): REST and MCP cap a line to what
 * is left with an `out_of_stock` warning, refuse a line with nothing left, re-check on every read,
 * and the merchant API's inventory changes are what the next read sees.
 */
import './support/localhost-dns.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { expectUcpValid } from './support/ucp-schemas.ts';
import { tokensFor } from './support/oauth.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';

let s: TestServer;
let token: string;
let readOnly: string;
beforeAll(async () => {
  s = await startTestServer();
  token = (await tokensFor(s, 'inventories_read inventories_write')).access_token;
  readOnly = (await tokensFor(s, 'inventories_read')).access_token;
});
afterAll(() => s.close());

const HOST = 'demo.localhost';
const PROFILE = 'https://platform.example/.well-known/ucp';
serveProfiles({ [PROFILE]: platformProfile() });

const create = (line_items: unknown[]) => s.req(HOST, 'POST', '/api/ucp/carts', { line_items });
const get = (id: string) => s.req(HOST, 'GET', `/api/ucp/carts/${id}`);
const update = (id: string, line_items: unknown[]) => s.req(HOST, 'PUT', `/api/ucp/carts/${id}`, { line_items });
const inventory = (method: string, variant: string, body?: unknown, t = token) =>
  s.req('localhost', method, `/merchants/shop_demo/3.0/inventory/${variant}`, body, { authorization: `Bearer ${t}` });
const FLASK = (quantity: number, engraving = 'JD') => ({ item: { id: 'var_flask_black' }, quantity, customizations: [{ id: 'engraving', value: engraving }, { id: 'gift_box', value: 'none' }] });
const stockMessages = (body: any) => (body.messages ?? []).filter((m: any) => m.code === 'out_of_stock');

describe('writes', () => {
  it('a line above the stock is capped to it, with an out_of_stock warning at its quantity (REST)', async () => {
    const r = await create([FLASK(999)]);
    expect(r.status).toBe(201);
    expectUcpValid('shopping/cart.json', r.body);
    expect(r.body.line_items[0].quantity).toBe(30);
    expect(r.body.line_items[0].totals.find((t: any) => t.type === 'subtotal').amount).toBe(30 * r.body.line_items[0].item.price);
    expect(stockMessages(r.body)).toEqual([{ type: 'warning', code: 'out_of_stock', path: '$.line_items[0].quantity', content: expect.stringMatching(/Only 30 .* instead of 999/) }]);
    // Stored capped: the next read promises 30 and has nothing more to say.
    const again = await get(r.body.id);
    expect(again.body.line_items[0].quantity).toBe(30);
    expect(stockMessages(again.body)).toEqual([]);
  });

  it('two lines of one variant share its stock; a line with nothing left refuses the request', async () => {
    const r = await create([FLASK(20, 'A'), FLASK(20, 'B')]);
    expect(r.body.line_items.map((l: any) => l.quantity)).toEqual([20, 10]);
    expect(stockMessages(r.body)[0].path).toBe('$.line_items[1].quantity');
    const none = await create([FLASK(30, 'A'), FLASK(1, 'B')]);
    expect(none.status).toBe(200);
    expectUcpValid('shopping/types/error_response.json', none.body);
    expect(none.body.messages).toEqual([expect.objectContaining({ type: 'error', code: 'out_of_stock', path: '$.line_items[1].quantity', severity: 'recoverable' })]);
  });

  it('is worded in the cart language', async () => {
    const r = await s.req(HOST, 'POST', '/api/ucp/carts', { line_items: [FLASK(100)], context: { language: 'fr' } });
    expect(stockMessages(r.body)[0].content).toMatch(/Seulement 30 disponible/);
  });

  it('MCP create_cart caps the same way', async () => {
    const r = await s.req(HOST, 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_cart', arguments: { meta: { 'ucp-agent': { profile: PROFILE } }, cart: { line_items: [FLASK(500)] } } } }, { accept: 'application/json' });
    const cart = r.body.result.structuredContent;
    expectUcpValid('shopping/cart.json', cart);
    expect(cart.line_items[0].quantity).toBe(30);
    expect(stockMessages(cart)[0]).toMatchObject({ type: 'warning', path: '$.line_items[0].quantity' });
  });
});

describe('reads follow the inventory the merchant API sets', () => {
  it('lower stock caps the read; none left is an error on the line; restocking clears both', async () => {
    const created = await create([{ item: { id: 'var_candle_cedar' }, quantity: 10 }]);
    const id = created.body.id;
    expect((await inventory('PUT', 'var_candle_cedar', { available: 4 })).body).toMatchObject({ variant_id: 'var_candle_cedar', tracked: true, on_hand: 4, available: 4, status: 'in_stock' });
    const low = await get(id);
    expectUcpValid('shopping/cart.json', low.body);
    expect(low.body.line_items[0].quantity).toBe(4);
    expect(stockMessages(low.body)).toEqual([expect.objectContaining({ type: 'warning', path: '$.line_items[0].quantity' })]);

    await inventory('PUT', 'var_candle_cedar', { adjust: -4 });
    const none = await get(id);
    expectUcpValid('shopping/cart.json', none.body);
    expect(none.body.line_items[0].quantity).toBe(10);
    expect(stockMessages(none.body)).toEqual([expect.objectContaining({ type: 'error', path: '$.line_items[0]', severity: 'recoverable' })]);
    const product = await s.req(HOST, 'POST', '/api/ucp/catalog/product', { id: 'var_candle_cedar' });
    expect(product.body.product.variants[0].availability).toEqual({ available: false, status: 'out_of_stock' });

    expect((await inventory('PUT', 'var_candle_cedar', { adjust: 25 })).body.available).toBe(25);
    const back = await get(id);
    expect(back.body.line_items[0].quantity).toBe(10);
    expect(stockMessages(back.body)).toEqual([]);
    const p2 = await s.req(HOST, 'POST', '/api/ucp/catalog/product', { id: 'var_candle_cedar' });
    expect(p2.body.product.variants[0]).toMatchObject({ availability: { available: true, status: 'in_stock' }, metadata: { quantity_available: 25 } });
  });

  it('an update is capped against the stock of that moment', async () => {
    const created = await create([{ item: { id: 'var_candle_fig' }, quantity: 1 }]);
    await inventory('PUT', 'var_candle_fig', { available: 2 });
    const r = await update(created.body.id, [{ item: { id: 'var_candle_fig' }, quantity: 5 }]);
    expect(r.body.line_items[0].quantity).toBe(2);
    expect(stockMessages(r.body)).toHaveLength(1);
  });
});

describe('merchant inventory API', () => {
  it('reads a level; untracked variants say so; null stops tracking', async () => {
    const r = await inventory('GET', 'var_flask_steel', undefined, readOnly);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ variant_id: 'var_flask_steel', product_id: 'prod_engraved_flask', sku: expect.any(String), tracked: true, on_hand: 50, available: 50, status: 'in_stock' });
    expect((await inventory('PUT', 'var_tee_l_navy', { available: null })).body).toMatchObject({ tracked: false, available: null, status: 'in_stock' });
    const big = await create([{ item: { id: 'var_tee_l_navy' }, quantity: 999 }]);
    expect(big.body.line_items[0].quantity).toBe(999);
  });

  it('refuses bad bodies with field paths, unknown variants with 404, writes without the write scope with 403', async () => {
    for (const body of [{}, { available: -1 }, { available: 1.5 }, { available: 1, adjust: 1 }, { adjust: 'x' }, []]) {
      const r = await inventory('PUT', 'var_flask_steel', body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error.code).toBe('validation_failed');
    }
    const below = await inventory('PUT', 'var_flask_steel', { adjust: -51 });
    expect(below.status).toBe(422);
    expect(below.body.error.details[0]).toMatchObject({ path: '$.adjust', code: 'insufficient_inventory' });
    expect((await inventory('GET', 'var_flask_steel')).body.on_hand).toBe(50); // nothing half-written
    expect((await inventory('GET', 'var_nope')).status).toBe(404);
    expect((await inventory('PUT', 'var_nope', { available: 1 })).status).toBe(404);
    const denied = await inventory('PUT', 'var_flask_steel', { available: 1 }, readOnly);
    expect(denied.status).toBe(403);
    expect(denied.body.error.required_scope).toBe('inventories_write');
  });

  it('orders check the same rule', async () => {
    const t = (await tokensFor(s, 'sales_write customers_write')).access_token;
    const cus = await s.req('localhost', 'POST', '/merchants/shop_demo/3.0/customers', { email: 'stock@example.com', first_name: 'S', last_name: 'T' }, { authorization: `Bearer ${t}` });
    const order = await s.req('localhost', 'POST', '/merchants/shop_demo/3.0/orders', { customer_id: cus.body.id, items: [{ variant_id: 'var_tee_s_white', quantity: 41 }] }, { authorization: `Bearer ${t}` });
    expect(order.status).toBe(422);
    expect(order.body.error.details[0]).toMatchObject({ path: '$.items[0].quantity', code: 'insufficient_inventory' });
  });
});
