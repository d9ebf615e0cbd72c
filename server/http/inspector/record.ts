/**
 * The request inspector's one recording point (docs/sandbox.md "Request inspector"): a middleware
 * on the UCP transports' edges (server/app.ts mounts it on `/api/ucp/*` and `/mcp`), nothing in the
 * core. Development only (and not with UCP_INSPECTOR=off): otherwise it is one comparison and `next()`.
 *
 * It runs after the handler, so it reads what the handler read (Hono caches the body text; a body
 * the server never read, as under a sandbox fault or a 413, is not read here either) and the
 * response as sent. Everything the notes need is decided before the response leaves, so an agent
 * retrying at once is measured against the Retry-After it was just given.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import type { Shop } from '../../formats/types.ts';
import { log } from '../../lib/log.ts';
import { parseJson } from './redact.ts';
import { FIELD_CHARS, keepBody, logFor, nextExchangeId, own, recordingPaused, type InspectorTransport, type Note, type Recorded } from './store.ts';
import { canonical, digest, hygieneNotes, lazy, type Call } from './notes.ts';
import { incomingOf } from '../metrics.ts';
import { WRITE_OPERATIONS } from '../../core/access/access-policy.ts';
import { restOperation } from '../rest-operation.ts';

/** What the shop's own page may say about itself (host.js's WebMCP tools): `UCP-Inspector-Transport: webmcp`. */
export const PAGE_TRANSPORT_HEADER = 'ucp-inspector-transport';
const NONE = () => '';
const DISCOVERY_CODES = new Set(['invalid_profile_url', 'profile_unreachable', 'profile_malformed', 'version_unsupported']);
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The UCP operation of a request under `/api/ucp`, or `METHOD /path` for anything else. */
function restOperationName(method: string, path: string): string {
  const rest = path.replace(/^\/api\/ucp/, '');
  return restOperation(method, rest) ?? `${method} ${rest.slice(0, 80) || '/'}`;
}

/** Host.js on the shop's own page carries its storefront token; the embedded cart page is `/cart/…`. */
function restTransport(c: Context<AppEnv>): InspectorTransport {
  const referer = c.req.header('referer');
  try {
    if (referer && new URL(referer).origin === c.get('origin') && new URL(referer).pathname.startsWith('/cart/')) return 'embedded';
  } catch {
    /* not a URL: an agent's own header */
  }
  if (!/^Bearer sft_/i.test(c.req.header('authorization') ?? '')) return 'rest';
  return c.req.header(PAGE_TRANSPORT_HEADER)?.trim().toLowerCase() === 'webmcp' ? 'webmcp' : 'page';
}

/** The `profile` of a UCP-Agent header (RFC 8941 dictionary), or the header itself when it has none; a bounded copy. */
function profileOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  return own(/profile\s*=\s*"([^"]*)"/.exec(header)?.[1] ?? header, FIELD_CHARS);
}

/** An idempotency key as the notes keep it: a bounded copy to show and a hash of all of it to compare. */
function keyOf(key: string | undefined): Pick<Call, 'idempotencyKey' | 'keyHash'> {
  return key ? { idempotencyKey: own(key, FIELD_CHARS), keyHash: digest(key) } : {};
}

function mcpCalls(parsed: unknown): { calls: Call[]; profile: string | null } {
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const calls: Call[] = [];
  let profile: string | null = null;
  for (const m of messages.slice(0, 50)) {
    if (!isObject(m) || typeof m.method !== 'string') continue;
    if (m.method !== 'tools/call') {
      calls.push({ operation: own(m.method, 60), write: false, fingerprint: NONE, agentNamed: true });
      continue;
    }
    const name = String(m.params?.name ?? '?').slice(0, 60);
    const args = isObject(m.params?.arguments) ? m.params.arguments : {};
    const meta = isObject(args.meta) ? args.meta : {};
    // Up to ~1 MiB in a body: kept as a bounded copy (issue 39 point 1).
    const named = typeof meta['ucp-agent']?.profile === 'string' ? own(meta['ucp-agent'].profile as string, FIELD_CHARS) : null;
    profile ??= named;
    const { meta: _meta, ...asked } = args;
    const key = typeof meta['idempotency-key'] === 'string' ? meta['idempotency-key'] : undefined;
    const write = WRITE_OPERATIONS.has(name) || /^(add|update|remove)_cart_lines$/.test(name);
    calls.push({ operation: name, write, ...keyOf(key), fingerprint: write ? lazy(() => digest(canonical({ name, asked }))) : NONE, agentNamed: named !== null });
  }
  return { calls, profile };
}

/** Every `{code, content}` in an answer (REST's body and messages, MCP's error data and tool results). */
function answerMessages(v: unknown, out: Array<Record<string, any>> = [], depth = 0): Array<Record<string, any>> {
  if (depth > 6 || out.length > 50 || v === null || typeof v !== 'object') return out;
  if (isObject(v) && typeof v.code === 'string' && typeof v.content === 'string') out.push(v);
  for (const x of Array.isArray(v) ? v : Object.values(v)) answerMessages(x, out, depth + 1);
  return out;
}

/** `$.a.b[0].c` read from `root`. */
function atPath(root: unknown, path: string): unknown {
  let v: any = root;
  for (const [, key, index] of path.replace(/^\$/, '').matchAll(/\.([A-Za-z0-9_-]+)|\[(\d+)\]/g)) v = v?.[key ?? Number(index)];
  return v;
}

/** Ids the answer called unknown at a line's `item.id` that are this shop's product ids. */
async function productIdsAsVariants(c: Context<AppEnv>, shop: Shop, messages: Array<Record<string, any>>, asked: unknown[]): Promise<Note[]> {
  const ids = new Set<string>();
  for (const m of messages) {
    if (m.code !== 'not_found' || typeof m.path !== 'string' || !/\.item\.id$/.test(m.path)) continue;
    for (const root of asked) {
      const id = atPath(root, m.path) ?? atPath(isObject(root) ? root.cart : undefined, m.path.replace(/^\$\.cart/, '$'));
      if (typeof id === 'string') ids.add(own(id, 200));
    }
  }
  if (!ids.size) return [];
  const rows = await c.get('db').selectFrom('products').select('id').where('shop_id', '=', shop.id).where('id', 'in', [...ids]).execute();
  return rows.map((r) => ({ code: 'product_id_for_variant' as const, message: `'${r.id}' is a product id; a cart line takes a variant id (product.variants[].id from search_catalog or get_product).` }));
}

function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const when = Date.parse(value);
  return Number.isNaN(when) ? undefined : Math.max(0, Math.round((when - Date.now()) / 1000));
}

/**
 * The text of an answer without disturbing it. @hono/node-server's lightweight Response keeps a
 * string body in a `Symbol(cache)` entry `[status, body, headers]` and writes it straight to the
 * socket; `clone()` or `text()` would turn it into a full undici Response first (measured: ~0.4-1 ms
 * per search answer, more than the search). Any other body is read from a clone.
 */
function responseText(res: Response): string | Promise<string> {
  const cached = cacheOf(res);
  if (Array.isArray(cached) && (typeof cached[1] === 'string' || cached[1] === null)) return cached[1] ?? '';
  if (res.body === null) return '';
  return res.clone().text();
}

/** The adapter's cache symbol, found once (one per loaded @hono/node-server). */
let cacheKey: symbol | undefined;

function cacheOf(res: Response): unknown {
  if (cacheKey === undefined || !(cacheKey in res)) cacheKey = Object.getOwnPropertySymbols(res).find((k) => k.description === 'cache') ?? cacheKey;
  return cacheKey && (res as unknown as Record<symbol, unknown>)[cacheKey];
}

/**
 * The answer's headers as they are (a plain object, an array of pairs or a Headers), never built
 * into a Headers object here: `res.headers` on the lightweight Response does that, and then the
 * adapter writes the answer from it, slower (measured: ~2.5 µs a request).
 */
function answerHeaders(res: Response): Recorded['responseHeaders'] {
  const cached = cacheOf(res);
  const h = Array.isArray(cached) ? cached[2] : undefined;
  if (Array.isArray(cached) && (h === undefined || h === null)) return [];
  return h && typeof h === 'object' ? (h as Recorded['responseHeaders']) : res.headers;
}

/** One header of those, by name in any case. */
function headerOf(headers: Recorded['responseHeaders'], name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  for (const [k, v] of Array.isArray(headers) ? headers : Object.entries(headers)) if (k.toLowerCase() === name) return String(v);
  return null;
}

/** Request headers as Node received them (a reference, bounded by Node's header size limit). */
function rawHeaders(c: Context<AppEnv>): readonly string[] {
  const raw = incomingOf(c)?.rawHeaders;
  return raw ?? Object.entries(c.req.header()).flat();
}

/**
 * What the request path does: the notes (they must be decided before the next request), and
 * references or bounded copies of what the exchange showed. Redaction, the display cut and
 * serialization wait until the inspector is read (store.ts).
 */
function record(c: Context<AppEnv>, shop: Shop, transport: 'rest' | 'mcp', at: number, ms: number): Promise<void> | undefined {
  // The body text as the edge read it (no turn to wait), else Hono's cache of it (a promise), else
  // never read (null). Most exchanges are recorded without a single await.
  const read = c.get('bodyText');
  const cached = read === undefined ? c.req.bodyCache.text : undefined;
  const answer = responseText(c.res);
  if (cached === undefined && typeof answer === 'string') return recordRead(c, shop, transport, at, ms, read ?? null, answer);
  return Promise.all([cached ?? read ?? null, answer]).then(([requestText, answerText]) => recordRead(c, shop, transport, at, ms, requestText, answerText));
}

function recordRead(c: Context<AppEnv>, shop: Shop, transport: 'rest' | 'mcp', at: number, ms: number, requestText: string | null, answerText: string): Promise<void> | undefined {
  let parsedRequest: unknown;
  let parsed = false;
  const requestJson = () => {
    if (!parsed) [parsedRequest, parsed] = [requestText === null ? undefined : parseJson(requestText), true];
    return parsedRequest;
  };
  const res = c.res;
  const path = own(c.req.path, 300);
  const agentHeader = c.req.header('ucp-agent');
  let calls: Call[];
  let profile: string | null;
  let kind: InspectorTransport;
  if (transport === 'mcp') {
    ({ calls, profile } = mcpCalls(requestJson()));
    kind = 'mcp';
  } else {
    const operation = restOperationName(c.req.method, path);
    const key = c.req.header('idempotency-key');
    // A body the server never read (a fault, a refusal first) has no fingerprint: '' compares with nothing.
    // Reads are not fingerprinted; writes are (a hash), to tell a retry from a new request.
    const write = WRITE_OPERATIONS.has(operation);
    const fingerprint = !write || (requestText === null && c.req.method !== 'GET') ? NONE : lazy(() => digest(canonical({ operation, path, body: requestJson() ?? null })));
    calls = [{ operation, write, ...keyOf(key), fingerprint, agentNamed: agentHeader !== undefined }];
    profile = profileOf(agentHeader);
    kind = restTransport(c);
  }
  // Parsed only when it can hold what the notes read: a refusal (REST: 4xx; MCP: an error in a 200),
  // a cart write's messages. A REST read that succeeded (a search: the request most often made) is
  // never scanned: `includes` on its answer, a rope of cached product fragments, flattened and
  // searched it, ~10 µs a search (measured with bench/profile.ts, inlining off).
  const scan = res.status >= 400 || transport === 'mcp' || calls.some((x) => x.write);
  const answerParsed = scan && (res.status >= 400 || answerText.includes('"code"')) ? parseJson(answerText) : undefined;
  const messages = answerMessages(answerParsed);
  const refusal = messages.find((m) => DISCOVERY_CODES.has(m.code));
  const shopLog = logFor(shop.id, shop.domain);
  const id = nextExchangeId();
  const responseHeaders = answerHeaders(res);
  const retryAfter = retryAfterSeconds(headerOf(responseHeaders, 'retry-after'));
  const notes = hygieneNotes(shopLog, {
    exchangeId: id,
    at,
    endedAt: Date.now(),
    who: profile ?? `client ${c.get('client')}`,
    transport: kind,
    calls,
    status: res.status,
    ...(retryAfter !== undefined ? { retryAfterS: retryAfter } : {}),
    ...(refusal ? { profileRefusal: { code: own(refusal.code, 60), content: own(refusal.content, 300) } } : {}),
  });
  const request = keepBody(requestText);
  const response = keepBody(answerText);
  shopLog.add({
    id,
    at,
    transport: kind,
    method: c.req.method,
    path,
    operation: calls.length ? calls.map((x) => x.operation).join(', ') : c.req.method,
    status: res.status,
    durationMs: ms,
    agent: profile,
    idempotencyKey: calls.find((x) => x.idempotencyKey)?.idempotencyKey ?? null,
    requestHeaders: rawHeaders(c),
    responseHeaders,
    requestBody: request.body,
    requestCut: request.cut,
    responseBody: response.body,
    responseCut: response.cut,
    notes,
  });
  if (!messages.length) return undefined;
  const roots = transport === 'mcp' ? (Array.isArray(requestJson()) ? (requestJson() as unknown[]) : [requestJson()]).map((m: any) => m?.params?.arguments) : [requestJson()];
  return productIdsAsVariants(c, shop, messages, roots).then((found) => void notes.push(...found));
}

/** The recording middleware; `transport` by mount point. */
export function inspectExchanges(transport: 'rest' | 'mcp'): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const config = c.get('config');
    if (config.mode !== 'development' || config.inspector === false || recordingPaused() || c.req.method === 'OPTIONS') return next();
    const shop = c.get('shop');
    if (!shop) return next();
    const at = Date.now();
    const t0 = performance.now();
    await next();
    const ms = performance.now() - t0;
    // The inspector is a window on the exchange, never a reason for it to fail.
    try {
      const pending = record(c, shop, transport, at, ms);
      if (pending) await pending;
    } catch (err) {
      log.error('inspector', 'recording an exchange failed', { err });
    }
  };
}
