/**
 * Order webhooks (docs/webhooks.md): endpoints per shop (webhook-endpoints.ts), a durable outbox of deliveries written in the
 * same transaction as the order change, and a worker that POSTs each delivery signed with RFC 9421
 * (ES256, the shop's current key from signing-keys.ts), retrying with exponential backoff + jitter.
 *
 * Durability: a delivery row is the only state. Claiming one increments `attempts` and pushes
 * `next_attempt_at` forward by a lease; if the process dies mid-attempt the row simply becomes due
 * again when the lease runs out. `for update skip locked` lets several processes share the queue on
 * PostgreSQL; PGlite (one connection) runs the same SQL.
 */
import { publicFetch } from '../../lib/public-fetch.ts';
import { log } from '../../lib/log.ts';
import { webhookAttempts } from '../../lib/metrics.ts';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { DB } from '../../db/index.ts';
import { pollingWorker } from '../../db/polling-worker.ts';
import type { Shop } from '../../formats/types.ts';
import { contentDigest, sign } from '../access/http-signatures.ts';
import { ensureShopKey } from '../access/signing-keys.ts';
import { findShopById } from '../shops/shops.ts';
import { shopPublicOrigin, type WebhookEvent } from './webhook-endpoints.ts';
import { shopProfilePath } from '../shops/ucp-profile.ts';
import { UCP_VERSION } from '../../version.ts';

/** Deliveries are made at the seed's version: UCP-Agent names that profile, whose `signing_keys` verify them. */
const WEBHOOK_PROFILE_PATH = shopProfilePath(UCP_VERSION);

/** Components every webhook signature covers, in this order. */
export const WEBHOOK_COMPONENTS = ['@method', '@authority', '@path', 'content-digest', 'content-type', 'webhook-id', 'webhook-timestamp', 'ucp-agent'];

type Mode = 'development' | 'production';
type Exec = Pick<DB, 'selectFrom' | 'insertInto' | 'updateTable' | 'deleteFrom'>;

/* ------------------------------------------------------------------ outbox */

export interface WebhookPayload<T = unknown> {
  /** Event id (uuid), the same for every endpoint the event goes to. */
  id: string;
  type: WebhookEvent;
  created_at: string;
  shop_id: string;
  data: { order: T };
}

/**
 * Queues one delivery per active endpoint subscribed to `event`. Call it with the transaction that
 * writes the order, so the order and its events commit (or roll back) together. No-op while the
 * shop has order webhooks off.
 */
export async function enqueueOrderEvent(db: Exec, shop: Shop, event: WebhookEvent, order: { id: string }): Promise<number> {
  if (!shop.settings.order_webhooks_enabled) return 0;
  const endpoints = await db.selectFrom('webhook_endpoints').select(['id', 'url', 'events']).where('shop_id', '=', shop.id).where('active', '=', true).execute();
  const targets = endpoints.filter((e) => (e.events as unknown as string[]).includes(event));
  if (!targets.length) return 0;
  const payload: WebhookPayload = { id: randomUUID(), type: event, created_at: new Date().toISOString(), shop_id: shop.id, data: { order } };
  const text = JSON.stringify(payload);
  await db
    .insertInto('webhook_deliveries')
    .values(targets.map((t) => ({ id: randomUUID(), shop_id: shop.id, endpoint_id: t.id, url: t.url, event, payload: text, last_status: null, last_error: null, last_kid: null, delivered_at: null })))
    .execute();
  return targets.length;
}

export interface DeliveryLogEntry {
  id: string;
  endpoint_id: string;
  url: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  kid: string | null;
  created_at: string;
  delivered_at: string | null;
  payload: unknown;
}

type DeliveryRow = {
  id: string;
  endpoint_id: string;
  url: string;
  event: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | string;
  last_status: number | null;
  last_error: string | null;
  last_kid: string | null;
  created_at: Date | string;
  delivered_at: Date | string | null;
  payload: string;
};

const toLogEntry = (r: DeliveryRow): DeliveryLogEntry => ({
  id: r.id,
  endpoint_id: r.endpoint_id,
  url: r.url,
  event: r.event,
  status: r.status as DeliveryLogEntry['status'],
  attempts: r.attempts,
  next_attempt_at: r.status === 'pending' ? new Date(r.next_attempt_at).toISOString() : null,
  last_status: r.last_status,
  last_error: r.last_error,
  kid: r.last_kid,
  created_at: new Date(r.created_at).toISOString(),
  delivered_at: r.delivered_at ? new Date(r.delivered_at).toISOString() : null,
  payload: JSON.parse(r.payload),
});

export async function listDeliveries(db: DB, shopId: string, o: { limit: number; after: number; status?: string }): Promise<{ deliveries: DeliveryLogEntry[]; next: number | null }> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('shop_id', '=', shopId).where('position', '>', o.after);
  if (o.status) q = q.where('status', '=', o.status);
  const rows = await q.orderBy('position').limit(o.limit + 1).execute();
  const page = rows.slice(0, o.limit);
  return { deliveries: page.map(toLogEntry), next: rows.length > o.limit ? Number(page[page.length - 1].position) : null };
}

/** Deliveries waiting for an attempt, every shop's (the partial index webhook_deliveries_due covers them). */
export async function pendingDeliveries(db: DB): Promise<number> {
  const row = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'pending').executeTakeFirst();
  return Number(row?.n ?? 0);
}

export type RedeliverResult = { delivery: DeliveryLogEntry } | { refused: 'not_found' | 'already_pending' | 'endpoint_unavailable' };

/**
 * Sends a delivered or failed delivery again (same `Webhook-Id` and payload, so receivers that
 * de-duplicate by id stay correct), to its endpoint's current URL, with a fresh set of attempts.
 * Refused while it is still pending, and when its endpoint was deleted or is disabled.
 */
export async function redeliver(db: DB, shopId: string, id: string): Promise<RedeliverResult> {
  return db.transaction().execute(async (tx): Promise<RedeliverResult> => {
    const d = await tx.selectFrom('webhook_deliveries').select(['status', 'endpoint_id']).where('shop_id', '=', shopId).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!d) return { refused: 'not_found' };
    if (d.status === 'pending') return { refused: 'already_pending' };
    const endpoint = await tx.selectFrom('webhook_endpoints').select(['url', 'active']).where('shop_id', '=', shopId).where('id', '=', d.endpoint_id).executeTakeFirst();
    if (!endpoint?.active) return { refused: 'endpoint_unavailable' };
    const row = await tx
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', attempts: 0, url: endpoint.url, next_attempt_at: sql`now()`, delivered_at: null })
      .where('shop_id', '=', shopId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { delivery: toLogEntry(row) };
  });
}

/* ------------------------------------------------------------------ worker */

const attempted = { delivered: webhookAttempts.labels('delivered'), retry: webhookAttempts.labels('retry'), failed: webhookAttempts.labels('failed') };

export interface WebhookWorkerOptions {
  mode?: Mode;
  /** Poll interval; env WEBHOOK_POLL_MS, default 1000. */
  intervalMs?: number;
  fetch?: typeof globalThis.fetch;
  /** First retry delay, doubled per attempt (capped at maxDelayMs); env WEBHOOK_RETRY_BASE_MS, default 30 s. */
  retryBaseMs?: number;
  maxDelayMs?: number;
  /** Attempts before a delivery is marked failed; env WEBHOOK_MAX_ATTEMPTS, default 12. */
  maxAttempts?: number;
  /** Per-attempt HTTP timeout; default 10 s. */
  timeoutMs?: number;
  /** A claimed delivery not finished within this is due again (process died); default timeout + 50 s. */
  leaseMs?: number;
  batchSize?: number;
}

interface Resolved {
  mode: Mode;
  intervalMs: number;
  fetch: typeof globalThis.fetch;
  retryBaseMs: number;
  maxDelayMs: number;
  maxAttempts: number;
  timeoutMs: number;
  leaseMs: number;
  batchSize: number;
}

/**
 * Production deliveries reach public addresses only, whatever the endpoint's name resolves to by
 * then (server/lib/public-fetch.ts); development also reaches loopback receivers.
 */
export function deliveryFetch(mode: Mode): typeof globalThis.fetch {
  return mode === 'production' ? publicFetch : globalThis.fetch;
}

function resolve(o: WebhookWorkerOptions): Resolved {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const mode = o.mode ?? 'development';
  return {
    mode,
    intervalMs: o.intervalMs ?? 1000,
    fetch: o.fetch ?? deliveryFetch(mode),
    retryBaseMs: o.retryBaseMs ?? 30_000,
    maxDelayMs: o.maxDelayMs ?? 6 * 3600_000,
    maxAttempts: o.maxAttempts ?? 12,
    timeoutMs,
    leaseMs: o.leaseMs ?? timeoutMs + 50_000,
    batchSize: o.batchSize ?? 10,
  };
}

/** Delay before attempt n+1 after n failed attempts: base * 2^(n-1), capped, ±20 % jitter. */
export function retryDelayMs(attempts: number, baseMs: number, maxMs: number, random = Math.random): number {
  const raw = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(raw * (0.8 + 0.4 * random()));
}

interface Claimed {
  id: string;
  shop_id: string;
  url: string;
  event: string;
  payload: string;
  attempts: number;
}

async function claimDue(db: DB, batch: number, leaseMs: number): Promise<Claimed[]> {
  const { rows } = await sql<Claimed>`
    update webhook_deliveries
       set attempts = attempts + 1,
           next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000}::float8)
     where id in (
       select id from webhook_deliveries
        where status = 'pending' and next_attempt_at <= now()
        order by next_attempt_at
        limit ${batch}
        for update skip locked)
       and status = 'pending'
    returning id, shop_id, url, event, payload, attempts`.execute(db);
  return rows;
}

export interface WebhookWorker {
  /** One pass: claims due deliveries and attempts them; resolves with how many were attempted. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export function startWebhookWorker(db: DB, options: WebhookWorkerOptions = {}): WebhookWorker {
  const o = resolve(options);
  // Each pass claims due deliveries and attempts them (attempt, below: called only once the worker runs).
  const worker = pollingWorker(db, 'webhooks', o.intervalMs, async () => {
    const claimed = await claimDue(db, o.batchSize, o.leaseMs);
    const shops = new Map<string, Shop | null>();
    await Promise.all(claimed.map((d) => attempt(d, shops).catch((e) => log.error('webhooks', 'delivery bookkeeping failed', { err: e }))));
    return claimed.length;
  });

  const attempt = async (d: Claimed, shops: Map<string, Shop | null>): Promise<void> => {
    let shop = shops.get(d.shop_id);
    if (shop === undefined) {
      shop = await findShopById(db, d.shop_id);
      shops.set(d.shop_id, shop);
    }
    const finish = async (ok: boolean, status: number | null, error: string | null, kid: string | null) => {
      const failed = !ok && d.attempts >= o.maxAttempts;
      attempted[ok ? 'delivered' : failed ? 'failed' : 'retry'].inc();
      await db
        .updateTable('webhook_deliveries')
        .set({
          status: ok ? 'delivered' : failed ? 'failed' : 'pending',
          last_status: status,
          last_error: error,
          last_kid: kid,
          ...(ok ? { delivered_at: new Date() } : {}),
          ...(!ok && !failed ? { next_attempt_at: new Date(Date.now() + retryDelayMs(d.attempts, o.retryBaseMs, o.maxDelayMs)) } : {}),
        })
        .where('id', '=', d.id)
        .where('status', '=', 'pending')
        .where('attempts', '=', d.attempts)
        .execute();
    };
    if (!shop) return finish(false, null, 'shop not found', null);
    let kid: string | null = null;
    try {
      const signer = await ensureShopKey(db, shop.id);
      kid = signer.kid;
      const body = Buffer.from(d.payload, 'utf8');
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        'Content-Digest': contentDigest(body),
        // The profile of the payload's version (the seed's 2026-04-08), not the latest at /.well-known/ucp.
        'UCP-Agent': `profile="${shopPublicOrigin(shop, o.mode)}${WEBHOOK_PROFILE_PATH}"`,
        'Webhook-Id': d.id,
        'Webhook-Timestamp': String(Math.floor(Date.now() / 1000)),
      };
      Object.assign(headers, sign({ keyid: signer.kid, privateKey: signer.privateKey, components: WEBHOOK_COMPONENTS, created: Number(headers['Webhook-Timestamp']), message: { method: 'POST', url: d.url, headers } }));
      const res = await o.fetch(d.url, {
        method: 'POST',
        headers: { ...headers, 'User-Agent': 'ucp-storefront-webhooks/1' },
        body,
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(o.timeoutMs), worker.signal]),
      });
      if (res.status >= 200 && res.status < 300) {
        await res.body?.cancel().catch(() => {});
        return finish(true, res.status, null, kid);
      }
      const text = await res.text().catch(() => '');
      return finish(false, res.status, `HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`, kid);
    } catch (e) {
      const err = e as Error;
      const msg = worker.signal.aborted ? 'aborted: server shutting down' : err.name === 'TimeoutError' ? `timeout after ${o.timeoutMs} ms` : `${err.message}${(err as { cause?: Error }).cause?.message ? ` (${(err as { cause?: Error }).cause!.message})` : ''}`;
      return finish(false, null, msg.slice(0, 500), kid);
    }
  };

  return { runOnce: worker.runOnce, stop: worker.stop };
}
