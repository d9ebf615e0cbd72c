/**
 * Errors a model can act on (docs/mcp.md "Which failures are results and which are errors"), driven
 * with the official MCP SDK client as an agent host drives it: input mistakes come back as results
 * (`isError`) the client hands to the model, business outcomes as results with UCP messages, and
 * JSON-RPC errors only where UCP or JSON-RPC call for them — never as an HTTP failure the client
 * reports as a broken transport. Also: malformed `tools/call` params (-32602, readable), every
 * input field described, and `serverInfo.version`.
 *
 * Everything here runs in both protocol eras (docs/mcp.md "Eras"), one `describe.each(ERAS)`: the
 * client in its default 2025 handshake and pinned to 2026-07-28, the raw POSTs in each era's form
 * (test/support/mcp-eras.ts); the same results, errors and messages in both. One case is 2025-only.
 */
import './support/localhost-dns.mjs';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtocolError, type Client } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from './support/server.ts';
import { expectUcpValid } from './support/ucp-schemas.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';
import { connectInEra, ERAS, LEGACY, rawRequest } from './support/mcp-eras.ts';

let s: TestServer;
const PROFILE = 'https://platform.example/.well-known/ucp';
serveProfiles({ [PROFILE]: platformProfile() });
const meta = { 'ucp-agent': { profile: PROFILE } };

beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

type Msg = { type: string; code?: string; path?: string; content: string; severity?: string };
const messagesOf = (r: Awaited<ReturnType<Client['callTool']>>) => (r.structuredContent as { messages: Msg[] }).messages;
const textOf = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text: string }>).map((c) => c.text).join('\n');

describe.each(ERAS)('$era era', ({ era }) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectInEra(new URL(`http://demo.localhost:${s.port}/mcp`), era, 'mcp-errors-test');
  });
  afterAll(() => client?.close());

  describe('input mistakes are isError results the client returns (not throws)', () => {
    it('a wrong type names the path and what the field takes', async () => {
      const r = await client.callTool({ name: 'create_cart', arguments: { meta, cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 'two' }] } } });
      expect(r.isError).toBe(true);
      expectUcpValid('shopping/types/error_response.json', r.structuredContent);
      const [m] = messagesOf(r);
      expect(m).toMatchObject({ type: 'error', path: '$.cart.line_items[0].quantity', severity: 'recoverable' });
      expect(textOf(r)).toContain('$.cart.line_items[0].quantity');
    });

    it('a missing field beside an unknown one names the fields that object takes', async () => {
      const r = await client.callTool({ name: 'create_cart', arguments: { meta, cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, qty: 2 }] } } });
      expect(r.isError).toBe(true);
      const m = messagesOf(r).find((x) => x.path === '$.cart.line_items[0].quantity')!;
      expect(m.content).toMatch(/Unknown field here: qty; this object takes id, item, quantity, customizations, parent_id/);
      expect(m.content).toMatch(/How many, 1 to 999/);
    });

    it('an unknown argument names the arguments the tool takes', async () => {
      const r = await client.callTool({ name: 'search_catalog', arguments: { meta, query: 'flask' } });
      expect(r.isError).toBe(true);
      const m = messagesOf(r).find((x) => x.path === '$.query')!;
      expect(m.code).toBe('unknown_argument');
      expect(m.content).toContain('search_catalog takes meta, catalog');
      expect(textOf(r)).toContain('catalog (The catalog request');
    });

    it('cancel_cart without an idempotency key says to send a UUID', async () => {
      const r = await client.callTool({ name: 'cancel_cart', arguments: { meta, id: 'cart_x' } });
      expect(r.isError).toBe(true);
      expect(messagesOf(r)[0]).toMatchObject({ code: 'idempotency_key_required', path: "$.meta['idempotency-key']" });
      expect(textOf(r)).toMatch(/UUID/);
    });
  });

  describe('business outcomes are isError results with messages that say what to send', () => {
    it('a product id where a variant id is needed names that product\'s variant ids', async () => {
      const r = await client.callTool({ name: 'create_cart', arguments: { meta, cart: { line_items: [{ item: { id: 'prod_engraved_flask' }, quantity: 1 }] } } });
      expect(r.isError).toBe(true);
      const [m] = messagesOf(r);
      expect(m).toMatchObject({ code: 'not_found', path: '$.line_items[0].item.id' });
      expect(m.content).toMatch(/'prod_engraved_flask' is a product id; a cart line takes a variant id\. Its variants: var_flask_\w+/);
      // REST says the same (one core).
      const rest = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'prod_engraved_flask' }, quantity: 1 }] });
      expect(rest.body.messages[0].content).toBe(m.content);
    });
  });

  describe('JSON-RPC errors arrive as ProtocolError (HTTP 200), never as a transport failure', () => {
    const rejection = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (e) {
        return e;
      }
      throw new Error('expected a rejection');
    };

    it('an unknown tool is -32602 naming the offered tools', async () => {
      const e = await rejection(client.callTool({ name: 'teleport', arguments: { meta } }));
      expect(e).toBeInstanceOf(ProtocolError);
      expect((e as ProtocolError).code).toBe(-32602);
      expect((e as ProtocolError).message).toMatch(/Offered: search_catalog/);
    });

    it('an oversized lookup batch is -32602 request_too_large (the UCP binding)', async () => {
      const ids = Array.from({ length: 51 }, (_, i) => `id_${i}`);
      const e = await rejection(client.callTool({ name: 'lookup_catalog', arguments: { meta, catalog: { ids } } }));
      expect(e).toBeInstanceOf(ProtocolError);
      expect((e as ProtocolError).code).toBe(-32602);
      expect((e as ProtocolError).data).toMatchObject({ code: 'request_too_large' });
    });
  });

  describe('malformed tools/call params (issue 14, item 6)', () => {
    const post = (params: unknown) => {
      const req = rawRequest(era, 7, 'tools/call', params);
      return s.req('demo.localhost', 'POST', '/mcp', req.body, { accept: 'application/json', ...req.headers });
    };

    it.each<[string, unknown, RegExp]>([
      ['arguments null', { name: 'search_catalog', arguments: null }, /params\.arguments must be an object, not null/],
      ['arguments an array', { name: 'search_catalog', arguments: [1, 2] }, /params\.arguments must be an object, not an array/],
      ['name missing', { arguments: { meta } }, /params\.name must be a tool name/],
      ['name not a string', { name: 42, arguments: { meta } }, /params\.name must be a tool name/],
      // 2025 only: params that are not an object cannot carry the 2026-07-28 envelope.
      ...(era === LEGACY ? [['params an array', [1], /params must be an object/] as [string, unknown, RegExp]] : []),
    ])('%s → -32602 with a readable message', async (_label, params, message) => {
      const r = await post(params);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
      expect(r.body.error.message).toMatch(message);
      expect(r.body.error.message).toContain('tools/list names the tools');
      expect(r.text).not.toMatch(/"expected"|invalid_type|ZodError/);
    });
  });

  describe('tools/list reads as documentation', () => {
    // From initialize's serverInfo in 2025, from server/discover's _meta["io.modelcontextprotocol/serverInfo"] in 2026-07-28.
    it('serverInfo.version is the package version', () => {
      const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
      expect(client.getServerVersion()).toMatchObject({ name: 'ucp-storefront', version: pkg.version });
    });

    it('every input field of every tool has a description', async () => {
      const { tools } = await client.listTools();
      const missing: string[] = [];
      const walk = (schema: any, path: string) => {
        for (const [k, v] of Object.entries<any>(schema?.properties ?? {})) {
          const p = `${path}.${k}`;
          if (typeof v.description !== 'string' || v.description.length < 8) missing.push(p);
          walk(v, p);
        }
        if (schema?.items) walk(schema.items, `${path}[]`);
      };
      for (const t of tools) walk(t.inputSchema, t.name);
      expect(missing).toEqual([]);
      const create = tools.find((t) => t.name === 'create_cart')!;
      const item = (create.inputSchema as any).properties.cart.properties.line_items.items.properties.item.properties.id;
      expect(item.description).toMatch(/variant id/);
    });
  });
});
