/**
 * Platform CSV exports as records (Shopify, WooCommerce): csv-parse streaming, never split by hand,
 * and csv-parse's errors in a shop owner's words with their line.
 */
import { parse, CsvError } from 'csv-parse';
import { ImportParseError } from './adapter.ts';

/**
 * The file's records as csv-parse streams them (never split by hand): chunks are written as they
 * arrive and records read as they are parsed, so the text itself is never held whole.
 */
export async function* csvRecords(chunks: AsyncIterable<string>): AsyncGenerator<string[]> {
  const parser = parse({ relax_column_count: true, skip_empty_lines: true });
  void (async () => {
    try {
      for await (const chunk of chunks) {
        if (parser.destroyed) return;
        if (!parser.write(chunk)) await new Promise((resolve) => (parser.once('drain', resolve), parser.once('close', resolve)));
      }
      parser.end();
    } catch (err) {
      parser.destroy(err as Error);
    }
  })();
  try {
    for await (const record of parser) if ((record as string[]).some((c) => c.trim() !== '')) yield record as string[];
  } catch (err) {
    throw err instanceof CsvError ? csvError(err) : err;
  } finally {
    parser.destroy();
  }
}

/** csv-parse's error in words a shop owner acts on, with its line (and column where it knows one). */
export function csvError(err: CsvError): ImportParseError {
  const info = err as CsvError & { lines?: number; column?: number | string };
  const column = typeof info.column === 'number' ? info.column + 1 : undefined;
  const reason =
    err.code === 'CSV_QUOTE_NOT_CLOSED'
      ? 'a quoted field is never closed (the file is cut short, or a quote is missing)'
      : err.code === 'CSV_INVALID_CLOSING_QUOTE'
        ? 'text right after a closing quote (a quote inside a field must be doubled)'
        : err.message;
  return new ImportParseError(reason, info.lines, column);
}

