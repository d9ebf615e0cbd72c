/**
 * Our own catalog file (docs/catalog-format.md) as an import source: its products as they are, its
 * shop's id, domain, name and settings as hints. The file is one JSON document, read whole (the
 * `seed` command reads it the same way); its syntax errors name their line and column.
 */
import { parseJsonText, JsonSyntaxError } from '../core/shared/json-text.ts';
import type { StoredProduct } from '../formats/catalog-format.ts';
import { ImportParseError, type Adapter } from './adapter.ts';

export const ucp: Adapter = {
  format: 'ucp',
  async *read(chunks, ctx) {
    let text = '';
    for await (const c of chunks) text += c;
    let doc: unknown;
    try {
      doc = parseJsonText(text);
    } catch (e) {
      if (e instanceof JsonSyntaxError) throw new ImportParseError(e.reason, e.line, e.column);
      throw e;
    }
    const file = doc as { shop?: { id?: string; domain?: string; name?: string; settings?: { currency?: string; default_language?: string; checkout?: never } }; products?: unknown };
    if (!file || typeof file !== 'object' || !Array.isArray(file.products)) throw new ImportParseError('not a catalog file: no "products" array');
    const s = file.shop;
    if (s) ctx.hint({ id: s.id, domain: s.domain, name: s.name, currency: s.settings?.currency, language: s.settings?.default_language, checkout: s.settings?.checkout });
    // Checked with the rest of the import (the run's schema check names each product's path).
    for (const p of file.products) yield p as StoredProduct;
  },
};
