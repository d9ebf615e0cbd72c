/**
 * `ucp-storefront/client` and UCP versions (issue 37; docs/client.md "Versions"): with a profile per
 * version it speaks the newest one the shop serves, or the pinned one, over REST and MCP, reading
 * an older version's endpoints from its leaf profile.
 */
import './support/localhost-dns.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUcpClient, type UcpClient, type UcpClientOptions } from '../src/client/index.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { expectUcp20260825Valid, expectUcpValid } from './support/ucp-schemas.ts';
import { platformProfile, platformProfile20260825, serveProfiles } from './support/platform.ts';

const P0408 = 'https://client-0408.example/.well-known/ucp';
const P0825 = 'https://client-0825.example/.well-known/ucp';
serveProfiles({ [P0408]: platformProfile(), [P0825]: platformProfile20260825() });

let s: TestServer;
let business: string;
beforeAll(async () => {
  s = await startTestServer();
  business = `http://demo.localhost:${s.port}`;
});
afterAll(() => s.close());

const clients: UcpClient[] = [];
const make = (extra: Partial<UcpClientOptions>) => {
  const c = createUcpClient({ business, profile: { '2026-04-08': P0408, '2026-08-25': P0825 }, ...extra });
  clients.push(c);
  return c;
};
afterAll(async () => {
  for (const c of clients) await c.close();
});

/** The global fetch, recording the URLs asked for. */
function recording(rewrite?: (url: string, body: any) => any) {
  const urls: string[] = [];
  const f: typeof fetch = async (input, init) => {
    urls.push(String(input));
    const res = await fetch(input, init);
    if (!rewrite || init?.method !== undefined) return res;
    const body = rewrite(String(input), await res.json());
    return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
  };
  return { urls, fetch: f };
}

describe.each(['rest', 'mcp'] as const)('over %s', (transport) => {
  it('speaks the newest version both have: search and a cart in 2026-08-25 (no id in the update body)', async () => {
    const shop = make({ transport });
    expect(await shop.version()).toBe('2026-08-25');
    const found = await shop.searchCatalog({ query: 'socks' });
    if (!found.ok) throw new Error(JSON.stringify(found.messages));
    expectUcp20260825Valid('shopping/catalog_search.json#/$defs/search_response', found.data);
    expect(found.data.ucp.version).toBe('2026-08-25');
    expect(found.data.policies?.length).toBe(2);
    const variant = found.data.products.find((p) => p.id === 'prod_crew_socks_3_pack')!.variants[0];
    expect(variant.quantity_unit?.unit).toBe('PK');

    const cart = await shop.createCart({ line_items: [{ item: { id: variant.id }, quantity: 1 }] });
    if (!cart.ok) throw new Error(JSON.stringify(cart.messages));
    expectUcp20260825Valid('shopping/cart.json', cart.data);
    const updated = await shop.updateCart(cart.data.id, { line_items: [{ item: { id: variant.id }, quantity: 2 }] });
    if (!updated.ok) throw new Error(JSON.stringify(updated.messages));
    expect(updated.data.ucp.version).toBe('2026-08-25');
    expect(updated.data.line_items[0].quantity).toBe(2);
  });

  it('pinned to 2026-04-08: reads the leaf profile, answers in 2026-04-08, update bodies may carry the id', async () => {
    const rec = recording();
    const shop = make({ transport, version: '2026-04-08', fetch: rec.fetch });
    expect(await shop.version()).toBe('2026-04-08');
    expect(rec.urls).toContain(`${business}/.well-known/ucp/2026-04-08`);
    const found = await shop.searchCatalog({ query: 'socks' });
    if (!found.ok) throw new Error(JSON.stringify(found.messages));
    expectUcpValid('shopping/catalog_search.json#/$defs/search_response', found.data);
    expect(found.data.ucp.version).toBe('2026-04-08');
    expect(JSON.stringify(found.data)).not.toMatch(/quantity_unit|policies/);
    const cart = await shop.createCart({ line_items: [{ item: { id: 'var_socks_m' }, quantity: 1 }] });
    if (!cart.ok) throw new Error(JSON.stringify(cart.messages));
    const updated = await shop.updateCart(cart.data.id, { id: cart.data.id, line_items: [{ item: { id: 'var_socks_m' }, quantity: 3 }] });
    if (!updated.ok) throw new Error(JSON.stringify(updated.messages));
    expect(updated.data.ucp.version).toBe('2026-04-08');
    expect(updated.data.line_items[0].quantity).toBe(3);
  });
});

describe('choosing', () => {
  it('with only a 2026-04-08 profile, speaks 2026-04-08', async () => {
    const shop = createUcpClient({ business, profile: { '2026-04-08': P0408 } });
    clients.push(shop);
    expect(await shop.version()).toBe('2026-04-08');
    const r = await shop.lookupCatalog({ ids: ['var_socks_m'] });
    expect(r.ok && r.data.ucp.version).toBe('2026-04-08');
  });

  it('a single profile URL is sent as is: its own version decides, the client picks none', async () => {
    const shop = createUcpClient({ business, profile: P0825 });
    clients.push(shop);
    expect(await shop.version()).toBeUndefined();
    const r = await shop.searchCatalog({ query: 'tee' });
    expect(r.ok && r.data.ucp.version).toBe('2026-08-25');
  });

  it('refuses a leaf profile that declares another version (the spec: must not use it)', async () => {
    const rec = recording((url, body) => (url.endsWith('/.well-known/ucp/2026-04-08') ? { ...body, ucp: { ...body.ucp, version: '2026-08-25' } } : body));
    const shop = make({ version: '2026-04-08', fetch: rec.fetch });
    const r = await shop.searchCatalog({ query: 'tee' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.messages[0].content).toMatch(/declares UCP 2026-08-25, not 2026-04-08/);
  });

  it('a pinned version the shop does not serve fails with what each side offers', async () => {
    const rec = recording((url, body) => (url.endsWith('/.well-known/ucp') ? { ...body, ucp: { ...body.ucp, supported_versions: {} } } : body));
    const shop = make({ version: '2026-04-08', fetch: rec.fetch });
    const r = await shop.getCart('cart_x');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.messages[0].content).toMatch(/serves 2026-08-25; this client has profiles for 2026-04-08, 2026-08-25 \(pinned 2026-04-08\)/);
  });

  it('options that cannot work are refused at once', () => {
    expect(() => createUcpClient({ business, profile: P0408, version: '2026-04-08' })).toThrow(/per-version profiles/);
    expect(() => createUcpClient({ business, profile: {} })).toThrow(/at least one/);
    expect(() => createUcpClient({ business, profile: { '2026-08-25': P0825 }, version: '2026-04-08' })).toThrow(/no URL for it/);
  });
});
