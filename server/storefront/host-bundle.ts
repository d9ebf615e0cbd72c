/**
 * The built host.js as the server holds it: the entry and its chunks read from dist/ (re-read when
 * the build changes), with their gzip, ETag and SRI digests. Used by the routes that serve them
 * (hostjs.ts), by the pages that link them (pages.ts) and by the archive of earlier builds
 * (host-archive.ts), which is why it is a module of its own.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

export const HOST_JS_PATH = fileURLToPath(new URL('../../dist/host.js', import.meta.url));
/** Written by the build next to host.js: `{entry, chunks: [{file, role, imports, modules}]}`. */
export const CHUNKS_FILE = 'host-chunks.json';

/** One served file: its bytes, gzip, ETag and SRI digest. */
export interface HostAsset {
  body: Buffer;
  gzip: Buffer;
  etag: string;
  integrity: string;
}

export interface HostChunk extends HostAsset {
  file: string;
  /** The protocol role this chunk implements, or `webmcp` (the in-page agent tools), or `search` (`<ucp-search>`); `null`: code shared by the roles. */
  role: 'embedded' | 'host' | 'webmcp' | 'search' | 'picker' | 'cart' | null;
  /** Chunks it imports statically (file names). */
  imports: string[];
}

export interface HostBundle extends HostAsset {
  hash: string;
  mtimeMs: number;
  /** Lazily imported chunks by file name. */
  chunks: Map<string, HostChunk>;
}

let cached: HostBundle | null = null;
let cachedKey = '';

export function hostAsset(body: Buffer): HostAsset & { hex: string } {
  const hex = createHash('sha256').update(body).digest('hex');
  return {
    body,
    gzip: gzipSync(body, { level: 9 }),
    etag: `"${hex.slice(0, 32)}"`,
    integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
    hex,
  };
}

/** A file's modification time, or -1 when it does not exist. */
export const mtime = (p: string) => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return -1;
  }
};

/** The current bundle, or null when dist/host.js does not exist. */
export function hostBundle(path = HOST_JS_PATH): HostBundle | null {
  const dir = path.slice(0, path.lastIndexOf('/') + 1);
  const mtimeMs = mtime(path);
  if (mtimeMs < 0) return (cached = null);
  const key = `${path}:${mtimeMs}:${mtime(dir + CHUNKS_FILE)}`;
  if (cached && cachedKey === key) return cached;
  const entry = hostAsset(readFileSync(path));
  const chunks = new Map<string, HostChunk>();
  try {
    const graph = JSON.parse(readFileSync(dir + CHUNKS_FILE, 'utf8')) as { chunks: Array<{ file: string; role: HostChunk['role']; imports: string[] }> };
    for (const c of graph.chunks) {
      if (!/^host-[\w.-]+\.js$/.test(c.file)) continue;
      try {
        const { hex: _, ...a } = hostAsset(readFileSync(dir + c.file));
        chunks.set(c.file, { ...a, file: c.file, role: c.role ?? null, imports: c.imports ?? [] });
      } catch {
        // Mid-build: the next request sees the new mtimes and reads again.
      }
    }
  } catch {
    // No chunk graph: a build without lazy chunks.
  }
  const { hex, ...e } = entry;
  cachedKey = key;
  cached = { ...e, hash: hex.slice(0, 16), mtimeMs, chunks };
  return cached;
}

/** Public URL of the immutable twin, for pages and docs. */
export function hostJsUrl(origin: string): string {
  const b = hostBundle();
  return b ? `${origin}/ucp/host.${b.hash}.js` : `${origin}/ucp/host.js`;
}

/** The chunks a role needs (its own and everything it imports), in load order. */
export function roleChunks(b: HostBundle, role: 'embedded' | 'host' | 'search' | 'picker'): HostChunk[] {
  const out = new Map<string, HostChunk>();
  const add = (c: HostChunk | undefined) => {
    if (!c || out.has(c.file)) return;
    out.set(c.file, c);
    for (const i of c.imports) add(b.chunks.get(i));
  };
  for (const c of b.chunks.values()) if (c.role === role) add(c);
  return [...out.values()];
}
