/**
 * `ucp-storefront reset --shop ID`: a shop back to its seeded state, for test suites that share one
 * server (docs/cli.md):
 *  - the state buyers, agents and merchants made is deleted, in one transaction: carts, idempotency
 *    records, orders, customers, the shop's webhook deliveries and products not in the seed file;
 *  - then the catalog (products, variants, discounts, shop settings) is loaded again from its seed file
 *    (the catalog loader's own transactions):
 *    the demo data file with that shop id (server/seed/data), or the file given; products added since
 *    are removed. A shop with neither keeps its catalog (`catalog: 'kept'`).
 * Configuration the operator set up is kept: signing keys, webhook endpoints, channel keys, apps.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DB } from '../db/index.ts';
import { loadCatalogFile } from '../core/catalog/catalog-load.ts';
import { checkCatalogFile } from '../core/catalog/catalog-check.ts';
import { catalogWritten, recordCatalogChange } from '../core/search/catalog-index.ts';
import { forgetCachedShops } from '../core/shops/shops.ts';
import { DEMO_DATA_DIR } from './demo.ts';
import { DomainError, ERROR_CODES } from '../core/shared/errors.ts';

export interface ResetSummary {
  shop: string;
  deleted: { carts: number; idempotency_keys: number; orders: number; customers: number; webhook_deliveries: number; products: number };
  /** Where the catalog came from, or `kept` when the shop has no seed file. */
  catalog: { source: string; products: number } | 'kept';
}

/** The demo data file whose shop is `shopId`, parsed; undefined when none. */
export function demoCatalogOf(shopId: string): unknown {
  for (const name of readdirSync(DEMO_DATA_DIR).filter((f) => f.endsWith('.json'))) {
    const file = JSON.parse(readFileSync(join(DEMO_DATA_DIR, name), 'utf8'));
    if (file?.shop?.id === shopId) return Object.assign(file, { [SOURCE]: `server/seed/data/${name}` });
  }
  return undefined;
}
const SOURCE = Symbol('source');

let demoList: Array<{ id: string; domain: string }> | undefined;
/** The demo shops' ids and domains (server/seed/data), read once. */
export function demoShops(): Array<{ id: string; domain: string }> {
  demoList ??= readdirSync(DEMO_DATA_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((name) => (JSON.parse(readFileSync(join(DEMO_DATA_DIR, name), 'utf8')) as { shop: { id: string; domain: string } }).shop)
    .map(({ id, domain }) => ({ id, domain }));
  return demoList;
}

/** Reset of a shop that does not exist: the CLI says so, the dev route answers 404. */
export class NoSuchShop extends DomainError {
  constructor(message: string) {
    super('not_found', ERROR_CODES.notFound, message);
  }
}

/** Resets `shopId`. `catalogFile`: a parsed catalog file to restore instead of the demo data. */
export async function resetShop(db: DB, shopId: string, opts: { catalogFile?: unknown; catalogSource?: string } = {}): Promise<ResetSummary> {
  const shop = await db.selectFrom('shops').select('id').where('id', '=', shopId).executeTakeFirst();
  if (!shop) throw new NoSuchShop(`No shop with id or domain '${shopId}'.`);
  const file = (opts.catalogFile ?? demoCatalogOf(shopId)) as { shop?: { id?: string }; products?: Array<{ id: string }>; [SOURCE]?: string } | undefined;
  if (file && file.shop?.id !== shopId) throw new Error(`The catalog file is for shop ${file.shop?.id ?? '(none)'}, not ${shopId}.`);
  if (file) checkCatalogFile(file); // a bad file fails before anything is deleted
  const n = (r: { numDeletedRows: bigint }) => Number(r.numDeletedRows);
  const summary = await db.transaction().execute(async (tx) => {
    const deleted = {
      webhook_deliveries: n(await tx.deleteFrom('webhook_deliveries').where('shop_id', '=', shopId).executeTakeFirstOrThrow()),
      orders: n(await tx.deleteFrom('orders').where('shop_id', '=', shopId).executeTakeFirstOrThrow()),
      customers: n(await tx.deleteFrom('customers').where('shop_id', '=', shopId).executeTakeFirstOrThrow()),
      carts: n(await tx.deleteFrom('carts').where('shop_id', '=', shopId).executeTakeFirstOrThrow()),
      idempotency_keys: n(await tx.deleteFrom('idempotency_keys').where('shop_id', '=', shopId).executeTakeFirstOrThrow()),
      products: 0,
    };
    if (file) {
      const keep = (file.products ?? []).map((p) => p.id);
      let del = tx.deleteFrom('products').where('shop_id', '=', shopId);
      if (keep.length) del = del.where('id', 'not in', keep);
      deleted.products = n(await del.executeTakeFirstOrThrow());
      await recordCatalogChange(tx, shopId, null);
    }
    return deleted;
  });
  // After the commit: this process's caches (the running server's, when it calls this) start over.
  await catalogWritten(db, shopId);
  forgetCachedShops(db);
  if (!file) return { shop: shopId, deleted: summary, catalog: 'kept' };
  const loaded = await loadCatalogFile(db, file);
  return { shop: shopId, deleted: summary, catalog: { source: opts.catalogSource ?? file[SOURCE] ?? 'catalog file', products: loaded.products } };
}
