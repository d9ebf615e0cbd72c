/**
 * `POST /dev/shops/{id or domain}/clone` (development only, behind routes.ts's same-origin JSON guard): a
 * fresh copy of a demo shop under a new `*.localhost` domain, for a test that wants a shop no other
 * test touches (`ucp-storefront/testing`'s per-test shop, docs/ci.md). Body `{}` or
 * `{"domain": "mine-1.localhost"}`; answers 201 with the new shop's id, domain and address.
 * `DELETE /dev/shops/{clone id or domain}` deletes a clone (204); demo shops cannot be deleted.
 *
 * Bounded (issue 39 point 5; docs/sandbox.md "Clones"): at most config.maxClones (100) per server;
 * at the bound the least recently used clone gives way if unused for a minute, else 409
 * too_many_clones. Clones idle for config.cloneIdleMs (30 minutes) are deleted before each clone and,
 * at most every SWEEP_EVERY_MS, on a request to a /dev route.
 */
import type { Context, Hono } from 'hono';
import * as z from 'zod/mini';
import type { AppEnv } from '../http/env.ts';
import type { DB } from '../db/index.ts';
import { readJson } from '../http/body.ts';
import { validate } from '../core/shared/validate.ts';
import { Conflict } from '../core/shared/errors.ts';
import { CLONE_IDLE_MS, cloneDemoShop, deleteClone, isCloneId, lastUseOf, listClones, MAX_CLONES, sweepIdleClones } from '../seed/clone.ts';
import { forgetShop } from '../http/inspector/store.ts';
import { log } from '../lib/log.ts';
import { shopByRef } from './requests.ts';

const CloneRequest = z.strictObject({ domain: z.optional(z.string().check(z.maxLength(253))) });

/** Clones are created one at a time, so the bound holds under concurrent requests. */
let creating: Promise<unknown> = Promise.resolve();

const idleMsOf = (c: Context<AppEnv>) => c.get('config').cloneIdleMs ?? CLONE_IDLE_MS;

/** Idle clones deleted, and the inspector's memory of them with them. */
async function sweep(db: DB, idleMs: number): Promise<void> {
  for (const id of await sweepIdleClones(db, idleMs)) forgetShop(id);
}

const SWEEP_EVERY_MS = 10_000;
/** At the bound, a clone unused this long gives its place to a new one. */
const EVICT_IDLE_MS = 60_000;
let lastSweep = 0;

/** A sweep at most every SWEEP_EVERY_MS (or the idle time, when shorter), never awaited by the request that triggers it. */
export function sweepSoon(db: DB, idleMs: number, now = Date.now()): void {
  if (now - lastSweep < Math.min(SWEEP_EVERY_MS, idleMs)) return;
  lastSweep = now;
  sweep(db, idleMs).catch((err: unknown) => log.warn('dev', 'deleting idle clones failed', { err }));
}

export function cloneRoute(app: Hono<AppEnv>): void {
  app.post('/shops/:shop/clone', async (c) => {
    const body = validate(CloneRequest, await readJson(c), { code: 'invalid_request' });
    const source = await shopByRef(c.get('db'), c.req.param('shop')); // an id or a domain, as reset and requests take
    const db = c.get('db');
    const max = c.get('config').maxClones ?? MAX_CLONES;
    const run = creating.then(async () => {
      await sweep(db, idleMsOf(c));
      const clones = await listClones(db);
      // At the bound, the least recently used clone makes room if nothing has asked for it for a
      // minute (a finished test's shop: the testing package makes one per test and deletes none).
      const oldest = clones[0];
      const evictAfter = Math.min(c.get('config').cloneEvictIdleMs ?? EVICT_IDLE_MS, idleMsOf(c));
      if (clones.length >= max && oldest !== undefined && Date.now() - (lastUseOf(oldest) ?? Date.now()) >= evictAfter) {
        await deleteClone(db, oldest);
        forgetShop(oldest);
        clones.shift();
      }
      if (clones.length >= max) {
        throw new Conflict('too_many_clones', `This server already holds ${clones.length} clones (at most ${max}; UCP_MAX_CLONES). Delete those you are done with (DELETE /dev/shops/ID), or wait: a clone unused for ${Math.round(idleMsOf(c) / 60000)} minutes is deleted.`);
      }
      return cloneDemoShop(db, source.id, body);
    });
    creating = run.catch(() => {});
    const shop = await run;
    const { protocol, port } = new URL(c.req.url);
    return c.json({ ...shop, url: `${protocol}//${shop.domain}${port ? `:${port}` : ''}` }, 201);
  });

  app.delete('/shops/:shop', async (c) => {
    const shop = await shopByRef(c.get('db'), c.req.param('shop'));
    if (!isCloneId(shop.id)) throw new Conflict('not_a_clone', `${shop.id} is not a clone; only clones made with POST /dev/shops/ID/clone can be deleted (reset a demo shop instead: POST /dev/shops/${shop.id}/reset).`);
    await deleteClone(c.get('db'), shop.id);
    forgetShop(shop.id);
    return c.body(null, 204);
  });
}
