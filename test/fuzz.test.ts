/**
 * Property-based requests against the live REST transport and /mcp (fast-check). Arbitraries
 * follow the wire request shapes (src/wire/catalog.ts, src/wire/cart.ts: the OpenAPI/OpenRPC
 * request bodies) field by field, each field sometimes replaced by arbitrary JSON, plus whole
 * garbage bodies, content types, headers and ids. Whatever is sent:
 *
 *   REST: never a 5xx; a 4xx is the flat `{code, content}` envelope; a 2xx is a UCP body with `ucp`.
 *   MCP:  never a 5xx; the answer is JSON-RPC 2.0 with a `result` object or an `error` whose
 *         `code` is a number.
 *
 * 1,000 cases per property by default; `FUZZ_RUNS=20000 npm run test:fuzz` for a longer run.
 * A failure prints the shrunk request and fast-check's seed (`FUZZ_SEED=... ` reproduces it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestServer, type TestResponse, type TestServer } from './support/server.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const HOST = 'demo.localhost';
const PROFILE = 'https://platform.example/.well-known/ucp';
// The server fetches the named profile (docs/access.md): serve it from memory.
serveProfiles({ [PROFILE]: platformProfile() });

let s: TestServer;
let cartId = '';
beforeAll(async () => {
  s = await startTestServer();
  const c = await s.req(HOST, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] });
  cartId = c.body.id;
});
afterAll(() => s?.close());

/* ---------- arbitraries from the request shapes ---------- */

/** Usually `arb`, sometimes any JSON value (wrong type), sometimes absent. */
const fuzzy = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 6, arbitrary: arb }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(fuzzy(arb), { nil: undefined, freq: 3 });

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', 'tee', 'flask', 'linen', '%', "'; drop table carts; --", '\u0000', 'a'.repeat(600), '🧪', '\\', '"'),
);
const ids = fc.oneof(
  fc.constantFrom('var_tee_s_white', 'var_flask_steel', 'prod_tee', 'prod_flask', 'var_nope', '', 'cart_x'),
  text,
);
const int = fc.oneof(fc.integer({ min: -5, max: 60 }), fc.integer(), fc.constantFrom(0, 1, 999, 1000, 1e15, -1, 2 ** 53), fc.double());

const Context = fc.record(
  {
    language: fuzzy(fc.oneof(fc.constantFrom('en', 'fr', 'fr-CA', 'de', 'zz', 'EN-us'), text)),
    currency: fuzzy(fc.oneof(fc.constantFrom('USD', 'EUR', 'CAD', 'JPY', 'XXX', 'usd'), text)),
    address_country: fuzzy(fc.oneof(fc.constantFrom('US', 'FR', 'CA'), text)),
    address_region: fuzzy(text),
    postal_code: fuzzy(text),
  },
  { requiredKeys: [] },
);
const Filters = fc.record(
  {
    categories: fuzzy(fc.array(fc.oneof(fc.constantFrom('apparel', 'kitchen', 'outdoor'), text), { maxLength: 4 })),
    price: fuzzy(fc.record({ min: fuzzy(int), max: fuzzy(int) }, { requiredKeys: [] })),
  },
  { requiredKeys: [] },
);
const Pagination = fc.record({ limit: fuzzy(int), cursor: fuzzy(text) }, { requiredKeys: [] });

const SearchRequest = fc.record(
  { query: fuzzy(text), filters: fuzzy(Filters), limit: fuzzy(int), cursor: fuzzy(text), pagination: fuzzy(Pagination), context: fuzzy(Context) },
  { requiredKeys: [] },
);
const LookupRequest = fc.record({ ids: fuzzy(fc.array(ids, { maxLength: 6 })), filters: fuzzy(Filters), context: fuzzy(Context) }, { requiredKeys: [] });
const GetProductRequest = fc.record(
  {
    id: fuzzy(ids),
    selected: fuzzy(fc.array(fc.record({ name: fuzzy(text), label: fuzzy(text), id: opt(text) }, { requiredKeys: ['name', 'label'] }), { maxLength: 3 })),
    preferences: fuzzy(fc.array(text, { maxLength: 3 })),
    context: fuzzy(Context),
  },
  { requiredKeys: [] },
);
const Customization = fc.record({ id: fuzzy(fc.oneof(fc.constantFrom('engraving', 'gift_box', 'extras'), text)), value: fuzzy(text) });
const LineItem = fc.record(
  {
    id: fuzzy(text),
    item: fuzzy(fc.record({ id: fuzzy(ids) })),
    quantity: fuzzy(int),
    customizations: fuzzy(fc.array(Customization, { maxLength: 4 })),
    parent_id: fuzzy(text),
  },
  { requiredKeys: ['item', 'quantity'] },
);
const CartRequest = fc.record(
  {
    id: fuzzy(text),
    line_items: fuzzy(fc.array(LineItem, { maxLength: 4 })),
    context: fuzzy(Context),
    buyer: fuzzy(fc.record({ first_name: fuzzy(text), email: fuzzy(text) }, { requiredKeys: [] })),
    discounts: fuzzy(fc.record({ codes: fuzzy(fc.array(fc.oneof(fc.constantFrom('WELCOME10', 'welcome10', 'NOPE'), text), { maxLength: 4 })) }, { requiredKeys: [] })),
  },
  { requiredKeys: ['line_items'] },
);

/** A body: usually the shape, sometimes any JSON, sometimes not JSON at all. */
const body = <T>(shape: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 8, arbitrary: shape.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('', '{', '[1,', 'null', '{"line_items": [}', '\u0000')) },
  );

const pathId = fc.oneof(fc.constant('@cart'), ids, fc.string({ maxLength: 20 })).map((v) => encodeURIComponent(v));
const headers = fc.record(
  {
    'content-type': fc.constantFrom('application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', ''),
    'idempotency-key': fc.oneof(fc.uuid(), fc.string({ maxLength: 10 }), fc.constant('')),
    'ucp-agent': fc.oneof(fc.constant(`profile="${PROFILE}"`), fc.string({ maxLength: 30 }), fc.constant('profile=1')),
    'accept-language': fc.oneof(fc.constantFrom('fr', 'en-US,en;q=0.8', '*'), fc.string({ maxLength: 20 })),
  },
  { requiredKeys: ['content-type'] },
);

type RestCase = { method: string; path: string; body?: string; headers: Record<string, string> };
const restCase: fc.Arbitrary<RestCase> = fc.oneof(
  fc.record({ method: fc.constant('POST'), path: fc.constant('/api/ucp/catalog/search'), body: body(SearchRequest), headers }),
  fc.record({ method: fc.constant('POST'), path: fc.constant('/api/ucp/catalog/lookup'), body: body(LookupRequest), headers }),
  fc.record({ method: fc.constant('POST'), path: fc.constant('/api/ucp/catalog/product'), body: body(GetProductRequest), headers }),
  fc.record({ method: fc.constant('POST'), path: fc.constant('/api/ucp/carts'), body: body(CartRequest), headers }),
  fc.record({ method: fc.constant('GET'), path: pathId.map((id) => `/api/ucp/carts/${id}`), headers }),
  fc.record({ method: fc.constant('PUT'), path: pathId.map((id) => `/api/ucp/carts/${id}`), body: body(CartRequest), headers }),
  fc.record({ method: fc.constant('POST'), path: pathId.map((id) => `/api/ucp/carts/${id}/cancel`), body: fc.option(body(fc.constant({})), { nil: undefined }), headers }),
  fc.record({
    method: fc.constantFrom('GET', 'DELETE', 'PATCH', 'PUT', 'POST'),
    path: fc.constantFrom('/api/ucp', '/api/ucp/catalog/search', '/api/ucp/carts', '/api/ucp/nothing', '/api/ucp/carts/x/y'),
    body: fc.option(body(fc.jsonValue()), { nil: undefined }),
    headers,
  }),
);

function send(c: RestCase): Promise<TestResponse> {
  const path = c.path.replace('@cart', cartId);
  const h = Object.fromEntries(Object.entries(c.headers).filter(([, v]) => v !== undefined && v !== '' && /^[\t\x20-\x7e]*$/.test(v)));
  // Node's client frames a GET/DELETE body only with an explicit Content-Length.
  if (c.body !== undefined) h['content-length'] = String(Buffer.byteLength(c.body));
  return s.req(HOST, c.method, path, c.body, h);
}

function checkRest(c: RestCase, r: TestResponse): void {
  const where = `${c.method} ${c.path} ${c.body?.slice(0, 300) ?? ''} -> ${r.status} ${r.text.slice(0, 300)}`;
  expect(r.status, where).toBeGreaterThanOrEqual(200);
  expect(r.status, where).toBeLessThan(500);
  if (r.status >= 400) {
    expect(typeof r.body?.code, where).toBe('string');
    expect(typeof r.body?.content, where).toBe('string');
  } else {
    expect(typeof r.body?.ucp, where).toBe('object');
    expect(r.body.ucp, where).not.toBeNull();
  }
}

/* ---------- MCP ---------- */

const TOOLS = ['search_catalog', 'lookup_catalog', 'get_product', 'create_cart', 'get_cart', 'update_cart', 'cancel_cart'];
const Meta = fc.record(
  {
    'ucp-agent': fuzzy(fc.record({ profile: fuzzy(fc.oneof(fc.constant(PROFILE), text, fc.constant('http://platform.example/p.json'))) })),
    'idempotency-key': fuzzy(fc.oneof(fc.uuid(), text)),
  },
  { requiredKeys: [] },
);
const toolArgs = fc.record(
  {
    meta: fuzzy(Meta),
    catalog: fuzzy(fc.oneof(SearchRequest, LookupRequest, GetProductRequest)),
    cart: fuzzy(CartRequest),
    id: fuzzy(fc.oneof(fc.constant('@cart'), ids)),
  },
  { requiredKeys: [] },
);
const rpcId = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }));
const mcpBody = fc.oneof(
  { weight: 8, arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id: rpcId, method: fc.constant('tools/call'), params: fc.record({ name: fc.oneof(fc.constantFrom(...TOOLS), text), arguments: fuzzy(toolArgs) }, { requiredKeys: ['name'] }) }) },
  { weight: 1, arbitrary: fc.record({ jsonrpc: fuzzy(fc.constant('2.0')), id: fuzzy(rpcId), method: fuzzy(fc.constantFrom('tools/list', 'initialize', 'ping', 'resources/list', 'nope')), params: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }) }, { requiredKeys: ['method'] }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

function checkMcp(sent: unknown, r: TestResponse): void {
  const where = `${JSON.stringify(sent).slice(0, 400)} -> ${r.status} ${r.text.slice(0, 300)}`;
  expect(r.status, where).toBeLessThan(500);
  if (r.status === 202 || r.status === 204 || (r.text === '' && r.status < 300)) return; // notification / nothing to answer
  const one = (m: any) => {
    if (m?.jsonrpc !== '2.0') {
      // Non-JSON-RPC refusals (e.g. 404/405/406/415) are the flat envelope.
      expect(r.status, where).toBeGreaterThanOrEqual(400);
      expect(typeof m?.code === 'string' || typeof m?.error?.code === 'number', where).toBe(true);
      return;
    }
    if ('error' in m) {
      expect(typeof m.error?.code, where).toBe('number');
      expect(m.error.code, `a client's mistake is never internal (-32603): ${where}`).not.toBe(-32603);
    }
    else expect(typeof m.result, where).toBe('object');
  };
  if (Array.isArray(r.body)) r.body.forEach(one);
  else one(r.body);
}

describe(`fuzz (${RUNS} cases per property)`, () => {
  it('REST: no 5xx; errors in the flat {code, content} envelope; successes carry ucp', async () => {
    await fc.assert(
      fc.asyncProperty(restCase, async (c) => checkRest(c, await send(c))),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, Math.max(120_000, RUNS * 200));

  it('MCP tools/call with arbitrary arguments: no 5xx; JSON-RPC result or error with a numeric code', async () => {
    await fc.assert(
      fc.asyncProperty(mcpBody, async (b) => {
        const sent = JSON.parse(JSON.stringify(b ?? null, (_k, v) => (v === '@cart' ? cartId : v)));
        const r = await s.req(HOST, 'POST', '/mcp', JSON.stringify(sent), { accept: 'application/json, text/event-stream', 'content-type': 'application/json' });
        checkMcp(sent, r);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, Math.max(120_000, RUNS * 200));
});
