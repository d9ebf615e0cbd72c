/**
 * Delivery of the built host.js (dist/host.js, `npm run build:host`):
 *   /ucp/host.js            short cache (max-age=300) + ETag, for copy-paste embeds
 *   /ucp/host.<sha256:16>.js immutable, content-hashed twin (for SRI pinning)
 *   /ucp/host.json          {url, integrity: "sha384-…", version, bytes}
 * CORS `*` on all. Read at startup, re-read when the file changes; 503 with a clear message when
 * it has not been built.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { protocolError } from '../http/errors.ts';

export const HOST_JS_PATH = fileURLToPath(new URL('../../dist/host.js', import.meta.url));

export interface HostBundle {
  body: Buffer;
  gzip: Buffer;
  hash: string;
  etag: string;
  integrity: string;
  mtimeMs: number;
}

let cached: HostBundle | null = null;

/** The current bundle, or null when dist/host.js does not exist. */
export function hostBundle(path = HOST_JS_PATH): HostBundle | null {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    return (cached = null);
  }
  if (cached && cached.mtimeMs === mtimeMs) return cached;
  const body = readFileSync(path);
  const hex = createHash('sha256').update(body).digest('hex');
  cached = {
    body,
    gzip: gzipSync(body, { level: 9 }),
    hash: hex.slice(0, 16),
    etag: `"${hex.slice(0, 32)}"`,
    integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
    mtimeMs,
  };
  return cached;
}

/** Public URL of the immutable twin, for pages and docs. */
export function hostJsUrl(origin: string): string {
  const b = hostBundle();
  return b ? `${origin}/ucp/host.${b.hash}.js` : `${origin}/ucp/host.js`;
}

function send(c: Context<AppEnv>, b: HostBundle, cacheControl: string) {
  c.header('Access-Control-Allow-Origin', '*');
  c.header('Cross-Origin-Resource-Policy', 'cross-origin');
  c.header('Content-Type', 'text/javascript; charset=utf-8');
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

export function hostJsRoutes() {
  const app = new Hono<AppEnv>();
  app.get('/host.json', (c) => {
    const b = hostBundle();
    if (!b) return missing(c);
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Cache-Control', 'public, max-age=300');
    return c.json({ url: `${c.get('origin')}/ucp/host.${b.hash}.js`, integrity: b.integrity, version: '2026-04-08', bytes: b.body.length, gzip_bytes: b.gzip.length });
  });
  app.get('/:file{host(?:\\.[0-9a-f]{16})?\\.js}', (c) => {
    const b = hostBundle();
    if (!b) return missing(c);
    const file = c.req.param('file');
    if (file === 'host.js') return send(c, b, 'public, max-age=300');
    if (file === `host.${b.hash}.js`) return send(c, b, 'public, max-age=31536000, immutable');
    return protocolError(c, 404, 'not_found', 'No such host.js version on this server; read /ucp/host.json for the current one.');
  });
  return app;
}
