/** Every import format's adapter, by name (docs/catalog-import.md). */
import type { Adapter, ImportFormat } from './adapter.ts';
import { shopify } from './shopify.ts';
import { ucp } from './ucp.ts';
import { woocommerce } from './woocommerce.ts';

const loaded: Partial<Record<ImportFormat, Adapter>> = { shopify, woocommerce, ucp };

export function adapterFor(format: ImportFormat): Adapter {
  const a = loaded[format];
  if (!a) throw new Error(`no adapter for ${format}`);
  return a;
}
