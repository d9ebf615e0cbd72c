/**
 * Every migration, in order. Names are versions: never rename or edit a shipped one, add a new file.
 * A static list (not a folder scan) so bundlers and tsx see the imports.
 */
import type { Migration } from 'kysely';
import * as m0001 from './0001_shops_catalog.ts';
import * as m0002 from './0002_carts.ts';
import * as m0003 from './0003_accounts.ts';
import * as m0004 from './0004_webhooks.ts';
import * as m0005 from './0005_access.ts';
import * as m0006 from './0006_product_search.ts';
import * as m0007 from './0007_search_order.ts';
import * as m0008 from './0008_host_assets.ts';
import * as m0009 from './0009_cart_version.ts';
import * as m0010 from './0010_rate_buckets.ts';
import * as m0011 from './0011_app_owner.ts';
import * as m0012 from './0012_catalog_changes.ts';
import * as m0013 from './0013_products_without_search_text.ts';
import * as m0014 from './0014_rate_buckets_unlogged.ts';
import * as m0015 from './0015_import_feeds.ts';
import * as m0016 from './0016_platform_admin.ts';

export const migrations: Record<string, Migration> = {
  '0001_shops_catalog': m0001,
  '0002_carts': m0002,
  '0003_accounts': m0003,
  '0004_webhooks': m0004,
  '0005_access': m0005,
  '0006_product_search': m0006,
  '0007_search_order': m0007,
  '0008_host_assets': m0008,
  '0009_cart_version': m0009,
  '0010_rate_buckets': m0010,
  '0011_app_owner': m0011,
  '0012_catalog_changes': m0012,
  '0013_products_without_search_text': m0013,
  '0014_rate_buckets_unlogged': m0014,
  '0015_import_feeds': m0015,
  '0016_platform_admin': m0016,
};
