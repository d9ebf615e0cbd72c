/**
 * The demo's scenario fixtures as docs/sandbox.md, the start banner and the MCP `instructions`
 * state them (server/seed/fixtures.ts): each claim holds on the running demo shop, and the
 * instructions carry them on a development server only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { DEMO_FIXTURES } from '../server/seed/fixtures.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const line = (id: string, quantity = 1) => ({ item: { id }, quantity });
const cart = (lines: unknown[], codes?: string[]) => s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: lines, ...(codes ? { discounts: { codes } } : {}) });
const messages = (body: any) => (body.messages ?? []).map((m: any) => [m.type, m.code, m.path]);

describe('demo fixtures', () => {
  it('discount codes: WELCOME10 10 %, SAVE5 $5, BIGSPENDER only from $150, SUMMER2024 expired', async () => {
    const small = await cart([line('var_tee_m_navy')], ['WELCOME10', 'SAVE5', 'BIGSPENDER', 'SUMMER2024', 'NOPE']);
    expect(small.status).toBe(201);
    expect(small.body.discounts.applied.map((a: any) => [a.code, a.amount])).toEqual([['WELCOME10', 250], ['SAVE5', 500]]);
    expect(messages(small.body)).toEqual([
      ['warning', 'discount_code_min_subtotal_not_met', '$.discounts.codes[2]'],
      ['warning', 'discount_code_expired', '$.discounts.codes[3]'],
      ['warning', 'discount_code_invalid', '$.discounts.codes[4]'],
    ]);
    const big = await cart([line('var_tee_m_navy', 6)], ['BIGSPENDER']); // $150.00
    expect(big.body.discounts.applied.map((a: any) => [a.code, a.amount])).toEqual([['BIGSPENDER', 2000]]);
  });

  it('stock: the journal caps at 2, the sweater is out of stock, the lantern (pre-order) and the lamp (backorder) take any quantity', async () => {
    const capped = await cart([line('var_journal_black', 3)]);
    expect(capped.body.line_items[0].quantity).toBe(2);
    expect(messages(capped.body)).toEqual([['warning', 'out_of_stock', '$.line_items[0].quantity']]);
    expect(messages((await cart([line('var_merino_s_navy')])).body)).toEqual([['error', 'out_of_stock', '$.line_items[0].item.id']]);
    for (const id of ['var_lantern', 'var_lamp']) {
      const r = await cart([line(id, 7)]);
      expect(r.status).toBe(201);
      expect(r.body.line_items[0].quantity).toBe(7);
    }
    const lantern = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/product', { id: 'prod_camp_lantern' });
    expect(lantern.body.product.variants[0].availability.status).toBe('preorder');
    const lamp = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/product', { id: 'prod_brass_desk_lamp' });
    expect(lamp.body.product.variants[0].availability.status).toBe('backorder');
  });

  it('the flask variant requires its customizations', async () => {
    expect(messages((await cart([line('var_flask_steel')])).body)).toEqual([
      ['error', 'customization_required', '$.line_items[0].customizations'],
      ['error', 'customization_required', '$.line_items[0].customizations'],
    ]);
  });
});

describe('MCP instructions', () => {
  const initialize = (srv: TestServer, host = 'demo.localhost') =>
    srv.req(host, 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }, { accept: 'application/json' });

  it('a development demo shop names itself a sandbox and lists its fixtures; production does not', async () => {
    const dev = (await initialize(s)).body.result.instructions as string;
    expect(dev).toContain('development sandbox');
    expect(dev).toContain(DEMO_FIXTURES);
    const prod = await startTestServer({ mode: 'production', seedDemo: true });
    try {
      const text = (await initialize(prod)).body.result.instructions as string;
      expect(text).toMatch(/^Universal Commerce Protocol/);
      expect(text).not.toContain('sandbox');
      expect(text).not.toContain('WELCOME10');
    } finally {
      await prod.close();
    }
  });

  it("another development shop is a sandbox too, without the demo's fixtures", async () => {
    const other = (await initialize(s, 'strict.localhost')).body.result.instructions as string;
    expect(other).toContain('development sandbox');
    expect(other).not.toContain('WELCOME10');
  });
});
