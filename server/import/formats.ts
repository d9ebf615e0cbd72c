/** Every import format's adapter, by name (docs/catalog-import.md). */
import type { Adapter, ImportFormat } from './adapter.ts';
import { google } from './google.ts';
import { jsonld } from './jsonld.ts';
import { shopify } from './shopify.ts';
import { ucp } from './ucp.ts';
import { woocommerce } from './woocommerce.ts';

const adapters: Record<ImportFormat, Adapter> = { shopify, woocommerce, google, jsonld, ucp };

export function adapterFor(format: ImportFormat): Adapter {
  return adapters[format];
}
