/**
 * `POST /dev/shops/{id or domain}/clone` (development only, behind routes.ts's same-origin JSON guard): a
 * fresh copy of a demo shop under a new `*.localhost` domain, for a test that wants a shop no other
 * test touches (`ucp-storefront/testing`'s per-test shop, docs/ci.md). Body `{}` or
 * `{"domain": "mine-1.localhost"}`; answers 201 with the new shop's id, domain and address.
 */
import type { Hono } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../http/env.ts';
import { readJson } from '../http/body.ts';
import { validate } from '../core/shared/validate.ts';
import { cloneDemoShop } from '../seed/clone.ts';
import { shopByRef } from './requests.ts';

const CloneRequest = z.strictObject({ domain: z.optional(z.string().check(z.maxLength(253))) });

export function cloneRoute(app: Hono<AppEnv>): void {
  app.post('/shops/:shop/clone', async (c) => {
    const body = validate(CloneRequest, await readJson(c), { code: 'invalid_request' });
    const source = await shopByRef(c.get('db'), c.req.param('shop')); // an id or a domain, as reset and requests take
    const shop = await cloneDemoShop(c.get('db'), source.id, body);
    const { protocol, port } = new URL(c.req.url);
    return c.json({ ...shop, url: `${protocol}//${shop.domain}${port ? `:${port}` : ''}` }, 201);
  });
}
