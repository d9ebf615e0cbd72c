/**
 * host.d.ts (types/host.d.ts, generated from src/host/types.ts by scripts/build-host-dts.ts and
 * committed): it is what the sources say now, self-contained (no imports), and served at
 * /ucp/host.d.ts on protocol shops. The package test (test/package.test.ts) type-checks a page against it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHostDts, HOST_DTS } from '../scripts/build-host-dts.ts';
import { startTestServer, type TestServer } from './support/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('host.d.ts', () => {
  const committed = readFileSync(HOST_DTS, 'utf8');

  it('is up to date with src/host/types.ts (else: npm run build:host-dts)', () => {
    expect(buildHostDts(), 'types/host.d.ts is stale: run npm run build:host-dts').toBe(committed);
  }, 120_000);

  it('is self-contained and declares the global, the elements and the events', () => {
    expect(committed).not.toMatch(/^import /m);
    expect(committed).toMatch(/interface Window \{\s+UCP: UcpGlobal;/);
    expect(committed).toContain('"ucp-product": UcpProductElement;');
    for (const e of ['add', 'load', 'change', 'ready', 'start', 'complete', 'error', 'fallback', 'close']) expect(committed).toContain(`"ucp:cart:${e}"`);
  });

  it('is served at /ucp/host.d.ts with CORS, a TypeScript type and an ETag', async () => {
    const r = await s.req('demo.localhost', 'GET', '/ucp/host.d.ts');
    expect(r.status).toBe(200);
    expect(r.text).toBe(committed);
    expect(r.headers['content-type']).toBe('application/typescript; charset=utf-8');
    expect(r.headers['access-control-allow-origin']).toBe('*');
    const again = await s.req('demo.localhost', 'GET', '/ucp/host.d.ts', undefined, { 'if-none-match': String(r.headers.etag) });
    expect(again.status).toBe(304);
    // Not on a shop with the protocol off.
    expect((await s.req('offline.localhost', 'GET', '/ucp/host.d.ts')).status).toBe(404);
  });
});
