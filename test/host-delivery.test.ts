/**
 * Server side of host.js: delivery (short-cache URL, immutable hashed twin, immutable lazy chunks,
 * SRI manifest, CORS, 404 without the protocol), the storefront pages (module script with SRI; the
 * framed cart page preloads the embedded role only) and the cart page's CSP, agent.localhost routing.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { frameAncestors, html, pageCsp } from '../server/storefront/pages.ts';
import { CHUNKS_FILE, HOST_JS_PATH } from '../server/storefront/hostjs.ts';

const sri = (b: Buffer) => `sha384-${createHash('sha384').update(b).digest('base64')}`;
const DIST = HOST_JS_PATH.slice(0, HOST_JS_PATH.lastIndexOf('/') + 1);
type Graph = { chunks: Array<{ file: string; role: 'embedded' | 'host' | null; imports: string[] }> };
// dist/ is built by test/support/build-host.ts (vitest global setup) when missing or stale.
const graph: Graph = JSON.parse(readFileSync(DIST + CHUNKS_FILE, 'utf8'));

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

describe('templating and CSP helpers', () => {
  it('escapes interpolations', () => {
    expect(html`<p title="${'"x"'}">${'<b>&'}</p>`.html).toBe('<p title="&quot;x&quot;">&lt;b&gt;&amp;</p>');
  });
  it('keeps only origin-shaped frame ancestors (port wildcard allowed)', () => {
    expect(frameAncestors(['http://agent.localhost:*', 'https://a.example/', "x; script-src 'unsafe-inline'", '*'])).toEqual([
      'http://agent.localhost:*',
      'https://a.example',
    ]);
    expect(pageCsp(['http://agent.localhost:*'])).toContain("frame-ancestors 'self' http://agent.localhost:*");
  });
});

describe('/ucp/host.js', () => {
  const body = readFileSync(HOST_JS_PATH);
  const integrity = `sha384-${createHash('sha384').update(body).digest('base64')}`;

  it('serves the short-cache script and a manifest naming the immutable twin with SRI', async () => {
    const r = await s.req('demo.localhost', 'GET', '/ucp/host.js');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/javascript/);
    expect(r.headers['cache-control']).toBe('public, max-age=300');
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(Buffer.byteLength(r.text)).toBe(body.length);
    const etag = r.headers.etag as string;
    expect((await s.req('demo.localhost', 'GET', '/ucp/host.js', undefined, { 'If-None-Match': etag })).status).toBe(304);

    const m = await s.req('demo.localhost', 'GET', '/ucp/host.json');
    expect(m.body.integrity).toBe(integrity);
    const twin = new URL(m.body.url);
    expect(twin.pathname).toMatch(/^\/ucp\/host\.[0-9a-f]{16}\.js$/);
    const t = await s.req('demo.localhost', 'GET', twin.pathname);
    expect(t.status).toBe(200);
    expect(t.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await s.req('demo.localhost', 'GET', '/ucp/host.0000000000000000.js')).status).toBe(404);
    expect((await s.req('demo.localhost', 'GET', '/ucp/host-role-host-nope.js')).status).toBe(404);
    expect((await s.req('demo.localhost', 'GET', '/ucp/host-chunks.json')).status).toBe(404);
  });

  it('serves every lazy chunk immutable, as JavaScript, with CORS, gzip and its SRI digest in the manifest', async () => {
    expect(graph.chunks.length).toBeGreaterThanOrEqual(2);
    const m = await s.req('demo.localhost', 'GET', '/ucp/host.json');
    const listed = m.body.chunks as Array<{ url: string; integrity: string; role: string | null; imports: string[] }>;
    expect(listed.map((c) => new URL(c.url).pathname).sort()).toEqual(graph.chunks.map((c) => `/ucp/${c.file}`).sort());
    expect(listed.filter((c) => c.role).map((c) => c.role).sort()).toEqual(['cart', 'embedded', 'host', 'picker', 'search', 'webmcp']);
    for (const c of graph.chunks) {
      const bytes = readFileSync(DIST + c.file);
      const entry = listed.find((l) => l.url.endsWith(`/ucp/${c.file}`))!;
      expect(new URL(entry.url).origin).toBe(new URL(m.body.url).origin);
      expect(entry.integrity).toBe(sri(bytes));
      expect(entry.imports.map((u) => new URL(u).pathname)).toEqual(c.imports.map((f) => `/ucp/${f}`));
      const r = await s.req('demo.localhost', 'GET', `/ucp/${c.file}`);
      expect(r.status).toBe(200);
      expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(r.headers['content-type']).toMatch(/^text\/javascript/);
      expect(r.headers['access-control-allow-origin']).toBe('*');
      expect(r.headers.etag).toBeTruthy();
      expect(Buffer.byteLength(r.text)).toBe(bytes.length);
      const z = await s.req('demo.localhost', 'GET', `/ucp/${c.file}`, undefined, { 'Accept-Encoding': 'gzip' });
      expect(z.headers['content-encoding']).toBe('gzip');
      expect((await s.req('demo.localhost', 'GET', `/ucp/${c.file}`, undefined, { 'If-None-Match': r.headers.etag as string })).status).toBe(304);
      expect((await s.req('offline.localhost', 'GET', `/ucp/${c.file}`)).status).toBe(404);
    }
  });

  it('is 404 on a shop without the protocol', async () => {
    expect((await s.req('offline.localhost', 'GET', '/ucp/host.js')).status).toBe(404);
    expect((await s.req('offline.localhost', 'GET', '/cart/x')).status).toBe(404);
  });

  it('pages load the twin with integrity and ship a strict CSP', async () => {
    const r = await s.req('demo.localhost', 'GET', '/products/engraved-flask');
    expect(r.status).toBe(200);
    expect(r.text).toMatch(new RegExp(`<script type="module" src="/ucp/host\\.[0-9a-f]{16}\\.js" integrity="${integrity.replace(/[+/]/g, '\\$&')}" crossorigin="anonymous"></script>`));
    // A product page never loads either protocol role; one with customizations preloads the picker.
    expect(r.text).not.toContain('host-role-');
    const graph = JSON.parse(readFileSync(DIST + 'host-chunks.json', 'utf8')) as { chunks: Array<{ file: string; role: string | null }> };
    const picker = graph.chunks.find((c) => c.role === 'picker')!.file;
    const preloads = [...r.text.matchAll(/<link rel="modulepreload" href="\/ucp\/([^"]+)" integrity="([^"]+)" crossorigin="anonymous">/g)];
    expect(preloads.map((p) => p[1])).toEqual([picker]);
    expect(preloads[0][2]).toBe(sri(readFileSync(DIST + picker)));
    const plain = await s.req('demo.localhost', 'GET', '/products/chef-knife');
    expect(plain.status).toBe(200);
    expect(plain.text).not.toContain('modulepreload');
    expect(r.text).toContain('<ucp-product product-id="prod_engraved_flask" currency="USD">');
    expect(r.text).not.toMatch(/<script>|<style|style=/);
    expect(r.headers['content-security-policy']).toContain("script-src 'self'");
    expect((await s.req('demo.localhost', 'GET', '/products/nope')).status).toBe(404);
  });
});

describe('cart page', () => {
  it('answers 200 for any id with frame-ancestors from the shop settings', async () => {
    const r = await s.req('demo.localhost', 'GET', '/cart/whatever?ep_version=2026-04-08');
    expect(r.status).toBe(200);
    expect(r.headers['content-security-policy']).toMatch(/frame-ancestors 'self' http:\/\/agent\.localhost:\*/);
    expect(r.text).toContain('<ucp-cart cart-id="whatever" mode="page" allowed-hosts="http://agent.localhost:*">');
  });
  it('framed (ep_version / ec_version) it preloads the embedded role with SRI, never the host role', async () => {
    const embedded = new Set<string>();
    const add = (f: string) => {
      embedded.add(f);
      for (const i of graph.chunks.find((c) => c.file === f)?.imports ?? []) add(i);
    };
    for (const c of graph.chunks) if (c.role === 'embedded') add(c.file);
    for (const q of ['?ep_version=2026-04-08', '?ec_version=2026-04-08']) {
      const r = await s.req('demo.localhost', 'GET', `/cart/whatever${q}`);
      const preloads = [...r.text.matchAll(/<link rel="modulepreload" href="\/ucp\/([^"]+)" integrity="([^"]+)" crossorigin="anonymous">/g)];
      expect(preloads.map((p) => p[1]).sort()).toEqual([...embedded].sort());
      for (const [, file, integ] of preloads) expect(integ).toBe(sri(readFileSync(DIST + file)));
    }
    const plain = await s.req('demo.localhost', 'GET', '/cart/whatever');
    expect(plain.text).not.toContain('modulepreload');
    expect(plain.text).toContain('<script type="module" src="/ucp/host.');
  });
  it('on the other shop (no allowed agents) only self may frame it', async () => {
    const r = await s.req('other.localhost', 'GET', '/cart/x');
    expect(r.headers['content-security-policy']).toMatch(/frame-ancestors 'self'$/);
  });
});

describe('agent.localhost', () => {
  it('serves the demo agent site and nothing of the shop', async () => {
    expect((await s.req('agent.localhost', 'GET', '/')).status).toBe(200);
    expect((await s.req('agent.localhost', 'GET', '/ucp/host.js')).status).toBe(404);
    expect((await s.req('agent.localhost', 'GET', '/api/ucp/carts/x')).status).toBe(404);
  });
});
