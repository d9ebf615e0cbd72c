/** `ucp-storefront reset --shop ID_OR_DOMAIN`: a shop back to its seeded state (server/seed/reset.ts, docs/cli.md). */
import { CatalogFileError } from '../../core/catalog/catalog-check.ts';
import { readCatalogJson } from '../../seed/catalog-files.ts';
import { NoSuchShop, resetShop } from '../../seed/reset.ts';
import { CliError, printRecord, required, type Command } from '../cli.ts';
import { withDb } from '../open.ts';
import { serverAddress } from '../server-address.ts';
import { findShopByIdOrDomain } from '../../core/shops/shops.ts';

export const reset: Command = {
  name: 'reset',
  summary: 'put a shop back to its seeded state (carts, idempotency records, orders, catalog)',
  usage: `usage: ucp-storefront reset --shop ID_OR_DOMAIN [--catalog FILE] [--json]

  Deletes the shop's carts, idempotency records, orders, customers and webhook deliveries, and loads
  its catalog again from its seed file: the demo data for a demo shop, or --catalog FILE (products
  added since are removed). Keys, webhook endpoints and apps are kept. --shop takes the shop's id
  (shop_demo) or its domain (demo.localhost).
  With the embedded database, stop the server first (or use the running server's development
  endpoint, POST http://localhost:PORT/dev/shops/ID_OR_DOMAIN/reset with Content-Type:
  application/json; the refusal names the running server's address; docs/cli.md).`,
  options: { shop: { type: 'string' }, catalog: { type: 'string' } },
  async run({ values, io }) {
    required(values, 'shop');
    let catalogFile: unknown;
    if (values.catalog) {
      try {
        catalogFile = readCatalogJson(values.catalog);
      } catch (e) {
        throw new CliError(`${values.catalog}: ${(e as Error).message}`);
      }
    }
    const summary = await withDb(io, async (db) => {
      try {
        const shop = await findShopByIdOrDomain(db, values.shop);
        return await resetShop(db, shop?.id ?? values.shop, { catalogFile, catalogSource: values.catalog });
      } catch (e) {
        if (e instanceof NoSuchShop) throw new CliError(e.message);
        if (e instanceof CatalogFileError) throw new CliError(`${values.catalog}: ${e.message}${e.issues.map((i) => `\n  ${i.path}: ${i.content}`).join('')}`);
        throw e;
      }
    }, `To reset through the running server: curl -X POST -H 'Content-Type: application/json' ${serverAddress(io.env).url}/dev/shops/${encodeURIComponent(values.shop)}/reset`);
    if (values.json) {
      io.out(JSON.stringify(summary, null, 2));
      return;
    }
    printRecord(io, false, {
      shop: summary.shop,
      deleted: Object.entries(summary.deleted).map(([k, n]) => `${n} ${k}`).join(', '),
      catalog: summary.catalog === 'kept' ? 'kept (no seed file for this shop; pass --catalog FILE)' : `${summary.catalog.products} products from ${summary.catalog.source}`,
    });
  },
};
