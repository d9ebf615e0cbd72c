/**
 * A throwaway copy of a demo shop under a fresh `*.localhost` domain (issue 30, point 5): the
 * per-test isolation of `ucp-storefront/testing`. Parallel tests against one sandbox each get a
 * shop of their own, so one test's carts, stock and reset never reach another's.
 *
 * The copy is the source shop's seed file (server/seed/data) loaded under a new id and domain: the
 * same products, variant ids, discount codes and settings as the demo has after a reset (not what
 * was written to the source since). Only `*.localhost` domains, so a clone can never answer for a
 * real shop's name, and never a name the platform or the demo uses (RESERVED_DOMAINS).
 *
 * Clones are bounded (issue 39 point 5: 300 clones took DATA_DIR from 42 to 582 MB, never cleaned):
 * at most MAX_CLONES per server (config.maxClones), each deleted by `DELETE /dev/shops/{id}` or
 * after CLONE_IDLE_MS without a request to its domain (config.cloneIdleMs). Deleting removes every
 * row of the shop from every table and, on the embedded database, VACUUMs so the space is reused.
 */
import { randomBytes } from 'node:crypto';
import type { DB } from '../db/index.ts';
import { loadCatalogFile } from '../core/catalog/catalog-load.ts';
import { Conflict, InvalidRequest } from '../core/shared/errors.ts';
import { forgetCachedShops } from '../core/shops/shops.ts';
import { DEMO_AGENT_HOSTNAME } from '../core/shops/ucp-profile.ts';
import { isSingleWriter } from '../db/index.ts';
import { sql } from 'kysely';
import { log } from '../lib/log.ts';
import { demoCatalogOf, demoShops } from './reset.ts';

/** At most this many clones per server, by default (config.maxClones). */
export const MAX_CLONES = 100;
/** A clone with no request to its domain for this long is deleted, by default (config.cloneIdleMs): 30 minutes. */
export const CLONE_IDLE_MS = 30 * 60 * 1000;

/** Names a clone may never take: the platform's, the demo agent's, the demo shops' (whether loaded or not). */
export function reservedDomains(): Set<string> {
  return new Set(['localhost', 'www.localhost', DEMO_AGENT_HOSTNAME, ...demoShops().map((s) => s.domain)]);
}

/** A clone's id: a demo shop's id, `_`, ten hex digits (cloneDemoShop). */
export function isCloneId(id: string): boolean {
  const m = /^(.+)_[0-9a-f]{10}$/.exec(id);
  return !!m && demoShops().some((s) => s.id === m[1]);
}

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
  if (reservedDomains().has(domain)) {
    throw new InvalidRequest('invalid_request', `${domain} is reserved (the platform, the demo agent or a demo shop answers on it); choose another name under .localhost.`, [
      { path: '$.domain', code: 'reserved_domain', content: 'A name the platform or the demo uses.' },
    ]);
  }
  const taken = await db.selectFrom('shops').select('id').where('domain', '=', domain).executeTakeFirst();
  if (taken) throw new Conflict('domain_taken', `The domain ${domain} already belongs to shop ${taken.id}.`);
  const id = `${sourceId}_${suffix}`;
  const copy = { ...file, shop: { ...file.shop, id, domain } };
  const loaded = await loadCatalogFile(db, copy);
  forgetCachedShops(db); // a lookup of this domain before it existed may be cached as "no shop"
  lastUsed.set(id, Date.now());
  return { id, domain, source: sourceId, products: loaded.products };
}

/** When each clone last answered a request (this process's view; clones found in the database start at their first sweep). */
const lastUsed = new Map<string, number>();

/** When a clone last answered a request, if this process knows it. */
export const lastUseOf = (id: string): number | undefined => lastUsed.get(id);

/** A request reached `shopId`: a clone's idle clock starts over (one Map lookup for any other shop). */
export function touchClone(shopId: string, now = Date.now()): void {
  if (lastUsed.has(shopId)) lastUsed.set(shopId, now);
}

/** The clones in the database, oldest use first. */
export async function listClones(db: DB): Promise<string[]> {
  const rows = await db.selectFrom('shops').select('id').where('id', 'like', 'shop%\\_%').execute();
  const now = Date.now();
  const ids = rows.map((r) => r.id).filter(isCloneId);
  for (const id of ids) if (!lastUsed.has(id)) lastUsed.set(id, now);
  return ids.sort((a, b) => lastUsed.get(a)! - lastUsed.get(b)!);
}

/**
 * Deletes a clone and everything of it: every table with a `shop_id` column (some have no foreign
 * key to shops), then the shop; on the embedded database a VACUUM so the space is reused rather than
 * the files growing (PGlite runs no autovacuum). The shop row goes last, so an interrupted delete is
 * finished by the next one.
 */
export async function deleteClone(db: DB, id: string): Promise<void> {
  if (!isCloneId(id)) throw new Error(`not a clone: ${id}`);
  const tables = await sql<{ table_name: string }>`select table_name from information_schema.columns where column_name = 'shop_id' and table_schema = current_schema() and table_name <> 'shops'`.execute(db);
  let left = tables.rows.map((r) => r.table_name);
  for (let pass = 0; pass < 4 && left.length; pass++) {
    const failed: string[] = [];
    for (const table of left) {
      try {
        await sql`delete from ${sql.table(table)} where shop_id = ${id}`.execute(db);
      } catch {
        failed.push(table); // a row another table still references: after that table's pass
      }
    }
    left = failed;
  }
  await db.deleteFrom('shops').where('id', '=', id).execute();
  lastUsed.delete(id);
  forgetCachedShops(db);
  if (isSingleWriter(db)) await sql`vacuum`.execute(db);
}

/** Deletes the clones idle for `idleMs` or more; returns their ids. */
export async function sweepIdleClones(db: DB, idleMs: number, now = Date.now()): Promise<string[]> {
  const gone: string[] = [];
  for (const id of await listClones(db)) {
    if (now - (lastUsed.get(id) ?? now) < idleMs) continue;
    await deleteClone(db, id);
    gone.push(id);
  }
  if (gone.length) log.info('dev', `deleted ${gone.length} clone(s) idle for ${Math.round(idleMs / 1000)} s or more`, { shops: gone });
  return gone;
}
