/**
 * Delivery of the built host.js (`npm run build:host` = vite build, see vite.config.ts):
 *   /ucp/host.js              the ES module entry; short cache (max-age=300) + ETag, for copy-paste embeds
 *   /ucp/host.<sha256:16>.js  immutable, content-hashed twin of the entry (for SRI pinning)
 *   /ucp/host-<name>-<hash>.js  the lazily imported chunks (protocol roles and their shared code):
 *                             immutable; imported by the entry relative to its own URL
 *   /ucp/host.json            {url, integrity: "sha384-…", version, bytes, gzip_bytes, chunks: [{url, integrity, role, …}]}
 *   /ucp/host.d.ts            host.js's public types (types/host.d.ts), for TypeScript pages
 * Versioned files of earlier builds keep answering from the database (host-archive.ts).
 * CORS `*` on all (module scripts loaded cross-origin are fetched in CORS mode). Read at startup,
 * re-read when dist/host.js or dist/host-chunks.json changes; 503 with a clear message when it has
 * not been built. See docs/host-js.md.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { protocolError } from '../http/errors.ts';
import { UCP_VERSION } from '../version.ts';
import { archivedAsset, ensurePublished } from './host-archive.ts';

export const HOST_JS_PATH = fileURLToPath(new URL('../../dist/host.js', import.meta.url));
/** Written by the build next to host.js: `{entry, chunks: [{file, role, imports, modules}]}`. */
export const CHUNKS_FILE = 'host-chunks.json';

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** One served file: its bytes, gzip, ETag and SRI digest. */
export interface HostAsset {
  body: Buffer;
  gzip: Buffer;
  etag: string;
  integrity: string;
}

export interface HostChunk extends HostAsset {
  file: string;
  /** The protocol role this chunk implements, or `webmcp` (the in-page agent tools); `null`: code shared by the roles. */
  role: 'embedded' | 'host' | 'webmcp' | null;
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

const mtime = (p: string) => {
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
export function roleChunks(b: HostBundle, role: 'embedded' | 'host'): HostChunk[] {
  const out = new Map<string, HostChunk>();
  const add = (c: HostChunk | undefined) => {
    if (!c || out.has(c.file)) return;
    out.set(c.file, c);
    for (const i of c.imports) add(b.chunks.get(i));
  };
  for (const c of b.chunks.values()) if (c.role === role) add(c);
  return [...out.values()];
}

function send(c: Context<AppEnv>, b: HostAsset, cacheControl: string, type = 'text/javascript; charset=utf-8') {
  c.header('Access-Control-Allow-Origin', '*');
  c.header('Cross-Origin-Resource-Policy', 'cross-origin');
  c.header('Content-Type', type);
  c.header('Cache-Control', cacheControl);
  c.header('ETag', b.etag);
  c.header('Vary', 'Accept-Encoding');
  c.header('X-Content-Type-Options', 'nosniff');
  if (c.req.header('if-none-match') === b.etag) return c.body(null, 304);
  if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) {
    c.header('Content-Encoding', 'gzip');
    return c.body(new Uint8Array(b.gzip), 200);
  }
  return c.body(new Uint8Array(b.body), 200);
}

function missing(c: Context<AppEnv>) {
  c.header('Access-Control-Allow-Origin', '*');
  return protocolError(c, 503, 'host_js_not_built', 'host.js has not been built on this server: run `npm run build:host` (vite build), then retry.', {}, { 'Retry-After': '5' });
}

/** The current bundle; a build this process has not archived yet is archived in the background. */
function current(c: Context<AppEnv>): HostBundle | null {
  const b = hostBundle();
  if (b) void ensurePublished(c.get('db'), b);
  return b;
}

/** types/host.d.ts (generated by scripts/build-host-dts.ts, committed): read on first use, re-read when it changes. */
export const HOST_DTS_PATH = fileURLToPath(new URL('../../types/host.d.ts', import.meta.url));
let dts: { mtimeMs: number; asset: HostAsset } | null = null;
function hostDts(): HostAsset | null {
  const m = mtime(HOST_DTS_PATH);
  if (m < 0) return null;
  if (dts?.mtimeMs !== m) dts = { mtimeMs: m, asset: hostAsset(readFileSync(HOST_DTS_PATH)) };
  return dts.asset;
}

export function hostJsRoutes() {
  const app = new Hono<AppEnv>();
  // host.js's public types (the UCP global, the elements, the ucp:* events) for TypeScript pages.
  app.get('/host.d.ts', (c) => {
    const d = hostDts();
    if (!d) return protocolError(c, 404, 'not_found', 'host.d.ts is not on this server (types/host.d.ts; npm run build:host-dts).');
    return send(c, d, 'public, max-age=300', 'application/typescript; charset=utf-8');
  });
  app.get('/host.json', (c) => {
    const b = current(c);
    if (!b) return missing(c);
    const base = `${c.get('origin')}/ucp/`;
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Cache-Control', 'public, max-age=300');
    return c.json({
      url: `${base}host.${b.hash}.js`,
      integrity: b.integrity,
      version: UCP_VERSION,
      bytes: b.body.length,
      gzip_bytes: b.gzip.length,
      // Imported by the entry on demand, relative to its URL (so from this origin). Pin them with an
      // import map's `integrity` (or `<link rel="modulepreload" integrity>`) to extend SRI to them.
      chunks: [...b.chunks.values()].map((ch) => ({
        url: base + ch.file,
        integrity: ch.integrity,
        role: ch.role,
        imports: ch.imports.map((f) => base + f),
        bytes: ch.body.length,
        gzip_bytes: ch.gzip.length,
      })),
    });
  });
  app.get('/:file{host[\\w.-]*\\.js}', async (c) => {
    const b = current(c);
    if (!b) return missing(c);
    const file = c.req.param('file');
    if (file === 'host.js') return send(c, b, 'public, max-age=300');
    if (file === `host.${b.hash}.js`) return send(c, b, IMMUTABLE);
    const chunk = b.chunks.get(file);
    if (chunk) return send(c, chunk, IMMUTABLE);
    // A file of an earlier build (host-archive.ts), once this build's publication has landed.
    await ensurePublished(c.get('db'), b);
    const old = await archivedAsset(c.get('db'), file);
    if (old) return send(c, old, IMMUTABLE);
    return protocolError(c, 404, 'not_found', 'No such host.js file on this server; read /ucp/host.json for the current ones.');
  });
  return app;
}
