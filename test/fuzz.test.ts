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
 * The same holds for the merchant API (`{error: {code, message}}`), GraphQL (`{errors}`) and the
 * token endpoint (`{error, error_description}`). Text includes the classes that once reached a 500
 * (lone surrogates, NUL) and others that trip parsers (RTL marks, 4-byte characters, huge strings);
 * wrong-type values include deeply nested and very wide objects.
 *
 * The JSON-RPC envelope on /mcp has its own property (issue 29): method names (every
 * `Object.prototype` name, empty, long, control characters), ids of every JSON type and repeated,
 * batches mixing requests, notifications and responses, `_meta` of every type. Every POST must be
 * answered within a deadline, each request with a usable id by an answer carrying it, never a 5xx
 * or -32603, and no pooled MCP server may be left out of its pool.
 *
 * 1,000 cases per property by default (CI); `npm run test:fuzz` runs 100,000.
 * A failure prints the shrunk request and fast-check's seed (`FUZZ_SEED=... ` reproduces it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestServer, type TestResponse, type TestServer } from './support/server.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';
import { tokensFor } from './support/oauth.ts';
import { ROUTE_SCOPES } from '../server/merchant/routes.ts';
import { SCOPE_NAMES } from '../server/core/accounts/scopes.ts';
import { mcpServersInUse } from '../server/mcp/server.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const HOST = 'demo.localhost';
const PROFILE = 'https://platform.example/.well-known/ucp';
// The server fetches the named profile (docs/access.md): serve it from memory.
serveProfiles({ [PROFILE]: platformProfile() });

let s: TestServer;
let cartId = '';
let merchantToken = '';
beforeAll(async () => {
  s = await startTestServer();
  merchantToken = (await tokensFor(s, SCOPE_NAMES.join(' '))).access_token;
  const c = await s.req(HOST, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] });
  cartId = c.body.id;
});
afterAll(() => s?.close());

/* ---------- arbitraries from the request shapes ---------- */

/** Usually `arb`, sometimes any JSON value (wrong type), sometimes absent. */
const fuzzy = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 12, arbitrary: arb }, { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) }, { weight: 1, arbitrary: fc.constant(null).chain(() => hugeValue) });
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(fuzzy(arb), { nil: undefined, freq: 3 });

/** Unicode that stores, parsers and databases have tripped on. */
const edgeText = fc.oneof(
  fc.constantFrom('\ud800', 'a\udc00b', '\udbff\udbff', 'x\u0000y', '\u200f\u202eevil', '\u202a\u2066', '𝄞😀🏳️‍🌈', '\ufeff', '\uffff', 'a'.repeat(5000), '𝄞'.repeat(3000)),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), maxLength: 4 }),
);
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  edgeText,
  fc.constantFrom('', ' ', 'tee', 'flask', 'linen', '%', "'; drop table carts; --", '\u0000', 'a'.repeat(600), '🧪', '\\', '"'),
);
/** Deep and wide values: nesting past every limit, objects with many keys, long arrays. */
const nestedValue = (depth: number): unknown => (depth === 0 ? 'leaf' : depth % 2 ? [nestedValue(depth - 1)] : { n: nestedValue(depth - 1) });
const hugeValue = fc.oneof(
  fc.integer({ min: 20, max: 400 }).map(nestedValue),
  fc.integer({ min: 100, max: 3000 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))),
  fc.integer({ min: 100, max: 5000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
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

/** Percent-encoding that also carries lone surrogates (as the bytes a raw client could send, ED A0 80). */
const pct = (v: string) => [...v].map((ch) => (/[\ud800-\udfff]/.test(ch) && ch.length === 1 ? '%ED%A0%80' : encodeURIComponent(ch))).join('');
const pathId = fc.oneof(fc.constant('@cart'), ids, fc.string({ maxLength: 20 })).map(pct);
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

/** Node's own answers before any handler: a request line or headers past its limits (no body of ours). */
const NODE_LIMITS = [414, 431];

function checkRest(c: RestCase, r: TestResponse): void {
  const where = `${c.method} ${c.path.slice(0, 200)} ${c.body?.slice(0, 300) ?? ''} -> ${r.status} ${r.text.slice(0, 300)}`;
  expect(r.status, where).toBeGreaterThanOrEqual(200);
  expect(r.status, where).toBeLessThan(500);
  if (NODE_LIMITS.includes(r.status)) return;
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
  // Malformed tools/call params: arguments null, an array, a string; name missing or not a string.
  { weight: 1, arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id: rpcId, method: fc.constant('tools/call'), params: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.record({ name: fuzzy(fc.constantFrom(...TOOLS)), arguments: fc.oneof(fc.constant(null), fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }), text, hugeValue) }, { requiredKeys: [] })) }) },
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

/* ---------- the JSON-RPC envelope (issue 29) ---------- */

/** Method names: every `Object.prototype` name, the real methods, empty, long, control characters. */
const methodName = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...Object.getOwnPropertyNames(Object.prototype)) },
  { weight: 3, arbitrary: fc.constantFrom('ping', 'tools/list', 'tools/call', 'initialize', 'notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'resources/list', 'tasks/get', '') },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 70_000 }).map((n) => 'm'.repeat(n)) },
  { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)), maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', 'ping\n', '\u202eping', '\ud800', 'tools/call\u0000') },
  { weight: 1, arbitrary: text },
);
/** Ids of every JSON type; a small pool of each so that batches repeat them. */
const envelopeId = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(1, 2, '1', 'a', 0) },
  { weight: 2, arbitrary: fc.oneof(fc.integer(), fc.string({ maxLength: 8 })) },
  { weight: 2, arbitrary: fc.constantFrom(null, true, false, 1.5, -0.5, 1e20, 2 ** 53, -(2 ** 53) - 2, Number.MAX_VALUE, -1) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
const metaValue = fc.oneof(
  fc.record({ progressToken: fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.double(), fc.jsonValue({ maxDepth: 2 })), 'io.modelcontextprotocol/related-task': fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
  fc.jsonValue({ maxDepth: 2 }),
);
const envelopeParams = fc.oneof(
  fc.record({ _meta: metaValue, name: fc.oneof(fc.constantFrom(...TOOLS), methodName), arguments: fc.oneof(fc.constant({ meta: { 'ucp-agent': { profile: PROFILE } }, catalog: { query: 'tee' } }), fc.jsonValue({ maxDepth: 2 })), requestId: envelopeId, cursor: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: [] }),
  fc.jsonValue({ maxDepth: 2 }),
);
const envelopeMessage = fc.oneof(
  { weight: 6, arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), id: envelopeId, method: methodName, params: envelopeParams }, { requiredKeys: ['jsonrpc', 'id', 'method'] }) },
  { weight: 3, arbitrary: fc.record({ jsonrpc: fc.constant('2.0'), method: methodName, params: envelopeParams }, { requiredKeys: ['jsonrpc', 'method'] }) },
  { weight: 1, arbitrary: fc.record({ jsonrpc: fuzzy(fc.constant('2.0')), id: envelopeId, result: fc.jsonValue({ maxDepth: 1 }), error: fc.jsonValue({ maxDepth: 1 }), method: methodName }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
const envelopeBody = fc.oneof(envelopeMessage, fc.array(envelopeMessage, { minLength: 0, maxLength: 22 }));

/** A message that JSON-RPC must answer: a request with an id MCP accepts. */
const isAnswerable = (m: any) => typeof m === 'object' && m !== null && !Array.isArray(m) && m.jsonrpc === '2.0' && typeof m.method === 'string' && m.method !== '' && (typeof m.id === 'string' || Number.isSafeInteger(m.id));
/** How long one POST may take before it counts as never answered (the hang of issue 29): generous, as the machine may be shared. */
const ENVELOPE_DEADLINE_MS = 30_000;
export const envelopeTotals = { cases: 0, batches: 0, answered: 0, accepted202: 0, refusedWhole: 0, byCode: {} as Record<string, number> };

async function postWithin(text: string, ms: number): Promise<TestResponse> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not answered within ${ms} ms: ${text.slice(0, 300)}`)), ms)));
  try {
    return await Promise.race([s.req(HOST, 'POST', '/mcp', text, { accept: 'application/json', 'content-type': 'application/json' }), late]);
  } finally {
    clearTimeout(timer);
  }
}

function checkEnvelope(sent: unknown, r: TestResponse): void {
  const where = `${JSON.stringify(sent).slice(0, 400)} -> ${r.status} ${r.text.slice(0, 300)}`;
  const t = envelopeTotals;
  t.cases++;
  expect(r.status, where).toBeLessThan(500);
  const messages = Array.isArray(sent) ? sent : [sent];
  if (Array.isArray(sent)) t.batches++;
  const answerable = messages.filter(isAnswerable);
  if (r.status === 202) {
    t.accepted202++;
    expect(answerable, `202 left a request unanswered: ${where}`).toEqual([]);
    return;
  }
  const answers: any[] = Array.isArray(r.body) ? r.body : [r.body];
  for (const a of answers) {
    expect(a?.jsonrpc, where).toBe('2.0');
    expect('result' in a || typeof a.error?.code === 'number', where).toBe(true);
    if (a.error) expect(a.error.code, `never internal: ${where}`).not.toBe(-32603);
    const code = String(a.error?.code ?? 'result');
    t.byCode[code] = (t.byCode[code] ?? 0) + 1;
  }
  if (Array.isArray(sent) && !Array.isArray(r.body)) {
    // A whole-POST refusal (empty or long batch, body limit, several initialize): one error, id null.
    t.refusedWhole++;
    expect(r.body.id, where).toBeNull();
    return;
  }
  t.answered += answers.length;
  // Every request with a usable id has an answer carrying that id.
  const ids = answers.map((a) => JSON.stringify(a.id));
  for (const m of answerable) expect(ids, `request ${JSON.stringify(m.id)} not answered: ${where}`).toContain(JSON.stringify(m.id));
  if (Array.isArray(sent)) expect(answers.length, where).toBeLessThanOrEqual(messages.length);
}

/* ---------- merchant API, GraphQL, token endpoint ---------- */

const Product = fc.record(
  {
    id: fuzzy(fc.oneof(fc.constantFrom('prod_fuzz', 'prod_tee'), text)),
    handle: fuzzy(text),
    title: fuzzy(text),
    description: fuzzy(text),
    categories: fuzzy(fc.array(text, { maxLength: 3 })),
    variants: fuzzy(fc.array(fc.record({ id: fuzzy(text), sku: fuzzy(text), price: fuzzy(int), title: fuzzy(text) }, { requiredKeys: [] }), { maxLength: 3 })),
    metadata: fuzzy(fc.dictionary(text, text, { maxKeys: 3 })),
  },
  { requiredKeys: [] },
);
const merchantBody = fc.oneof(
  Product,
  fc.record({ email: fuzzy(text), first_name: fuzzy(text) }, { requiredKeys: [] }),
  fc.record({ profile_url: fuzzy(text), label: fuzzy(text) }, { requiredKeys: [] }),
  fc.record({ url: fuzzy(text), events: fuzzy(fc.array(text, { maxLength: 3 })), active: fuzzy(fc.boolean()) }, { requiredKeys: [] }),
  fc.record({ line_items: fuzzy(fc.array(fc.record({ variant_id: fuzzy(ids), quantity: fuzzy(int) }), { maxLength: 3 })), customer_id: fuzzy(text), status: fuzzy(text) }, { requiredKeys: [] }),
  hugeValue,
);
const merchantCase = fc.record({
  route: fc.constantFrom(...ROUTE_SCOPES),
  id: fc.oneof(ids, edgeText, fc.string({ maxLength: 12 })).map(pct),
  query: fc.option(fc.record({ limit: fc.oneof(int, text), cursor: text }, { requiredKeys: [] }), { nil: undefined }),
  body: fc.option(body(merchantBody), { nil: undefined }),
  auth: fc.constantFrom('token', 'token', 'token', 'none', 'garbage'),
});

const graphqlCase = fc.record({
  method: fc.constantFrom('GET', 'POST'),
  query: fc.oneof(fc.constantFrom('{ apiVersion }', 'query($x: String) { apiVersion }', '{ __typename }', '{ apiVersion { x } }', 'mutation { x }'), text),
  variables: fc.option(fc.oneof(fc.dictionary(text, fc.oneof(text, int, hugeValue), { maxKeys: 3 }), fc.jsonValue({ maxDepth: 2 })), { nil: undefined }),
  operationName: fc.option(text, { nil: undefined }),
});

const tokenForm = fc.dictionary(
  fc.oneof(fc.constantFrom('grant_type', 'code', 'redirect_uri', 'client_id', 'client_secret', 'refresh_token', 'scope', 'code_verifier'), text),
  fc.oneof(fc.constantFrom('authorization_code', 'refresh_token', 'demo-app', 'demo-public', 'demo-secret', 'http://127.0.0.1:5555/callback', 'products_read products_write'), text),
  { maxKeys: 6 },
);

describe(`fuzz (${RUNS} cases per property)`, () => {
  it('merchant API: no 5xx; errors are {error: {code, message}}', async () => {
    await fc.assert(
      fc.asyncProperty(merchantCase, async (m) => {
        const query = m.query ? `?${Object.entries(m.query).map(([k, v]) => `${k}=${pct(String(v))}`).join('&')}` : '';
        const path = `/merchants/shop_demo${m.route.path.replace(/\{\w+\}/, m.id)}${query}`;
        const auth = m.auth === 'token' ? `Bearer ${merchantToken}` : m.auth === 'garbage' ? 'Bearer nope' : undefined;
        const hasBody = m.body !== undefined && m.route.method !== 'GET';
        const headers: Record<string, string> = { ...(auth ? { authorization: auth } : {}), ...(hasBody ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(m.body!)) } : {}) };
        const r = await s.req('localhost', m.route.method, path, hasBody ? m.body : undefined, headers);
        const where = `${m.route.method} ${path.slice(0, 200)} ${String(m.body).slice(0, 300)} -> ${r.status} ${r.text.slice(0, 300)}`;
        expect(r.status, where).toBeLessThan(500);
        if (r.status >= 400 && !NODE_LIMITS.includes(r.status)) expect(typeof r.body?.error?.code, where).toBe('string');
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, Math.max(120_000, RUNS * 200));

  it('GraphQL: no 5xx; a refusal carries errors', async () => {
    await fc.assert(
      fc.asyncProperty(graphqlCase, async (g) => {
        const params = { query: g.query, ...(g.variables !== undefined ? { variables: g.variables } : {}), ...(g.operationName !== undefined ? { operationName: g.operationName } : {}) };
        const r =
          g.method === 'POST'
            ? await s.req(HOST, 'POST', '/graphql/3.0', params, { accept: 'application/graphql-response+json' })
            : await s.req(HOST, 'GET', `/graphql/3.0?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))}`, undefined, { accept: 'application/graphql-response+json' });
        const where = `${g.method} ${JSON.stringify(params).slice(0, 300)} -> ${r.status} ${r.text.slice(0, 300)}`;
        expect(r.status, where).toBeLessThan(500);
        // 405/406 are graphql-http's transport answers.
        if (r.status >= 400 && ![405, 406, ...NODE_LIMITS].includes(r.status)) expect(Array.isArray(r.body?.errors), where).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, Math.max(120_000, RUNS * 200));

  it('token endpoint: no 5xx; errors are RFC 6749 {error, error_description}', async () => {
    await fc.assert(
      fc.asyncProperty(tokenForm, fc.boolean(), async (form, basic) => {
        const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
        if (basic) headers.authorization = `Basic ${Buffer.from(`${form.client_id ?? 'demo-app'}:${form.client_secret ?? 'x'}`).toString('base64')}`;
        const r = await s.req('localhost', 'POST', '/oauth2/access_token', new URLSearchParams(form).toString(), headers);
        const where = `${JSON.stringify(form).slice(0, 300)} basic=${basic} -> ${r.status} ${r.text.slice(0, 300)}`;
        expect(r.status, where).toBeLessThan(500);
        if (r.status >= 400) expect(typeof r.body?.error, where).toBe('string');
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, Math.max(120_000, RUNS * 200));

  it('REST: no 5xx; errors in the flat {code, content} envelope; successes carry ucp', async () => {
    await fc.assert(
      fc.asyncProperty(restCase, async (c) => checkRest(c, await send(c))),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, Math.max(120_000, RUNS * 200));

  it('MCP JSON-RPC envelope: no 5xx; every request answered within the deadline, by id; pooled servers all returned', async () => {
    await fc.assert(
      fc.asyncProperty(envelopeBody, async (b) => checkEnvelope(b, await postWithin(JSON.stringify(b), ENVELOPE_DEADLINE_MS))),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    expect(mcpServersInUse()).toBe(0);
    // The totals docs/security.md quotes for the 100,000-case run.
    console.log(`MCP envelope fuzz totals: ${JSON.stringify(envelopeTotals)}`);
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
