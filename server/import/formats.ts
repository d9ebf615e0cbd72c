/** Every import format's adapter, by name (docs/catalog-import.md). */
import type { Adapter, ImportFormat } from './adapter.ts';
import { ucp } from './ucp.ts';

const loaded: Partial<Record<ImportFormat, Adapter>> = { ucp };

export function adapterFor(format: ImportFormat): Adapter {
  const a = loaded[format];
  if (!a) throw new Error(`no adapter for ${format}`);
  return a;
}
