/**
 * Interoperability with Shopify's reference client, @shopify/ucp-cli 0.9.0, driven as a child process.
 *
 * How the CLI reaches `demo.localhost` (docs/mcp.md, "Testing with the UCP CLI"):
 * - The CLI only allows plain http for the literal loopback names (localhost/127.0.0.1/::1, with
 *   UCP_TEST_ALLOW_INSECURE_LOCALHOST=true), never for `demo.localhost`, so the test serves the
 *   storefront over https through a TLS front (test/support/tls-localhost.ts) with a throwaway
 *   self-signed certificate, trusted by the child via NODE_EXTRA_CA_CERTS.
 * - Node does not resolve `*.localhost`; the child gets NODE_OPTIONS=--import=test/support/localhost-dns.mjs,
 *   which maps those names to 127.0.0.1 inside the CLI process only.
 * - The test server runs with trustProxy so origins (and the discovery mcp endpoint) are
 *   `https://demo.localhost:<tls port>`, exactly what the CLI then calls.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { startTlsFront, type TlsFront } from './support/tls-localhost.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';

const run = promisify(execFile);
const UCP_BIN = resolve(import.meta.dirname, '../node_modules/.bin/ucp');
const DNS_SHIM = resolve(import.meta.dirname, 'support/localhost-dns.mjs');

let s: TestServer;
let tls: TlsFront;
let home: string;
let biz: string;

beforeAll(async () => {
  // The CLI names its own (release-default) agent profile; the server fetches it (docs/access.md): serve one.
  serveProfiles({}, platformProfile());
  s = await startTestServer({ trustProxy: true });
  tls = await startTlsFront(s.port);
  home = mkdtempSync(join(tmpdir(), 'ucp-home-'));
  biz = `https://demo.localhost:${tls.port}`;
});
afterAll(async () => {
  await tls?.close();
  await s?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

async function ucp(...args: string[]): Promise<any> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    UCP_TEST_ALLOW_INSECURE_LOCALHOST: 'true',
    UCP_HOME: home,
    NODE_EXTRA_CA_CERTS: tls.certFile,
    NODE_OPTIONS: `--import=${DNS_SHIM}`,
  };
  for (const k of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'UCP_BUSINESS', 'UCP_PROFILE', 'UCP_AGENT_PROFILE_URL']) delete env[k];
  try {
    const { stdout } = await run(UCP_BIN, [...args, '--format', 'json'], { env, encoding: 'utf8', timeout: 60_000 });
    return JSON.parse(stdout);
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`ucp ${args.join(' ')} failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
  }
}

describe('@shopify/ucp-cli against /mcp', () => {
  it('ucp discover negotiates the mcp binding and lists the seven tools', async () => {
    const out = await ucp('discover', biz, '--refresh');
    const text = JSON.stringify(out);
    expect(text).toContain(`${biz}/mcp`);
    for (const tool of ['search_catalog', 'lookup_catalog', 'get_product', 'create_cart', 'get_cart', 'update_cart', 'cancel_cart']) expect(text).toContain(tool);
    expect(text).not.toContain('search_products');
  });

  it('ucp catalog search returns the REST search body', async () => {
    const out = await ucp('catalog', 'search', '--business', biz, '--input', JSON.stringify({ query: 'flask' }));
    expect(out.transport).toBe('mcp');
    expect(out.endpoint).toBe(`${biz}/mcp`);
    const rest = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'flask' }, { 'x-forwarded-proto': 'https', host: `demo.localhost:${tls.port}` });
    expect(out.result.products.map((p: any) => p.id)).toEqual(rest.body.products.map((p: any) => p.id));
    expect(out.result.products[0].url.startsWith(`${biz}/`)).toBe(true);
  });

  it('ucp cart create builds a cart over MCP (meta and idempotency key injected by the CLI)', async () => {
    const out = await ucp('cart', 'create', '--business', biz, '--input', JSON.stringify({ line_items: [{ item: { id: 'var_tee_m_white' }, quantity: 2 }] }));
    expect(out.transport).toBe('mcp');
    const cart = out.result;
    expect(cart.id).toEqual(expect.any(String));
    expect(cart.line_items[0].quantity).toBe(2);
    const rest = await s.req('demo.localhost', 'GET', `/api/ucp/carts/${cart.id}`);
    expect(rest.body.id).toBe(cart.id);
  });
});
