/**
 * Order webhook endpoints per shop (docs/webhooks.md): which URLs are acceptable, and registering,
 * changing and removing endpoints. The first endpoint turns order webhooks on for the shop (which
 * publishes `signing_keys` in discovery); removing the last turns them off. Deliveries and the
 * worker that sends them are in webhooks.ts.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { DB } from '../../db/index.ts';
import type { Shop } from '../../formats/types.ts';
import { z } from 'zod';
import { InvalidRequest } from '../shared/errors.ts';
import { validate } from '../shared/validate.ts';
import { ensureShopKey } from '../access/signing-keys.ts';
import { forgetCachedShops } from '../shops/shops.ts';

type Mode = 'development' | 'production';

export const WEBHOOK_EVENTS = ['order.created', 'order.updated'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const MAX_ENDPOINTS_PER_SHOP = 10;

/* ------------------------------------------------------------------ URLs and origins */

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * https only in production (and no loopback/private address literals); development also accepts
 * http to loopback and *.localhost so tests can run a receiver on 127.0.0.1.
 */
export function webhookUrlProblem(raw: string, mode: Mode): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'not an absolute URL';
  }
  if (u.username || u.password) return 'must not contain credentials';
  if (u.hash) return 'must not contain a fragment';
  if (raw.length > 2048) return 'longer than 2048 characters';
  const host = u.hostname.toLowerCase();
  const local = LOOPBACK.has(host) || host.endsWith('.localhost');
  if (u.protocol === 'https:') {
    if (mode === 'production' && (local || isPrivateIpLiteral(host))) return 'must not point at a loopback or private address';
    return null;
  }
  if (u.protocol === 'http:' && mode === 'development' && local) return null;
  return mode === 'production' ? 'must use https' : 'must use https (http only to 127.0.0.1/localhost in development)';
}

function isPrivateIpLiteral(host: string): boolean {
  const m = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(host);
  if (m) {
    const [a, b] = [Number(m[1]), Number(m[2])];
    return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  return host.startsWith('[') && /^\[(::1?|f[cd][0-9a-f]*:.*|fe80:.*|::ffff:.*)\]$/.test(host);
}

/**
 * The shop's public origin, for `UCP-Agent: profile="{origin}/.well-known/ucp"`: the
 * `public_origin` stored when webhooks were enabled (settings.extra.webhooks_public_origin), else
 * `https://{domain}` (`http://{domain}` in development).
 */
export function shopPublicOrigin(shop: Shop, mode: Mode): string {
  const stored = shop.settings.extra?.webhooks_public_origin;
  if (typeof stored === 'string' && stored) return stored;
  return `${mode === 'production' ? 'https' : 'http'}://${shop.domain}`;
}

function originProblem(raw: string, mode: Mode): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'not an absolute URL';
  }
  if (u.origin !== raw.replace(/\/$/, '')) return 'must be an origin (scheme://host[:port]) without a path';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && mode === 'development') return null;
  return 'must use https';
}

/* ------------------------------------------------------------------ endpoints */

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: WebhookEvent[];
  active: boolean;
  created_at: string;
}

const toEndpoint = (r: { id: string; url: string; events: unknown; active: boolean; created_at: Date | string }): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  events: r.events as WebhookEvent[],
  active: r.active,
  created_at: new Date(r.created_at).toISOString(),
});

export async function listEndpoints(db: DB, shopId: string): Promise<WebhookEndpoint[]> {
  const rows = await db.selectFrom('webhook_endpoints').select(['id', 'url', 'events', 'active', 'created_at']).where('shop_id', '=', shopId).orderBy('position').execute();
  return rows.map(toEndpoint);
}

export async function getEndpoint(db: DB, shopId: string, id: string): Promise<WebhookEndpoint | null> {
  const row = await db.selectFrom('webhook_endpoints').select(['id', 'url', 'events', 'active', 'created_at']).where('shop_id', '=', shopId).where('id', '=', id).executeTakeFirst();
  return row ? toEndpoint(row) : null;
}

/**
 * Changes an endpoint: `{ url?, events?, active? }`; null when the shop has no such endpoint.
 * A new URL also applies to the endpoint's pending deliveries (a merchant fixing a broken URL wants
 * the retries to go there). Disabling stops new deliveries and fails the pending ones
 * ("endpoint disabled"; a merchant can redeliver them after enabling it again).
 */
export async function updateEndpoint(db: DB, shopId: string, id: string, input: unknown, mode: Mode): Promise<WebhookEndpoint | null> {
  const change = validate(SCHEMAS[mode].update, input);
  return db.transaction().execute(async (tx) => {
    const row = await tx
      .updateTable('webhook_endpoints')
      .set({
        ...(change.url !== undefined ? { url: change.url } : {}),
        ...(change.events !== undefined ? { events: JSON.stringify(change.events) } : {}),
        ...(change.active !== undefined ? { active: change.active } : {}),
      })
      .where('shop_id', '=', shopId)
      .where('id', '=', id)
      .returning(['id', 'url', 'events', 'active', 'created_at'])
      .executeTakeFirst();
    if (!row) return null;
    const pending = tx.updateTable('webhook_deliveries').where('shop_id', '=', shopId).where('endpoint_id', '=', id).where('status', '=', 'pending');
    if (change.active === false) await pending.set({ status: 'failed', last_error: 'endpoint disabled' }).execute();
    else if (change.url !== undefined) await pending.set({ url: change.url }).execute();
    return toEndpoint(row);
  });
}

/** Request bodies; `url` and `public_origin` are checked by the rules above for this mode. */
function inputSchemas(mode: Mode) {
  const rule = (problem: (v: string, mode: Mode) => string | null, name: string) =>
    z.string().superRefine((v, ctx) => {
      const p = problem(v, mode);
      if (p) ctx.addIssue({ code: 'custom', message: `${name} ${p}.` });
    });
  const events = z
    .array(z.enum(WEBHOOK_EVENTS), { error: `events must be a non-empty subset of ${WEBHOOK_EVENTS.join(', ')}.` })
    .min(1, `events must be a non-empty subset of ${WEBHOOK_EVENTS.join(', ')}.`)
    .transform((list) => [...new Set(list)]);
  return {
    create: z.strictObject({ url: rule(webhookUrlProblem, 'url'), events: events.optional(), public_origin: rule(originProblem, 'public_origin').optional() }),
    update: z
      .strictObject({ url: rule(webhookUrlProblem, 'url').optional(), events: events.optional(), active: z.boolean().optional() })
      .refine((b) => Object.keys(b).length > 0, 'Send at least one of url, events, active.'),
  };
}
const SCHEMAS = { development: inputSchemas('development'), production: inputSchemas('production') };
/** The request bodies as published (the OpenAPI document of the merchant API: server/merchant/openapi.ts). */
export const WEBHOOK_BODIES = SCHEMAS.production;

/**
 * Registers an endpoint: `{ url, events?, public_origin? }`. The first endpoint enables order
 * webhooks for the shop (settings.order_webhooks_enabled, which publishes `signing_keys`) and
 * creates its signing key.
 */
export async function createEndpoint(db: DB, shop: Shop, input: unknown, mode: Mode): Promise<WebhookEndpoint> {
  const { url, events = [...WEBHOOK_EVENTS], public_origin: origin } = validate(SCHEMAS[mode].create, input);

  const endpoint = await db.transaction().execute(async (tx) => {
    const count = await tx.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n')).where('shop_id', '=', shop.id).executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_ENDPOINTS_PER_SHOP) {
      throw new InvalidRequest('validation_failed', `At most ${MAX_ENDPOINTS_PER_SHOP} webhook endpoints per shop.`, [{ path: '$.url', code: 'too_many_endpoints', content: `At most ${MAX_ENDPOINTS_PER_SHOP} endpoints.` }]);
    }
    const row = await tx
      .insertInto('webhook_endpoints')
      .values({ id: `whe_${randomUUID().replace(/-/g, '').slice(0, 20)}`, shop_id: shop.id, url, events: JSON.stringify(events) })
      .returning(['id', 'url', 'events', 'active', 'created_at'])
      .executeTakeFirstOrThrow();
    const extra = typeof origin === 'string' ? JSON.stringify({ webhooks_public_origin: origin.replace(/\/$/, '') }) : '{}';
    await tx
      .updateTable('shops')
      .set({
        settings: sql`settings || jsonb_build_object('order_webhooks_enabled', true, 'extra', coalesce(settings->'extra', '{}'::jsonb) || ${extra}::jsonb)`,
      } as never)
      .where('id', '=', shop.id)
      .execute();
    return toEndpoint(row);
  });
  await ensureShopKey(db, shop.id);
  forgetCachedShops(db);
  return endpoint;
}

/**
 * Removes an endpoint; its pending deliveries are marked failed. Removing the last endpoint turns
 * order webhooks off (and `signing_keys` disappears from discovery; the keys themselves are kept).
 */
export async function deleteEndpoint(db: DB, shopId: string, id: string): Promise<boolean> {
  const ok = await db.transaction().execute(async (tx) => {
    const gone = await tx.deleteFrom('webhook_endpoints').where('shop_id', '=', shopId).where('id', '=', id).returning('id').executeTakeFirst();
    if (!gone) return false;
    await tx
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: 'endpoint deleted' })
      .where('shop_id', '=', shopId)
      .where('endpoint_id', '=', id)
      .where('status', '=', 'pending')
      .execute();
    const left = await tx.selectFrom('webhook_endpoints').select('id').where('shop_id', '=', shopId).executeTakeFirst();
    if (!left) {
      await tx
        .updateTable('shops')
        .set({ settings: sql`settings || '{"order_webhooks_enabled": false}'::jsonb` } as never)
        .where('id', '=', shopId)
        .execute();
    }
    return true;
  });
  if (ok) forgetCachedShops(db);
  return ok;
}
