/**
 * `*.localhost` from a plain Node process (issue 30, point 2): `ucp-storefront/client` reaches
 * `http://demo.localhost:PORT` on its own (RFC 6761 §6.3), with no hosts entry needed and none of the test
 * suite's DNS help (this file deliberately does not import test/support/localhost-dns.mjs), keeping
 * the Host header the server routes shops by; and a shop it cannot reach is a `network_error` that
 * says why.
 */
import { randomBytes } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUcpClient, discoverEndpoints, localhostFetch } from '../src/client/index.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';

const PROFILE = 'https://platform.example/.well-known/ucp';
serveProfiles({ [PROFILE]: platformProfile() });

/**
 * A shop under a random `*.localhost` label, which no hosts file holds (a builder's machine or a CI
 * image may map `demo.localhost` in /etc/hosts: issue 39 point 12), for the tests that need a name
 * this process's own resolver does not know.
 */
const UNKNOWN = `ucp-${randomBytes(6).toString('hex')}.localhost`;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  const clone = await s.req('localhost', 'POST', '/dev/shops/shop_demo/clone', { domain: UNKNOWN });
  expect(clone.status).toBe(201);
});
afterAll(() => s.close());

/** A port nothing listens on (bound, then released). */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

describe('*.localhost shops from Node', () => {
  it(`this process cannot resolve a *.localhost name itself (what the client works around): ${UNKNOWN}`, async () => {
    await expect(dns.lookup(UNKNOWN)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  for (const transport of ['rest', 'mcp'] as const) {
    it(`createUcpClient({business: 'http://demo.localhost:PORT', transport: '${transport}'}) searches and builds a cart`, async () => {
      const shop = createUcpClient({ business: `http://demo.localhost:${s.port}`, profile: PROFILE, transport });
      try {
        const found = await shop.searchCatalog({ query: 'tee' });
        expect(found.ok, JSON.stringify(found)).toBe(true);
        const cart = await shop.createCart({ line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] });
        expect(cart.ok, JSON.stringify(cart)).toBe(true);
        if (cart.ok) expect(cart.data.continue_url).toBe(`http://demo.localhost:${s.port}/cart/${cart.data.id}`);
      } finally {
        await shop.close();
      }
    });
  }

  it('keeps the host as given, so the server routes by shop domain', async () => {
    const [demo, strict] = await Promise.all([discoverEndpoints(`http://demo.localhost:${s.port}`), discoverEndpoints(`http://strict.localhost:${s.port}`)]);
    expect(demo.rest).toBe(`http://demo.localhost:${s.port}/api/ucp`);
    expect(strict.rest).toBe(`http://strict.localhost:${s.port}/api/ucp`);
  });

  it('a fetch passed by the caller is used as given (no loopback mapping behind its back)', async () => {
    const seen: string[] = [];
    const shop = createUcpClient({ business: `http://${UNKNOWN}:${s.port}`, profile: PROFILE, retry: false, fetch: (input, init) => (seen.push(String(input)), fetch(input, init)) });
    const r = await shop.searchCatalog({ query: 'tee' });
    expect(seen).toEqual([`http://${UNKNOWN}:${s.port}/.well-known/ucp`]);
    expect(r).toMatchObject({ ok: false, status: 0, messages: [{ code: 'network_error', content: expect.stringContaining(`ENOTFOUND ${UNKNOWN}`) }] });
    // Built on localhostFetch, your own fetch reaches the shop too.
    const own = createUcpClient({ business: `http://${UNKNOWN}:${s.port}`, profile: PROFILE, fetch: (input, init) => (seen.push(String(input)), localhostFetch(input, init)) });
    expect(await own.searchCatalog({ query: 'tee' })).toMatchObject({ ok: true });
  });
});

describe('network_error carries its cause', () => {
  for (const transport of ['rest', 'mcp'] as const) {
    it(`a refused port names ECONNREFUSED and the address (${transport})`, async () => {
      const port = await closedPort();
      const shop = createUcpClient({ business: `http://demo.localhost:${port}`, profile: PROFILE, transport, retry: false, endpoints: { rest: `http://demo.localhost:${port}/api/ucp`, mcp: `http://demo.localhost:${port}/mcp` } });
      const r = await shop.getCart('cart_x');
      await shop.close();
      expect(r).toMatchObject({ ok: false, status: 0, messages: [{ code: 'network_error', content: expect.stringContaining(`ECONNREFUSED 127.0.0.1:${port}`) }] });
    });
  }

  it('discovery that cannot connect says so, with the cause', async () => {
    const port = await closedPort();
    const shop = createUcpClient({ business: `http://demo.localhost:${port}`, profile: PROFILE, retry: false });
    const r = await shop.searchCatalog({ query: 'x' });
    expect(r).toMatchObject({ ok: false, status: 0, messages: [{ code: 'network_error', content: `The store could not be reached (connect ECONNREFUSED 127.0.0.1:${port}).` }] });
  });
});
