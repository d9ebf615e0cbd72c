/**
 * An import's bytes as text chunks: UTF-8 (what every platform exports today), decoded as they
 * stream. A byte that is not UTF-8 stops the import naming its line, with what to do (a spreadsheet
 * saved the file as Windows-1252); a UTF-16 file says so. A leading byte order mark is dropped.
 * An XML feed whose declaration names Latin-1 (ISO-8859-1) or Windows-1252 — encodings Google
 * Merchant Center accepts feeds in — is decoded as it declares; any other declared encoding is
 * refused naming it.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ImportParseError } from './adapter.ts';

/** Decodes byte chunks as UTF-8, throwing ImportParseError at the first invalid byte's line. */
export async function* utf8Chunks(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  let decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let lines = 1;
  let first = true;
  let declared: string | undefined;
  for await (const chunk of bytes) {
    if (first && chunk.length >= 2 && ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff))) {
      throw new ImportParseError('the file is UTF-16 text: save or export it as UTF-8 (CSV UTF-8 in a spreadsheet)', 1);
    }
    if (first) {
      declared = xmlEncoding(chunk);
      // Every byte is a character in these: nothing to refuse (WHATWG reads both labels as Windows-1252).
      if (declared && SINGLE_BYTE.test(declared)) decoder = new TextDecoder('windows-1252');
    }
    first = false;
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      throw notUtf8(chunk, lines, declared);
    }
    lines += count(text, '\n');
    if (text) yield text;
  }
  try {
    const rest = decoder.decode();
    if (rest) yield rest;
  } catch {
    throw new ImportParseError('the file ends inside a UTF-8 character: it was cut short', lines);
  }
}

/** Declared encodings decoded as declared: Latin-1 under its names, and Windows-1252 (its superset). */
const SINGLE_BYTE = /^(iso[-_]?8859-1|iso_8859-1:1987|latin-?1|l1|windows-1252|cp1252|us-ascii|ascii)$/i;

/** The encoding an XML declaration at the file's start names (`<?xml version="1.0" encoding="ISO-8859-1"?>`), when not UTF-8. */
function xmlEncoding(chunk: Uint8Array): string | undefined {
  const start = new TextDecoder('latin1').decode(chunk.subarray(0, 200));
  const name = /^\uFEFF?<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(start)?.[1];
  return name && !/^utf-?8$/i.test(name) ? name : undefined;
}

function notUtf8(chunk: Uint8Array, linesBefore: number, declared?: string): ImportParseError {
  // Decoded leniently, the first replacement character is where the bad byte was.
  const lenient = new TextDecoder('utf-8').decode(chunk);
  const at = lenient.indexOf('\ufffd');
  const before = at < 0 ? lenient : lenient.slice(0, at);
  const line = linesBefore + count(before, '\n');
  const column = before.length - before.lastIndexOf('\n');
  return new ImportParseError(
    declared
      ? `not UTF-8 text: the feed declares encoding="${declared}", and the import reads UTF-8, Latin-1 (ISO-8859-1) and Windows-1252 only: have the feed written as UTF-8 (encoding="UTF-8")`
      : 'not UTF-8 text (a spreadsheet may have saved it as Windows-1252 or Latin-1): export it again as UTF-8',
    line,
    column,
  );
}

function count(text: string, ch: string): number {
  let n = 0;
  for (let i = text.indexOf(ch); i !== -1; i = text.indexOf(ch, i + 1)) n++;
  return n;
}

/** A file's text chunks (64 KiB reads); a missing or unreadable file is a one-line error. */
export function fileChunks(path: string): AsyncGenerator<string> {
  return utf8Chunks(createReadStream(path, { highWaterMark: 64 * 1024 }));
}

/**
 * Bytes from the network (a fetched feed, a file sent to the running server) saved to a temporary
 * file (owner-only) before the import reads them. An import writes inside one transaction as it
 * reads (catalog-sync.ts): read from the network, a slow or stalled sender would keep that
 * transaction open, and on the embedded database every other query of every shop waits on it.
 * A failure while receiving (too large, stalled, cut) is thrown here, before anything is written.
 */
export async function spool(bytes: AsyncIterable<Uint8Array>): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'ucp-import-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'body');
  try {
    await pipeline(Readable.from(bytes), createWriteStream(path, { mode: 0o600 }));
  } catch (e) {
    await remove();
    throw e;
  }
  return { path, remove };
}

/**
 * The first chunks of a stream, up to `bytes` characters, for detecting the format, and the whole
 * stream again (what was read first, then the rest) for the adapter: nothing is read twice.
 */
export async function peek(chunks: AsyncIterator<string>, bytes = 64 * 1024): Promise<{ head: string; all: AsyncIterable<string> }> {
  const held: string[] = [];
  let size = 0;
  let done = false;
  while (size < bytes) {
    const r = await chunks.next();
    if (r.done) {
      done = true;
      break;
    }
    held.push(r.value);
    size += r.value.length;
  }
  const head = held.join('').replace(/^\ufeff/, '');
  async function* all() {
    let firstChunk = true;
    for (const c of held) {
      yield firstChunk ? c.replace(/^\ufeff/, '') : c;
      firstChunk = false;
    }
    if (done) return;
    for (let r = await chunks.next(); !r.done; r = await chunks.next()) yield r.value;
  }
  return { head, all: all() };
}
