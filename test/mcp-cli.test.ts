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
 *
 * Versions (issue 37): the CLI picks the newest UCP version both its profile and the shop offer.
 * Its managed profile has renderings for 2026-04-08 and 2026-08-25, so against our shop (2026-08-25,
 * with the 2026-04-08 leaf in supported_versions) it speaks 2026-08-25; a DIY profile made with
 * `ucp profile init --version 2026-04-08` (selected with UCP_PROFILE) keeps it on 2026-04-08, through
 * the leaf profile. Each rendering names its own release-default agent profile URL, served here.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { startTlsFront, type TlsFront } from './support/tls-localhost.ts';
import { platformProfile, platformProfile20260825, serveProfiles } from './support/platform.ts';

const run = promisify(execFile);
const UCP_BIN = resolve(import.meta.dirname, '../node_modules/.bin/ucp');
const DNS_SHIM = resolve(import.meta.dirname, 'support/localhost-dns.mjs');

let s: TestServer;
let tls: TlsFront;
let home: string;
let biz: string;

beforeAll(async () => {
  // The CLI names its own (release-default) agent profile per version; the server fetches it (docs/access.md): serve both.
  serveProfiles({ [AGENT_0825]: platformProfile20260825() }, platformProfile());
  s = await startTestServer({ trustProxy: true });
  tls = await startTlsFront(s.port);
  home = mkdtempSync(join(tmpdir(), 'ucp-home-'));
  biz = `https://demo.localhost:${tls.port}`;
  await ucpAs(undefined, 'profile', 'init', '--name', SEED_PROFILE, '--version', '2026-04-08');
});

/** The CLI's release-default agent profile for 2026-08-25 (what its managed profile names there). */
const AGENT_0825 = 'https://shopify.dev/ucp/agent-profiles/2026-08-25/valid-with-capabilities.json';
/** A DIY CLI profile pinned to 2026-04-08 (the seed's version). */
const SEED_PROFILE = 'seed0408';
afterAll(async () => {
  await tls?.close();
  await s?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** The CLI speaking 2026-04-08 (the runs from before issue 37). */
const ucp = (...args: string[]) => ucpAs(SEED_PROFILE, ...args);

/** Runs the CLI with a local profile selected (UCP_PROFILE), or its managed one (undefined). */
async function ucpAs(profile: string | undefined, ...args: string[]): Promise<any> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    UCP_TEST_ALLOW_INSECURE_LOCALHOST: 'true',
    UCP_HOME: home,
    NODE_EXTRA_CA_CERTS: tls.certFile,
    NODE_OPTIONS: `--import=${DNS_SHIM}`,
  };
  for (const k of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'UCP_BUSINESS', 'UCP_PROFILE', 'UCP_AGENT_PROFILE_URL']) delete env[k];
  if (profile !== undefined) env.UCP_PROFILE = profile;
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
    expect(out.ucp.version).toBe('2026-04-08');
    const rest = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'flask' }, { 'x-forwarded-proto': 'https', host: `demo.localhost:${tls.port}` });
    expect(out.result.products.map((p: any) => p.id)).toEqual(rest.body.products.map((p: any) => p.id));
    expect(out.result.products[0].url.startsWith(`${biz}/`)).toBe(true);
  });

  it('ucp cart create builds a cart over MCP (meta and idempotency key injected by the CLI)', async () => {
    const out = await ucp('cart', 'create', '--business', biz, '--input', JSON.stringify({ line_items: [{ item: { id: 'var_tee_m_white' }, quantity: 2 }] }));
    expect(out.transport).toBe('mcp');
    const cart = out.result;
    expect(cart.id).toEqual(expect.any(String));
    expect(out.ucp.version).toBe('2026-04-08'); // the CLI lifts the answer's ucp block beside result
    expect(cart.line_items[0].quantity).toBe(2);
    const rest = await s.req('demo.localhost', 'GET', `/api/ucp/carts/${cart.id}`);
    expect(rest.body.id).toBe(cart.id);
  });
});

describe('@shopify/ucp-cli choosing UCP 2026-08-25 (its managed profile: the newest version both offer)', () => {
  it('ucp discover selects 2026-08-25 from /.well-known/ucp', async () => {
    const text = JSON.stringify(await ucpAs(undefined, 'discover', biz, '--refresh'));
    expect(text).toContain('2026-08-25');
    expect(text).toContain(`${biz}/mcp`);
  });

  it('ucp catalog search answers in 2026-08-25, with the shop policies and sale units', async () => {
    const out = await ucpAs(undefined, 'catalog', 'search', '--business', biz, '--input', JSON.stringify({ query: 'socks' }));
    expect(out.transport).toBe('mcp');
    expect(out.ucp.version).toBe('2026-08-25');
    expect(out.result.policies.length).toBeGreaterThan(0);
    const socks = out.result.products.find((p: any) => p.id === 'prod_crew_socks_3_pack');
    expect(socks.variants[0].quantity_unit.unit).toBe('PK');
  });

  it('ucp cart create and update in 2026-08-25 (the cart id travels outside the body)', async () => {
    const created = await ucpAs(undefined, 'cart', 'create', '--business', biz, '--input', JSON.stringify({ line_items: [{ item: { id: 'var_socks_m' }, quantity: 1 }] }));
    expect(created.transport).toBe('mcp');
    const cart = created.result;
    expect(created.ucp.version).toBe('2026-08-25');
    expect(cart.line_items[0].item.quantity_unit.unit).toBe('PK');
    const updated = await ucpAs(undefined, 'cart', 'update', cart.id, '--business', biz, '--input', JSON.stringify({ line_items: [{ item: { id: 'var_socks_m' }, quantity: 2 }] }));
    expect(updated.ucp.version).toBe('2026-08-25');
    expect(updated.result.line_items[0].quantity).toBe(2);
    const rest = await s.req('demo.localhost', 'GET', `/api/ucp/carts/${cart.id}`);
    expect(rest.body.line_items[0].quantity).toBe(2);
  });
});
