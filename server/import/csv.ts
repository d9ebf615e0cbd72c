/**
 * Platform CSV exports as records (Shopify, WooCommerce): csv-parse streaming, never split by hand,
 * and csv-parse's errors in a shop owner's words with their line.
 */
import { parse, CsvError, type Options } from 'csv-parse';
import { ImportParseError } from './adapter.ts';

/**
 * The file's records as csv-parse streams them (never split by hand): chunks are written as they
 * arrive and records read as they are parsed, so the text itself is never held whole. Rows with no
 * text in any cell are left out; csv-parse's errors come out in a shop owner's words.
 */
export async function* csvRecords(chunks: AsyncIterable<string>): AsyncGenerator<string[]> {
  try {
    yield* delimitedRows(chunks, {}, { skip: (record) => !record.some((c) => c.trim() !== '') });
  } catch (err) {
    throw err instanceof CsvError ? csvError(err) : err;
  }
}

/**
 * Rows of a delimited file (CSV, or tab-separated with `{ delimiter: '\t' }`) as csv-parse streams
 * them, the first (the header) included; `skip` leaves rows out. `at.line` is the line the last whole
 * row ended on, for callers placing csv-parse's errors, which are thrown as they are.
 *
 * A file cut short inside a row (a download or copy that stopped) ends without a line break on a
 * row with fewer cells than the header: the last row is held until the file ends and then refused
 * (cutInsideRow), not read as a row whose last cells (a price cut from 17.99 to 17.9, everything
 * after it empty) are what the file says.
 */
export async function* delimitedRows(
  chunks: AsyncIterable<string>,
  options: Options,
  { skip, at = { line: 0 } }: { skip?: (record: string[]) => boolean; at?: { line: number } } = {},
): AsyncGenerator<string[]> {
  const parser = parse({
    ...options,
    relax_column_count: true,
    skip_empty_lines: true,
    on_record: (record: string[], context: { lines: number }) => ((at.line = context.lines), record),
  });
  let endsWithLineBreak = true;
  const pump = (async () => {
    try {
      for await (const chunk of chunks) {
        if (parser.destroyed) return;
        if (chunk) endsWithLineBreak = /[\r\n]$/.test(chunk);
        if (!parser.write(chunk)) await new Promise((resolve) => (parser.once('drain', resolve), parser.once('close', resolve)));
      }
      parser.end();
    } catch (err) {
      parser.destroy(err as Error);
    }
  })();
  let header: number | undefined;
  let held: string[] | undefined;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      header ??= record.length;
      if (skip?.(record)) continue;
      if (held) yield held;
      held = record;
    }
    if (held && header !== undefined && held.length < header && !endsWithLineBreak) throw cutInsideRow(held.length, header, at.line);
    if (held) yield held;
  } finally {
    parser.destroy();
    await pump;
  }
}

/**
 * A CSV or tab-separated file that ends, without a line break, on a row shorter than its header: a
 * download or copy that stopped inside that row (spreadsheets that drop a row's empty last cells
 * still end the file with a line break).
 */
export function cutInsideRow(cells: number, headerCells: number, line: number): ImportParseError {
  return new ImportParseError(
    `the file ends inside a row (${cells} of the header's ${headerCells} columns, no line break after it): it was cut short; export or download it again (a last row meant to be short: end the file with a line break)`,
    line,
  );
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

