/**
 * `GET /.well-known/ucp`: public, cacheable, never redirected. The ETag is a hash of the body, so a
 * revalidation costs one hash and answers 304.
 */
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { requireProtocol, shopOf } from './guard.ts';
import { businessProfile } from './profile.ts';
import { publishedKeys } from '../core/signing-keys.ts';

export function discoveryRoutes() {
  const app = new Hono<AppEnv>();
  app.use('*', requireProtocol);
  app.get('/', async (c) => {
    const shop = shopOf(c);
    // Webhook signing keys (current + retiring ones in their grace period), only while order webhooks are on.
    const keys = shop.settings.order_webhooks_enabled ? await publishedKeys(c.get('db'), shop.id) : undefined;
    const body = JSON.stringify(businessProfile(shop, c.get('origin'), keys));
    const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
    c.header('Cache-Control', 'public, max-age=300');
    c.header('ETag', etag);
    c.header('Vary', 'Host');
    const inm = c.req.header('if-none-match');
    if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return c.body(null, 304);
    return c.body(body, 200, { 'Content-Type': 'application/json' });
  });
  return app;
}
