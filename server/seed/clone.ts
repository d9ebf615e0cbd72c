/**
 * A throwaway copy of a demo shop under a fresh `*.localhost` domain (issue 30, point 5): the
 * per-test isolation of `ucp-storefront/testing`. Parallel tests against one sandbox each get a
 * shop of their own, so one test's carts, stock and reset never reach another's.
 *
 * The copy is the source shop's seed file (server/seed/data) loaded under a new id and domain: the
 * same products, variant ids, discount codes and settings as the demo has after a reset (not what
 * was written to the source since). Only `*.localhost` domains, so a clone can never answer for a
 * real shop's name. Clones live as long as the (throwaway) database; nothing removes them.
 */
import { randomBytes } from 'node:crypto';
import type { DB } from '../db/index.ts';
import { loadCatalogFile } from '../core/catalog/catalog-load.ts';
import { Conflict, InvalidRequest } from '../core/shared/errors.ts';
import { forgetCachedShops } from '../core/shops/shops.ts';
import { demoCatalogOf } from './reset.ts';

/** One or more DNS labels under `localhost` (RFC 6761 §6.3): `t-1.localhost`, `a.b.localhost`. */
export const CLONE_DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,4}localhost$/;

export interface ClonedShop {
  id: string;
  domain: string;
  /** The shop it was copied from. */
  source: string;
  products: number;
}

/** `sourceId`: an existing shop's id (the route resolves an id or a domain: server/dev/requests.ts `shopByRef`). */
export async function cloneDemoShop(db: DB, sourceId: string, opts: { domain?: string } = {}): Promise<ClonedShop> {
  const file = demoCatalogOf(sourceId) as { shop: { id: string; domain: string } } | undefined;
  if (!file) throw new InvalidRequest('not_cloneable', `Shop ${sourceId} has no seed file in server/seed/data to copy; only the demo shops can be cloned.`);
  const suffix = randomBytes(5).toString('hex');
  const label = file.shop.domain.split('.')[0];
  const domain = opts.domain ?? `${label}-${suffix}.localhost`;
  if (!CLONE_DOMAIN.test(domain)) {
    throw new InvalidRequest('invalid_request', `domain must be a lowercase name under .localhost (e.g. ${label}-test-1.localhost), not ${JSON.stringify(domain).slice(0, 80)}.`, [
      { path: '$.domain', code: 'invalid_domain', content: 'A lowercase name under .localhost.' },
    ]);
  }
  const taken = await db.selectFrom('shops').select('id').where('domain', '=', domain).executeTakeFirst();
  if (taken) throw new Conflict('domain_taken', `The domain ${domain} already belongs to shop ${taken.id}.`);
  const id = `${sourceId}_${suffix}`;
  const copy = { ...file, shop: { ...file.shop, id, domain } };
  const loaded = await loadCatalogFile(db, copy);
  forgetCachedShops(db); // a lookup of this domain before it existed may be cached as "no shop"
  return { id, domain, source: sourceId, products: loaded.products };
}
