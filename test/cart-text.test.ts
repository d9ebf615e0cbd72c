/**
 * What the descriptions say about get and cancel is what the server does (issue 30: the tool
 * descriptions and the OpenAPI text said a canceled cart answers `not_found`; it answers an empty
 * cart, docs/carts.md "Cancel"). The behaviour is checked first, then the words of every place an
 * agent reads them: MCP `tools/list`, the OpenAPI document, and the WebMCP tool list (where the page
 * lets go of the canceled cart, so its own get_cart does answer `not_found`).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const HOST = 'demo.localhost';
type Described = { name: string; description: string };

async function mcpTools(): Promise<Described[]> {
  const r = await s.req(HOST, 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json' });
  expect(r.status).toBe(200);
  return r.body.result.tools;
}
async function openApiOperations(): Promise<Described[]> {
  const doc = (await s.req(HOST, 'GET', '/api/ucp/openapi.json')).body;
  return [
    { name: 'get_cart', description: doc.paths['/carts/{id}'].get.description },
    { name: 'cancel_cart', description: doc.paths['/carts/{id}/cancel'].post.description },
  ];
}
const text = (list: Described[], name: string) => list.find((t) => t.name === name)!.description;

describe('cancel, then get', () => {
  it('a canceled cart is emptied, not deleted: get returns it with no lines, same id and codes', async () => {
    const created = await s.req(HOST, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_m_white' }, quantity: 2 }], discounts: { codes: ['WELCOME10'] } });
    expect(created.status).toBe(201);
    const canceled = await s.req(HOST, 'POST', `/api/ucp/carts/${created.body.id}/cancel`, {}, { 'Idempotency-Key': randomUUID() });
    expect(canceled.status).toBe(200);
    expect(canceled.body.line_items).toHaveLength(1);
    const after = await s.req(HOST, 'GET', `/api/ucp/carts/${created.body.id}`);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ id: created.body.id, line_items: [], discounts: { codes: ['WELCOME10'] } });
    expect(after.body.messages ?? []).not.toContainEqual(expect.objectContaining({ code: 'not_found' }));
    // update_cart fills it again.
    const refilled = await s.req(HOST, 'PUT', `/api/ucp/carts/${created.body.id}`, { line_items: [{ item: { id: 'var_tee_m_white' }, quantity: 1 }] });
    expect(refilled.body.line_items).toHaveLength(1);
    // An unknown id is the `not_found` the descriptions keep for it.
    const unknown = await s.req(HOST, 'GET', '/api/ucp/carts/cart_unknown');
    expect(unknown.body.messages[0].code).toBe('not_found');
  });
});

describe('the words say so', () => {
  it.each([
    ['MCP tools/list', mcpTools],
    ['the OpenAPI document', openApiOperations],
  ])('%s: cancel empties and keeps the cart; get returns a canceled cart empty', async (_where, list) => {
    const tools = await list();
    const cancel = text(tools, 'cancel_cart');
    const get = text(tools, 'get_cart');
    expect(cancel).toMatch(/not deleted/);
    expect(cancel).toMatch(/get_cart returns it with no line items/);
    expect(cancel).not.toMatch(/\(delete\)|later calls see `not_found`/);
    expect(get).toMatch(/canceled cart is not gone: it comes back with no line items/);
    expect(get).toMatch(/unknown or expired cart is a `not_found`/);
    expect(get).not.toMatch(/canceled carts? (return|is) a `not_found`/i);
  });

  it('WebMCP: the page lets go of a canceled cart, so its own get_cart answers not_found', async () => {
    const tools = (await s.req(HOST, 'GET', '/ucp/webmcp.json')).body.tools as Described[];
    expect(text(tools, 'cancel_cart')).toMatch(/the shop empties it and the page lets go of it/);
    expect(text(tools, 'cancel_cart')).toMatch(/get_cart here answers `not_found` until create_cart starts a new one/);
    expect(text(tools, 'cancel_cart')).not.toMatch(/\(delete\)/);
    expect(text(tools, 'get_cart')).toMatch(/`not_found` when the shopper has none \(none yet, or after cancel_cart\)/);
  });
});
