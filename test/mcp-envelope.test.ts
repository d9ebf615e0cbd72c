/**
 * The JSON-RPC envelope on /mcp (issue 29): method names from `Object.prototype`, repeated, missing
 * and odd ids, batches mixing requests and notifications, `_meta` of the wrong type. Every request
 * gets a JSON-RPC answer within a deadline, never a 5xx, and the pooled servers are all returned; a
 * lone plain request, which skips the SDK's server, is answered as it would be in a batch.
 * docs/mcp.md "Batches and ids" states the rules these tests hold the server to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestResponse, type TestServer } from './support/server.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';
import { mcpServersInUse } from '../server/mcp/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const PROFILE = 'https://platform.example/.well-known/ucp';
serveProfiles({ [PROFILE]: platformProfile() });
const JSON_ONLY = { accept: 'application/json' };

/** Every name on `Object.prototype`, as a client could send it in a string. */
export const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

/** A POST that must be answered within `ms` (the hang of issue 29 held the connection forever). */
async function post(body: unknown, ms = 5000): Promise<TestResponse> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms to ${text.slice(0, 200)}`)), ms)));
  try {
    return await Promise.race([s.req('demo.localhost', 'POST', '/mcp', text, JSON_ONLY), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

describe('method names and tool names from Object.prototype', () => {
  it('each is an unknown method (-32601, HTTP 200), as a request, in a batch and as a notification', async () => {
    expect(PROTOTYPE_NAMES).toEqual(expect.arrayContaining(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']));
    for (const method of PROTOTYPE_NAMES) {
      const r = await post({ jsonrpc: '2.0', id: 1, method });
      expect(r.status, method).toBe(200);
      expect(r.body, method).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32601 } });
      const note = await post({ jsonrpc: '2.0', method });
      expect(note.status, method).toBe(202);
    }
    const batch = await post(PROTOTYPE_NAMES.slice(0, 20).map((method, i) => ({ jsonrpc: '2.0', id: i, method })));
    expect(batch.status).toBe(200);
    expect(batch.body.map((m: any) => [m.id, m.error.code])).toEqual(PROTOTYPE_NAMES.slice(0, 20).map((_, i) => [i, -32601]));
    expect(mcpServersInUse()).toBe(0);
  });

  it('as a tools/call name each is unknown_tool, never a "renamed" tool pointing at a function', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const r = await post({ jsonrpc: '2.0', id: 'n', method: 'tools/call', params: { name, arguments: { meta: { 'ucp-agent': { profile: PROFILE } } } } });
      expect(r.status, name).toBe(200);
      expect(r.body.error, name).toMatchObject({ code: -32602, data: { code: 'unknown_tool' } });
      expect(r.body.error.message, name).not.toMatch(/function|native code/);
    }
  });

  it('empty, very long and control-character method names get a JSON-RPC answer', async () => {
    const empty = await post({ jsonrpc: '2.0', id: 1, method: '' });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ id: 1, error: { code: -32600 } });
    for (const method of ['x'.repeat(100_000), '\u0000', 'tools/list\n', '\u202e', '\ud800']) {
      const r = await post({ jsonrpc: '2.0', id: 2, method });
      expect(r.status, JSON.stringify(method.slice(0, 10))).toBe(200);
      expect(r.body).toMatchObject({ id: 2, error: { code: -32601 } });
    }
  });
});

describe('ids: repeated, missing and odd (docs/mcp.md "Batches and ids")', () => {
  it('a repeated id in a batch: the first request runs, the repeat is -32600 duplicate_id, both answered', async () => {
    const r = await post([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: '1', method: 'ping' },
    ]);
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 1, error: expect.objectContaining({ code: -32600, data: expect.objectContaining({ code: 'duplicate_id' }) }) },
      // "1" and 1 are different ids (JSON-RPC compares them as JSON values).
      { jsonrpc: '2.0', id: '1', result: {} },
    ]);
    expect(mcpServersInUse()).toBe(0);
  });

  it('a repeated id on tools/call runs the tool once', async () => {
    const call = { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: { 'ucp-agent': { profile: PROFILE } }, catalog: { query: 'tee' } } } };
    const r = await post([call, call, call]);
    expect(r.body.map((m: any) => ('result' in m ? 'result' : m.error.data.code))).toEqual(['result', 'duplicate_id', 'duplicate_id']);
  });

  it('odd ids (null, fractions, unsafe integers, booleans, objects, arrays) are -32600 with id null; 2.0 is the integer 2', async () => {
    for (const id of [null, 1.5, 1e20, -(2 ** 53), true, false, {}, [], [1], { a: 1 }]) {
      const r = await post({ jsonrpc: '2.0', id, method: 'ping' });
      expect(r.status, JSON.stringify(id)).toBe(400);
      expect(r.body, JSON.stringify(id)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
    const two = await post('{"jsonrpc":"2.0","id":2.0,"method":"ping"}');
    expect(two.body).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    const zero = await post('[{"jsonrpc":"2.0","id":0,"method":"ping"},{"jsonrpc":"2.0","id":-0,"method":"ping"}]');
    expect(zero.body.map((m: any) => 'result' in m)).toEqual([true, false]); // -0 is 0 on the wire
  });

  it('a batch answers each request in its place: bad messages get their own error, notifications nothing', async () => {
    const r = await post([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: null, method: 'ping' },
      42,
      { jsonrpc: '1.0', id: 'b', method: 'ping' },
      { jsonrpc: '2.0', method: 'constructor' },
      { jsonrpc: '2.0', id: 'c', method: 'tools/list', params: { cursor: 5 } },
      { jsonrpc: '2.0', id: 'd', method: 'ping' },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.map((m: any) => [m.id, m.error?.code ?? 'ok'])).toEqual([
      ['a', 'ok'],
      [null, -32600],
      [null, -32600],
      ['b', -32600],
      ['c', -32602],
      ['d', 'ok'],
    ]);
  });

  it('a batch of notifications only is accepted with 202; responses from the client too', async () => {
    const r = await post([{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', method: 'toString' }, { jsonrpc: '2.0', id: 7, result: {} }]);
    expect(r.status).toBe(202);
    expect(r.text).toBe('');
  });

  it('a request cancelled in its own batch is still answered (the SDK would drop its response)', async () => {
    const r = await post([
      { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: { 'ucp-agent': { profile: PROFILE } }, catalog: { query: 'tee' } } } },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'changed my mind' } },
    ]);
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(1);
    expect(r.body[0].id).toBe(5);
    expect(r.body[0].result.structuredContent.products.length).toBeGreaterThan(0);
    // A request (with an id) named notifications/cancelled is an unknown method, answered.
    const asRequest = await post({ jsonrpc: '2.0', id: 'x', method: 'notifications/cancelled', params: { requestId: 'x' } });
    expect(asRequest.body).toMatchObject({ id: 'x', error: { code: -32601 } });
    expect(mcpServersInUse()).toBe(0);
  });
});

describe('_meta of the wrong type', () => {
  it('is -32602 naming the field, never -32700 for valid JSON', async () => {
    for (const [method, params] of [
      ['ping', { _meta: { progressToken: { a: 1 } } }],
      ['tools/list', { _meta: { progressToken: 1.5 } }],
      ['tools/call', { name: 'search_catalog', arguments: {}, _meta: { progressToken: [] } }],
      ['tools/call', { name: 'search_catalog', arguments: {}, _meta: 'x' }],
      ['no/such/method', { _meta: { progressToken: true } }],
      ['ping', { _meta: { 'io.modelcontextprotocol/related-task': 'x' } }],
    ] as const) {
      const r = await post({ jsonrpc: '2.0', id: 3, method, params });
      const where = `${method} ${JSON.stringify(params)}`;
      expect(r.status, where).toBe(200);
      expect(r.body, where).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32602 } });
      expect(r.body.error.message, where).toMatch(/_meta/);
    }
    // A well-typed progress token is fine.
    expect((await post({ jsonrpc: '2.0', id: 4, method: 'ping', params: { _meta: { progressToken: 'p' } } })).body.result).toEqual({});
  });

  it('a notification with a bad _meta is dropped, not answered (JSON-RPC never answers a notification)', async () => {
    const r = await post({ jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: { progressToken: {} } } });
    expect(r.status).toBe(202);
  });
});

const DIRECT_META = { 'ucp-agent': { profile: PROFILE } };
const toolCall = (name: string, args: unknown, extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name, arguments: args, ...extra } });

const REQUESTS: Record<string, unknown> = {
  search_catalog: toolCall('search_catalog', { meta: DIRECT_META, catalog: { query: 'tee' } }),
  'search_catalog, progressToken': toolCall('search_catalog', { meta: DIRECT_META, catalog: { query: 'flask' } }, { _meta: { progressToken: 7 } }),
  'search_catalog, nothing found': toolCall('search_catalog', { meta: DIRECT_META, catalog: { query: 'no-such-thing-anywhere' } }),
  lookup_catalog: toolCall('lookup_catalog', { meta: DIRECT_META, catalog: { ids: ['prod_classic_tee', 'prod_nope'] } }),
  'get_product, missing (isError)': toolCall('get_product', { meta: DIRECT_META, catalog: { id: 'prod_nope' } }),
  'bad input (isError, members in the schema order)': toolCall('search_catalog', { meta: DIRECT_META, catalog: { query: 5 } }),
  'unknown argument': toolCall('search_catalog', { meta: DIRECT_META, catalog: { query: 'tee' }, qty: 1 }),
  'no arguments': { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'search_catalog' } },
  'missing meta (-32001)': toolCall('search_catalog', { catalog: { query: 'tee' } }),
  'refused profile (-32001)': toolCall('search_catalog', { meta: { 'ucp-agent': { profile: 'ftp://x' } }, catalog: { query: 'tee' } }),
  'unknown tool (-32602)': toolCall('no_such_tool', { meta: DIRECT_META }),
  'renamed tool (-32602)': toolCall('search_products', { meta: DIRECT_META }),
  'cancel_cart without a key (isError)': toolCall('cancel_cart', { meta: DIRECT_META, id: 'cart_nope' }),
  'tools/list': { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  'tools/list, CLI meta': { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { arguments: { meta: DIRECT_META } } },
  'resources/list': { jsonrpc: '2.0', id: 2, method: 'resources/list' },
  'resources/templates/list': { jsonrpc: '2.0', id: 3, method: 'resources/templates/list', params: {} },
  'resources/read of the view': { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'ui://ucp/shop.html' } },
  'resources/read miss (-32002)': { jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 'ui://nope' } },
};

/**
 * A lone plain 2025-era request skips the SDK's `Server` (server/mcp/server.ts `direct`); a batch
 * always goes through it. The same request sent both ways gets the same JSON text: results, input
 * mistakes as `isError` results, and JSON-RPC errors from the handlers (unknown and renamed tools,
 * refused profiles, a resource miss's -32002), member for member and in the same order.
 */
describe('a lone plain request and the same request in a batch', () => {
  for (const [name, request] of Object.entries(REQUESTS)) {
    it(`${name}: the same JSON text`, async () => {
      const lone = await post(request);
      const batch = await post([request]);
      expect(batch.status).toBe(200);
      expect(lone.text).toBe(batch.text.slice(1, -1));
      expect(mcpServersInUse()).toBe(0);
    });
  }
});
