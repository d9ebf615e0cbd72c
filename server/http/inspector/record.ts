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
import { logFor, nextExchangeId, recordingPaused, type Note, type Recorded, type ShopLog } from './store.ts';
import { FIELD_CHARS, own, profileOf } from './fields.ts';
import { canonical, digest, hygieneNotes, lazy, NO_NOTES, type Call } from './notes.ts';
import { incomingOf } from '../metrics.ts';
import { WRITE_OPERATIONS } from '../../core/access/access-policy.ts';
import { restOperation } from '../rest-operation.ts';

const NONE = () => '';
const DISCOVERY_CODES = new Set(['invalid_profile_url', 'profile_unreachable', 'profile_malformed', 'version_unsupported']);
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The UCP operation of a request under `/api/ucp`, or `METHOD /path` for anything else. */
function restOperationName(method: string, path: string): string {
  const rest = path.startsWith('/api/ucp') ? path.slice('/api/ucp'.length) : path;
  return restOperation(method, rest) ?? `${method} ${rest.slice(0, 80) || '/'}`;
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
async function productIdsAsVariants(c: Context<AppEnv>, shopId: string, messages: Array<Record<string, any>>, asked: unknown[]): Promise<Note[]> {
  const ids = new Set<string>();
  for (const m of messages) {
    if (m.code !== 'not_found' || typeof m.path !== 'string' || !/\.item\.id$/.test(m.path)) continue;
    for (const root of asked) {
      const id = atPath(root, m.path) ?? atPath(isObject(root) ? root.cart : undefined, m.path.replace(/^\$\.cart/, '$'));
      if (typeof id === 'string') ids.add(own(id, 200));
    }
  }
  if (!ids.size) return [];
  const rows = await c.get('db').selectFrom('products').select('id').where('shop_id', '=', shopId).where('id', 'in', [...ids]).execute();
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
 * string or byte body in a `Symbol(cache)` entry `[status, body, headers]` and writes it straight to the
 * socket; `clone()` or `text()` would turn it into a full undici Response first (measured: ~0.4-1 ms
 * per search answer, more than the search). Any other body is read from a clone.
 */
function responseText(res: Response): string | Uint8Array | Promise<string> {
  const cached = cacheOf(res);
  if (Array.isArray(cached) && (typeof cached[1] === 'string' || cached[1] === null)) return cached[1] ?? '';
  // REST's JSON answers are sent as bytes (rest.ts): kept as bytes, decoded only where read.
  if (Array.isArray(cached) && cached[1] instanceof Uint8Array) return cached[1];
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
  if (cached === undefined && !(answer instanceof Promise)) return recordRead(c, shop, transport, at, ms, read ?? null, answer);
  return Promise.all([cached ?? read ?? null, answer]).then(([requestText, answerText]) => recordRead(c, shop, transport, at, ms, requestText, answerText));
}

function recordRead(c: Context<AppEnv>, shop: Shop, transport: 'rest' | 'mcp', at: number, ms: number, requestText: string | null, answerText: string | Uint8Array): Promise<void> | undefined {
  const res = c.res;
  const method = c.req.method;
  const path = own(c.req.path, 300);
  const shopLog = logFor(shop.id, shop.domain);
  // Every field, in one order, on every exchange: one object shape, built once (a spread of a
  // partial one into another cost more than the rest of a search's recording). The store copies
  // the texts into its arena and keeps none of these references.
  const r: Recorded = {
    id: nextExchangeId(),
    at,
    transport: undefined,
    method,
    path,
    operation: transport === 'rest' ? restOperationName(method, path) : '',
    status: res.status,
    durationMs: ms,
    agent: undefined,
    idempotencyKey: undefined,
    agentNamed: undefined,
    refusal: undefined,
    origin: c.get('origin'),
    requestHeaders: rawHeaders(c),
    responseHeaders: answerHeaders(res),
    requestBody: requestText,
    responseBody: answerText,
    notes: NO_NOTES,
  };
  // A REST read that went through, with no Retry-After pending for anyone: nothing in the agent's
  // sequence to note, and what the exchange says by itself is read from its headers when shown.
  // A search is recorded as this and nothing more.
  if (transport === 'rest' && r.status < 400 && !WRITE_OPERATIONS.has(r.operation) && !shopLog.waits.size) {
    shopLog.add(r);
    return undefined;
  }
  return recordSequence(c, shopLog, r, transport, requestText, typeof answerText === 'string' ? answerText : Buffer.from(answerText.buffer, answerText.byteOffset, answerText.byteLength).toString('utf8'));
}

/** An exchange whose notes depend on what came before (a write, a refusal, a wait pending): the whole reading. */
function recordSequence(c: Context<AppEnv>, shopLog: ShopLog, r: Recorded, transport: 'rest' | 'mcp', requestText: string | null, answerText: string): Promise<void> | undefined {
  let parsedRequest: unknown;
  let parsed = false;
  const requestJson = () => {
    if (!parsed) [parsedRequest, parsed] = [requestText === null ? undefined : parseJson(requestText), true];
    return parsedRequest;
  };
  let calls: Call[];
  let profile: string | null;
  if (transport === 'mcp') {
    ({ calls, profile } = mcpCalls(requestJson()));
  } else {
    const operation = r.operation;
    const agentHeader = c.req.header('ucp-agent');
    // A body the server never read (a fault, a refusal first) has no fingerprint: '' compares with nothing.
    // Reads are not fingerprinted; writes are (a hash), to tell a retry from a new request.
    const write = WRITE_OPERATIONS.has(operation);
    const fingerprint = !write || (requestText === null && r.method !== 'GET') ? NONE : lazy(() => digest(canonical({ operation, path: r.path, body: requestJson() ?? null })));
    calls = [{ operation, write, ...keyOf(c.req.header('idempotency-key')), fingerprint, agentNamed: agentHeader !== undefined }];
    profile = profileOf(agentHeader);
  }
  // Parsed only when it can hold what the notes read: a refusal (REST: 4xx; MCP: an error in a 200),
  // a cart write's messages.
  const status = r.status;
  const scan = status >= 400 || transport === 'mcp' || calls.some((x) => x.write);
  const answerParsed = scan && (status >= 400 || answerText.includes('"code"')) ? parseJson(answerText) : undefined;
  const messages = answerMessages(answerParsed);
  const refusal = messages.find((m) => DISCOVERY_CODES.has(m.code));
  const retryAfter = status === 429 || status === 503 ? retryAfterSeconds(headerOf(r.responseHeaders, 'retry-after')) : undefined;
  const notes = hygieneNotes(shopLog, {
    exchangeId: r.id,
    at: r.at,
    endedAt: Date.now(),
    who: profile ?? `client ${c.get('client')}`,
    transport,
    calls,
    status,
    ...(retryAfter !== undefined ? { retryAfterS: retryAfter } : {}),
  });
  r.operation = calls.length ? calls.map((x) => x.operation).join(', ') : r.method;
  if (transport === 'mcp') {
    r.transport = 'mcp';
    r.agent = profile;
    r.idempotencyKey = calls.find((x) => x.idempotencyKey)?.idempotencyKey ?? null;
    r.agentNamed = calls.every((x) => x.agentNamed);
  }
  if (refusal) r.refusal = { code: own(refusal.code, 60), content: own(refusal.content, 300) };
  r.notes = notes;
  shopLog.add(r);
  if (!messages.length) return undefined;
  const roots = transport === 'mcp' ? (Array.isArray(requestJson()) ? (requestJson() as unknown[]) : [requestJson()]).map((m: any) => m?.params?.arguments) : [requestJson()];
  return productIdsAsVariants(c, shopLog.shopId, messages, roots).then((found) => void notes.push(...found));
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
