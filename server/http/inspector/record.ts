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
import { parseJson, redactBody, redactHeaders } from './redact.ts';
import { BODY_MAX_CHARS, logFor, nextExchangeId, type Exchange, type InspectorTransport, type Note } from './store.ts';
import { canonical, hygieneNotes, type Call } from './notes.ts';
import { WRITE_OPERATIONS } from '../../core/access/access-policy.ts';
import { restOperation } from '../rest-operation.ts';

/** What the shop's own page may say about itself (host.js's WebMCP tools): `UCP-Inspector-Transport: webmcp`. */
export const PAGE_TRANSPORT_HEADER = 'ucp-inspector-transport';
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

/** The `profile` of a UCP-Agent header (RFC 8941 dictionary), or the header itself when it has none. */
function profileOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  return /profile\s*=\s*"([^"]*)"/.exec(header)?.[1] ?? header.slice(0, 300);
}

function mcpCalls(parsed: unknown): { calls: Call[]; profile: string | null } {
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const calls: Call[] = [];
  let profile: string | null = null;
  for (const m of messages.slice(0, 50)) {
    if (!isObject(m) || typeof m.method !== 'string') continue;
    if (m.method !== 'tools/call') {
      calls.push({ operation: m.method.slice(0, 60), write: false, fingerprint: '', agentNamed: true });
      continue;
    }
    const name = String(m.params?.name ?? '?').slice(0, 60);
    const args = isObject(m.params?.arguments) ? m.params.arguments : {};
    const meta = isObject(args.meta) ? args.meta : {};
    const named = typeof meta['ucp-agent']?.profile === 'string' ? (meta['ucp-agent'].profile as string) : null;
    profile ??= named;
    const { meta: _meta, ...asked } = args;
    const key = typeof meta['idempotency-key'] === 'string' ? meta['idempotency-key'] : undefined;
    const write = WRITE_OPERATIONS.has(name) || /^(add|update|remove)_cart_lines$/.test(name);
    calls.push({ operation: name, write, ...(key ? { idempotencyKey: key } : {}), fingerprint: canonical({ name, asked }), agentNamed: named !== null });
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
      if (typeof id === 'string') ids.add(id.slice(0, 200));
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
async function responseText(res: Response): Promise<string> {
  const key = Object.getOwnPropertySymbols(res).find((k) => k.description === 'cache');
  const cached = key && (res as unknown as Record<symbol, unknown>)[key];
  if (Array.isArray(cached) && (typeof cached[1] === 'string' || cached[1] === null)) return cached[1] ?? '';
  if (res.body === null) return '';
  return res.clone().text();
}

async function record(c: Context<AppEnv>, shop: Shop, transport: 'rest' | 'mcp', at: number, ms: number): Promise<void> {
  const cached = c.req.bodyCache.text;
  const requestText = cached === undefined ? null : await cached;
  const req = requestText === null ? { body: null, truncated: false, parsed: undefined } : { ...redactBody(requestText, BODY_MAX_CHARS), parsed: parseJson(requestText) };
  const res = c.res;
  const answerText = await responseText(res);
  // Parsed only when it can hold what the notes read (messages, error codes): not a search's products.
  const answer = { ...redactBody(answerText, BODY_MAX_CHARS), parsed: res.status >= 400 || answerText.includes('"code"') ? parseJson(answerText) : undefined };
  const path = new URL(c.req.url).pathname;
  const agentHeader = c.req.header('ucp-agent');
  let calls: Call[];
  let profile: string | null;
  let kind: InspectorTransport;
  if (transport === 'mcp') {
    ({ calls, profile } = mcpCalls(req.parsed));
    kind = 'mcp';
  } else {
    const operation = restOperationName(c.req.method, path);
    const key = c.req.header('idempotency-key');
    // A body the server never read (a fault, a refusal first) has no fingerprint: '' compares with nothing.
    // Only a keyed write is compared with earlier uses of its key: reads are not fingerprinted.
    const write = WRITE_OPERATIONS.has(operation);
    const fingerprint = !write || !key || (requestText === null && c.req.method !== 'GET') ? '' : canonical({ operation, path, body: req.parsed ?? null });
    calls = [{ operation, write, ...(key ? { idempotencyKey: key } : {}), fingerprint, agentNamed: agentHeader !== undefined }];
    profile = profileOf(agentHeader);
    kind = restTransport(c);
  }
  const messages = answerMessages(answer.parsed);
  const refusal = messages.find((m) => DISCOVERY_CODES.has(m.code));
  const shopLog = logFor(shop.id, shop.domain);
  const id = nextExchangeId();
  const notes = hygieneNotes(shopLog, {
    exchangeId: id,
    at,
    endedAt: Date.now(),
    who: profile ?? `client ${c.get('client')}`,
    transport: kind,
    calls,
    status: res.status,
    ...(retryAfterSeconds(res.headers.get('retry-after')) !== undefined ? { retryAfterS: retryAfterSeconds(res.headers.get('retry-after')) } : {}),
    ...(refusal ? { profileRefusal: { code: refusal.code, content: refusal.content } } : {}),
  });
  const exchange: Exchange = {
    id,
    at: new Date(at).toISOString(),
    transport: kind,
    method: c.req.method,
    path: path.slice(0, 300),
    operation: calls.length ? calls.map((x) => x.operation).join(', ') : c.req.method,
    status: res.status,
    duration_ms: Math.round(ms * 10) / 10,
    agent: profile,
    idempotency_key: calls.find((x) => x.idempotencyKey)?.idempotencyKey ?? null,
    request: { headers: redactHeaders(Object.entries(c.req.header())), body: req.body, truncated: req.truncated },
    response: { headers: redactHeaders(res.headers.entries()), body: answer.body || null, truncated: answer.truncated },
    notes,
  };
  shopLog.add(exchange);
  const roots = transport === 'mcp' ? (Array.isArray(req.parsed) ? req.parsed : [req.parsed]).map((m: any) => m?.params?.arguments) : [req.parsed];
  notes.push(...(await productIdsAsVariants(c, shop, messages, roots)));
}

/** The recording middleware; `transport` by mount point. */
export function inspectExchanges(transport: 'rest' | 'mcp'): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const config = c.get('config');
    if (config.mode !== 'development' || config.inspector === false || c.req.method === 'OPTIONS') return next();
    const shop = c.get('shop');
    if (!shop) return next();
    const at = Date.now();
    const t0 = performance.now();
    await next();
    const ms = performance.now() - t0;
    // The inspector is a window on the exchange, never a reason for it to fail.
    await record(c, shop, transport, at, ms).catch((err: unknown) => log.error('inspector', 'recording an exchange failed', { err }));
  };
}
