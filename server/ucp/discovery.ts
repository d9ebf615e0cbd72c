/**
 * `GET /.well-known/ucp`: public, cacheable, never redirected. The ETag is a hash of the body, so a
 * revalidation costs one hash and answers 304.
 *
 * Two ways in, one document: the Hono route (every case) and a fast path on the raw Node request
 * that answers only when everything it needs is already cached — the shop (server/core/shops/shops.ts)
 * and the rendered profile below — and otherwise lets the request through to Hono. Discovery is the
 * document every agent fetches first and most often; the fast path skips the Request/Response
 * adaptation, routing and middleware that cost it half its throughput (docs/benchmarks.md).
 *
 * Versions (server/ucp/versions.ts): `/.well-known/ucp` is the latest version's profile, naming each
 * older version's leaf profile (`/.well-known/ucp/<version>`) in `supported_versions`; the leaf is
 * served by the Hono route only.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Handler } from 'hono';
import type { AppEnv } from '../http/env.ts';
import type { Config } from '../config.ts';
import type { DB } from '../db/index.ts';
import type { Shop } from '../formats/types.ts';
import { requestOrigin } from '../http/origin.ts';
import { cachedShop } from '../core/shops/shops.ts';
import { shopOf } from './guard.ts';
import { publishedKeys } from '../core/access/signing-keys.ts';
import { isServedVersion, OLDER_VERSIONS, profileAt } from './versions.ts';
import { UCP_LATEST, type UcpVersion } from '../version.ts';

export const DISCOVERY_PATH = '/.well-known/ucp';
/** The older versions' leaf profiles (`/.well-known/ucp/2026-04-08`). */
export const DISCOVERY_LEAF_PATH = `${DISCOVERY_PATH}/:version`;

/**
 * The rendered profile is kept per (shop, origin) for as long as the cached shop object itself (a
 * settings change shows within the shop cache's few seconds). Shops with order webhooks are not
 * cached: their signing keys can rotate at any moment.
 */
const TTL_MS = 5_000;
interface Rendered {
  body: string;
  /** Byte length of body, for Content-Length on the fast path. */
  length: number;
  etag: string;
  shop: Shop;
  at: number;
}
const rendered = new Map<string, Rendered>();

function cachedProfile(shop: Shop, origin: string, version: UcpVersion = UCP_LATEST, now = Date.now()): Rendered | undefined {
  if (shop.settings.order_webhooks_enabled) return undefined;
  const hit = rendered.get(`${shop.id} ${origin} ${version}`);
  return hit && hit.shop === shop && now - hit.at <= TTL_MS ? hit : undefined;
}

async function renderProfile(db: DB, shop: Shop, origin: string, version: UcpVersion): Promise<Rendered> {
  const hit = cachedProfile(shop, origin, version);
  if (hit) return hit;
  // Webhook signing keys (current + retiring ones in their grace period), only while order webhooks are on.
  const keys = shop.settings.order_webhooks_enabled ? await publishedKeys(db, shop.id) : undefined;
  const body = JSON.stringify(profileAt(version, shop, origin, keys));
  const fresh = { body, length: Buffer.byteLength(body), etag: `"${createHash('sha1').update(body).digest('base64url')}"`, shop, at: Date.now() };
  if (rendered.size > 1_000) rendered.clear();
  if (!keys) rendered.set(`${shop.id} ${origin} ${version}`, fresh);
  return fresh;
}

/** Does an If-None-Match header name this ETag (weak or strong)? */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  return !!ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

function headersFor(etag: string): Record<string, string> {
  return { 'Cache-Control': 'public, max-age=300', ETag: etag, Vary: 'Host' };
}

/** The discovery handler; mount it behind `requireProtocol` (and the public CORS middleware). */
export const discoveryHandler: Handler<AppEnv> = async (c) => {
  // `/.well-known/ucp/<version>`: an older version's leaf; any other name is not a profile here.
  const named = c.req.param('version');
  if (named !== undefined && !(isServedVersion(named) && Object.hasOwn(OLDER_VERSIONS, named))) {
    return c.json({ code: 'not_found', content: `No UCP profile for version '${named.slice(0, 40)}' here; /.well-known/ucp lists the versions this shop serves.` }, 404);
  }
  const version = named ?? UCP_LATEST;
  const { body, etag } = await renderProfile(c.get('db'), shopOf(c), c.get('origin'), version);
  for (const [name, value] of Object.entries(headersFor(etag))) c.header(name, value);
  if (matches(c.req.header('if-none-match'), etag)) return c.body(null, 304);
  return c.body(body, 200, { 'Content-Type': 'application/json' });
};

/**
 * The fast path: answers `GET /.well-known/ucp` (exactly that URL) from the caches and returns true,
 * or returns false without touching the response. Anything unusual (a query string, HEAD, an
 * unknown or uncached shop, the protocol off, a malformed Host, a shop with webhook keys) goes to
 * the Hono route, which also fills the caches this reads.
 */
export function discoveryFastPath(opts: { db: DB; config: Pick<Config, 'trustProxy' | 'host' | 'port'>; corsHeaders: Record<string, string> }) {
  // Prepared answers per rendered profile: header lists built once, not per request.
  const prepared = new WeakMap<Rendered, { ok: string[]; notModified: string[] }>();
  const prepare = (hit: Rendered) => {
    const common = Object.entries({ ...opts.corsHeaders, ...headersFor(hit.etag) }).flat();
    const p = { ok: [...common, 'Content-Type', 'application/json', 'Content-Length', String(hit.length)], notModified: common };
    prepared.set(hit, p);
    return p;
  };
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.url !== DISCOVERY_PATH || req.method !== 'GET') return false;
    const o = requestOrigin((name) => req.headers[name] as string | undefined, opts.config);
    if (!o) return false;
    const shop = cachedShop(opts.db, o.hostname);
    if (!shop || !shop.protocolEnabled) return false;
    const hit = cachedProfile(shop, o.origin);
    if (!hit) return false;
    const p = prepared.get(hit) ?? prepare(hit);
    if (matches(req.headers['if-none-match'], hit.etag)) {
      res.writeHead(304, p.notModified);
      res.end();
    } else {
      res.writeHead(200, p.ok);
      res.end(hit.body);
    }
    return true;
  };
}
