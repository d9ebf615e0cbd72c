/**
 * `GET /.well-known/ucp`: public, cacheable, never redirected. The ETag is a hash of the body, so a
 * revalidation costs one hash and answers 304.
 */
import { createHash } from 'node:crypto';
import type { Handler } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { shopOf } from './guard.ts';
import { businessProfile } from './profile.ts';
import { publishedKeys } from '../core/signing-keys.ts';

/**
 * The rendered profile is the hottest public document, so it is kept per (shop, origin) for as long
 * as the cached shop object itself (a settings change shows within the shop cache's few seconds).
 * Shops with order webhooks are not cached: their signing keys can rotate at any moment.
 */
const TTL_MS = 5_000;
const rendered = new Map<string, { body: string; etag: string; shop: object; at: number }>();

/** The discovery handler; mount it behind `requireProtocol`. */
export const discoveryHandler: Handler<AppEnv> = async (c) => {
    const shop = shopOf(c);
    const cacheKey = `${shop.id} ${c.get('origin')}`;
    let hit = shop.settings.order_webhooks_enabled ? undefined : rendered.get(cacheKey);
    if (!hit || hit.shop !== shop || Date.now() - hit.at > TTL_MS) {
      // Webhook signing keys (current + retiring ones in their grace period), only while order webhooks are on.
      const keys = shop.settings.order_webhooks_enabled ? await publishedKeys(c.get('db'), shop.id) : undefined;
      const body = JSON.stringify(businessProfile(shop, c.get('origin'), keys));
      if (rendered.size > 1_000) rendered.clear();
      hit = { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"`, shop, at: Date.now() };
      if (!keys) rendered.set(cacheKey, hit);
    }
    const { body, etag } = hit;
    c.header('Cache-Control', 'public, max-age=300');
    c.header('ETag', etag);
    c.header('Vary', 'Host');
    const inm = c.req.header('if-none-match');
    if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return c.body(null, 304);
    return c.body(body, 200, { 'Content-Type': 'application/json' });
};
