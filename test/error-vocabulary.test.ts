/**
 * One vocabulary (docs/errors.md "One vocabulary", issue 30): each row of the doc's table is a
 * mistake sent over UCP REST, over MCP with the official SDK client, and through the typed client
 * (`ucp-storefront/client`) on both of its transports, against the real server; each transport must
 * give the row's code, path and severity, REST its status and MCP its result or error shape. The
 * table is read from the doc, so the doc and this test cannot drift: a row without a case here, or
 * a case without a row, fails.
 */
import './support/localhost-dns.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, ProtocolError, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createUcpClient, type UcpClient } from '../src/client/index.ts';
import type { Result } from '../src/client/result.ts';
import type { Message } from '../src/wire/common.ts';
import { SEVERITY_OF_KIND, severityOfStatus, type ErrorKind } from '../src/wire/errors.ts';
import { REST_STATUS } from '../server/http/errors.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';
import { CREATE_MISTAKES, mcpPath, readErrorTable } from './support/error-table.ts';

const PROFILE = 'https://platform.example/.well-known/ucp';
const OLD_PROFILE = 'https://platform.example/old.json';
serveProfiles({ [PROFILE]: platformProfile(), [OLD_PROFILE]: platformProfile({ version: '2020-01-01' }) });

// ---- what each transport answered ------------------------------------------------------------

interface Seen {
  code?: string;
  path?: string;
  severity?: string;
}

/** The message of the row's code (or, with no code, proof that no error came back). */
function seenIn(messages: Message[] | undefined, code: string | undefined): Seen {
  const list = messages ?? [];
  if (code === undefined) {
    expect(list.filter((m) => m.type === 'error')).toEqual([]);
    return {};
  }
  const m = list.find((x) => x.code === code);
  expect(m, `a message with code ${code} in ${JSON.stringify(list)}`).toBeDefined();
  return { code: m!.code, path: m!.path, severity: m!.severity };
}

type McpSeen = { kind: 'result'; isError: boolean; messages: Message[] } | { kind: 'error'; rpc: number; http: number; code?: string };

let s: TestServer;
let business: string;
let sdk: Client;
let sdkFaulty: Client;
const clients: UcpClient[] = [];

/** An SDK client; `callHeaders` go on tool calls only (a fault on `initialize` would stop the connection). */
async function sdkClient(callHeaders: Record<string, string> = {}): Promise<Client> {
  const c = new Client({ name: 'error-vocabulary-test', version: '1.0.0' });
  const f: typeof fetch = (input, init) => {
    if (typeof init?.body !== 'string' || !init.body.includes('"tools/call"')) return fetch(input, init);
    const h = new Headers(init.headers);
    for (const [k, v] of Object.entries(callHeaders)) h.set(k, v);
    return fetch(input, { ...init, headers: h });
  };
  await c.connect(new StreamableHTTPClientTransport(new URL(`${business}/mcp`), { fetch: f }));
  return c;
}

/** A tool call as an agent host sees it: a result, or the error the SDK raised (with its HTTP status). */
async function mcp(tool: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}, client = sdk): Promise<McpSeen> {
  try {
    const r = await client.callTool({ name: tool, arguments: { meta: { 'ucp-agent': { profile: PROFILE }, ...meta }, ...args } });
    return { kind: 'result', isError: r.isError === true, messages: (r.structuredContent as { messages?: Message[] }).messages ?? [] };
  } catch (e) {
    if (e instanceof ProtocolError) return { kind: 'error', rpc: e.code, http: 200, code: (e.data as { code?: string } | undefined)?.code };
    // A JSON-RPC error with a 4xx status: the SDK reports the status and the body it received.
    if (!(e instanceof SdkHttpError)) throw e;
    const body = JSON.parse(/endpoint: (\{.*\})$/s.exec(e.message)![1]);
    return { kind: 'error', rpc: body.error.code, http: e.status, code: body.error.data?.code };
  }
}

/** A raw MCP POST (what neither the SDK nor the typed client can send). */
async function mcpRaw(body: string): Promise<McpSeen> {
  const res = await fetch(`${business}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
  const json = await res.json();
  return { kind: 'error', rpc: json.error.code, http: res.status, code: json.error.data?.code };
}

interface RestSeen {
  status: number;
  messages?: Message[];
  /** A flat protocol error's code (UCP's `{code, content}`, no messages). */
  flatCode?: string;
}

const H = { 'UCP-Agent': `profile="${PROFILE}"` };
async function rest(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, host = 'demo.localhost'): Promise<RestSeen> {
  const r = await s.req(host, method, `/api/ucp${path}`, body, { ...H, ...headers });
  return { status: r.status, messages: r.body?.messages, flatCode: r.body?.messages ? undefined : r.body?.code };
}

function client(transport: 'rest' | 'mcp', extra: { profile?: string; header?: Record<string, string> } = {}): UcpClient {
  const header = extra.header;
  const f: typeof fetch | undefined = header
    ? (input, init) => {
        const h = new Headers(init?.headers);
        for (const [k, v] of Object.entries(header)) h.set(k, v);
        return fetch(input, { ...init, headers: h });
      }
    : undefined;
  const c = createUcpClient({ business, profile: extra.profile ?? PROFILE, transport, retry: false, ...(f ? { fetch: f } : {}) });
  clients.push(c);
  return c;
}

// ---- the cases: how each mistake is sent ------------------------------------------------------

const line = (id: string, quantity: unknown) => ({ line_items: [{ item: { id }, quantity }] });
const key = () => ({ 'idempotency-key': crypto.randomUUID() });

interface Case {
  rest: () => Promise<RestSeen>;
  mcp: () => Promise<McpSeen>;
  /** Absent where the typed client cannot make the mistake (it always sends JSON). */
  client?: (transport: 'rest' | 'mcp') => Promise<Result<unknown>>;
}

const fixtures = { otherCart: '', canceledCart: '' };

const createWith = (body: object): Case => ({
  rest: () => rest('POST', '/carts', body),
  mcp: () => mcp('create_cart', { cart: body }, key()),
  client: (t) => client(t).createCart(body as never),
});

const reusedKey = (t: string) => `reused-${t}-${crypto.randomUUID()}`;

const CASES: Record<string, Case> = {
  'unknown product id (`get_product`)': {
    rest: () => rest('POST', '/catalog/product', { id: 'prod_nope' }),
    mcp: () => mcp('get_product', { catalog: { id: 'prod_nope' } }),
    client: (t) => client(t).getProduct({ id: 'prod_nope' }),
  },
  ...Object.fromEntries(Object.entries(CREATE_MISTAKES).map(([mistake, body]) => [mistake, createWith(body)])),
  'unknown cart id': {
    rest: () => rest('GET', '/carts/cart_nope'),
    mcp: () => mcp('get_cart', { id: 'cart_nope' }),
    client: (t) => client(t).getCart('cart_nope'),
  },
  "another shop's cart id": {
    rest: () => rest('GET', `/carts/${fixtures.otherCart}`),
    mcp: () => mcp('get_cart', { id: fixtures.otherCart }),
    client: (t) => client(t).getCart(fixtures.otherCart),
  },
  '`get_cart` of a canceled cart': {
    rest: () => rest('GET', `/carts/${fixtures.canceledCart}`),
    mcp: () => mcp('get_cart', { id: fixtures.canceledCart }),
    client: (t) => client(t).getCart(fixtures.canceledCart),
  },
  'body not JSON': {
    rest: () => rest('POST', '/carts', '{"line_items": [', { 'content-type': 'application/json' }),
    mcp: () => mcpRaw('{"jsonrpc": "2.0", "id": 1, "method": '),
  },
  'rate limited (`UCP-Sandbox-Fault: 429`)': {
    rest: () => rest('POST', '/catalog/search', { query: 'flask' }, { 'UCP-Sandbox-Fault': '429' }),
    mcp: () => mcp('search_catalog', { catalog: { query: 'flask' } }, {}, sdkFaulty),
    client: (t) => client(t, { header: { 'UCP-Sandbox-Fault': '429' } }).searchCatalog({ query: 'flask' }),
  },
  'idempotency key reused with another body': {
    rest: async () => {
      const k = reusedKey('rest');
      await rest('POST', '/carts', line('var_tee_m_navy', 1), { 'Idempotency-Key': k });
      return rest('POST', '/carts', line('var_tee_m_navy', 2), { 'Idempotency-Key': k });
    },
    mcp: async () => {
      const meta = { 'idempotency-key': reusedKey('mcp') };
      await mcp('create_cart', { cart: line('var_tee_m_navy', 1) }, meta);
      return mcp('create_cart', { cart: line('var_tee_m_navy', 2) }, meta);
    },
    client: async (t) => {
      const c = client(t);
      const idempotencyKey = reusedKey(`client-${t}`);
      await c.createCart(line('var_tee_m_navy', 1) as never, { idempotencyKey });
      return c.createCart(line('var_tee_m_navy', 2) as never, { idempotencyKey });
    },
  },
  'malformed `UCP-Agent` (not a profile URL)': {
    rest: () => rest('POST', '/catalog/search', { query: 'flask' }, { 'UCP-Agent': 'profile="nonsense"' }),
    mcp: () => mcp('search_catalog', { catalog: { query: 'flask' } }, { 'ucp-agent': { profile: 'nonsense' } }),
    client: (t) => client(t, { profile: 'nonsense' }).searchCatalog({ query: 'flask' }),
  },
  'unsupported `UCP-Agent` (a profile of UCP 2020-01-01)': {
    rest: () => rest('POST', '/catalog/search', { query: 'flask' }, { 'UCP-Agent': `profile="${OLD_PROFILE}"` }),
    mcp: () => mcp('search_catalog', { catalog: { query: 'flask' } }, { 'ucp-agent': { profile: OLD_PROFILE } }),
    client: (t) => client(t, { profile: OLD_PROFILE }).searchCatalog({ query: 'flask' }),
  },
};

// ---- the test --------------------------------------------------------------------------------

const ROWS = readErrorTable();

beforeAll(async () => {
  s = await startTestServer();
  business = `http://demo.localhost:${s.port}`;
  sdk = await sdkClient();
  sdkFaulty = await sdkClient({ 'UCP-Sandbox-Fault': '429' });
  const other = await s.req('other.localhost', 'POST', '/api/ucp/carts', line('other_var_pewter_flask', 1));
  fixtures.otherCart = other.body.id;
  const mine = await s.req('demo.localhost', 'POST', '/api/ucp/carts', line('var_tee_m_navy', 1));
  fixtures.canceledCart = mine.body.id;
  await s.req('demo.localhost', 'POST', `/api/ucp/carts/${mine.body.id}/cancel`, {});
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await sdk?.close();
  await sdkFaulty?.close();
  await s?.close();
});

it('every row of the table has a case, and every case a row', () => {
  expect(fixtures.otherCart).toMatch(/^cart_/);
  expect(fixtures.canceledCart).toMatch(/^cart_/);
  expect(ROWS.map((r) => r.mistake).sort()).toEqual(Object.keys(CASES).sort());
  expect(ROWS.length).toBeGreaterThanOrEqual(20);
});

it('a client reading only a REST status gives it the severity of the kind the server sent it for', () => {
  for (const kind of Object.keys(REST_STATUS) as ErrorKind[]) expect([kind, severityOfStatus(REST_STATUS[kind])]).toEqual([kind, SEVERITY_OF_KIND[kind]]);
  // No answer at all (the network) is "wait and retry"; the negotiation refusals are the caller's to fix.
  expect([severityOfStatus(0), severityOfStatus(422), severityOfStatus(424)]).toEqual(['recoverable', 'recoverable', 'recoverable']);
});

describe.each(ROWS)('$mistake', (row) => {
  const send = CASES[row.mistake];
  const expected: Seen = { code: row.code, path: row.path, severity: row.severity };

  it('REST: the status, code, path and severity of the table', async () => {
    const r = await send.rest();
    expect(r.status).toBe(row.restStatus);
    if (r.flatCode !== undefined) {
      // UCP's flat protocol body carries no messages (so no path or severity): the code only.
      expect({ code: r.flatCode, path: undefined }).toEqual({ code: row.code, path: row.path });
    } else {
      expect(seenIn(r.messages, row.code)).toEqual(expected);
    }
  });

  it('MCP (official SDK): the result or error shape, code, path and severity of the table', async () => {
    const r = await send.mcp();
    if (row.mcp.kind === 'error') {
      expect(r).toEqual({ kind: 'error', rpc: row.mcp.rpc, http: row.mcp.http, code: row.code });
      return;
    }
    expect(r.kind).toBe('result');
    if (r.kind !== 'result') return;
    expect(r.isError).toBe(row.mcp.isError);
    expect(seenIn(r.messages, row.code)).toEqual({ ...expected, path: mcpPath(row) });
  });

  it.each(['rest', 'mcp'] as const)('the typed client over %s: the same code, path and severity', async (transport) => {
    if (!send.client) {
      // The client always sends JSON: this mistake cannot be made through it.
      expect(row.mistake).toBe('body not JSON');
      return;
    }
    const r = await send.client(transport);
    if (r.ok) {
      expect(row.restStatus).toBeLessThan(300);
      expect(seenIn((r.data as { messages?: Message[] }).messages, row.code)).toEqual(expected);
      return;
    }
    expect(r.status).toBe(row.restStatus);
    // A flat error has no severity of its own; the client gives it its status's (src/wire/errors.ts).
    const seen = seenIn(r.messages, row.code);
    expect(seen).toEqual(expected);
  });
});
