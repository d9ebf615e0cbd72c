/**
 * Outbound requests to URLs that outsiders choose reach public addresses only
 * (server/lib/public-fetch.ts): what is refused, and that the refusal happens before anything is
 * sent — the local server below must never see a request.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress, publicFetch, publicLookup } from '../server/lib/public-fetch.ts';
import { PlatformProfiles, ProfileError, platformProfiles } from '../server/core/access/platform-profiles.ts';
import { deliveryFetch } from '../server/core/orders/webhooks.ts';

let server: Server;
let port = 0;
let hits = 0;
beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['172.32.0.1', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['10.1.2.3', false],
    ['127.0.0.1', false],
    ['127.255.255.254', false],
    ['0.0.0.0', false],
    ['169.254.169.254', false], // cloud metadata
    ['172.16.0.1', false],
    ['172.31.255.255', false],
    ['192.168.1.1', false],
    ['100.64.0.1', false], // carrier-grade NAT
    ['198.18.0.1', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['64:ff9b::a9fe:a9fe', false], // NAT64 of 169.254.169.254
    ['localhost', false],
    ['', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  // Issue 47: every block of the IANA special-purpose registries (IPv4 and IPv6) that is not
  // globally reachable, each tested at its first and last address, beside a public neighbour.
  const IPV4_SPECIAL: Array<[block: string, first: string, last: string]> = [
    ['0.0.0.0/8 this network', '0.0.0.0', '0.255.255.255'],
    ['10.0.0.0/8 private', '10.0.0.0', '10.255.255.255'],
    ['100.64.0.0/10 shared (CGNAT)', '100.64.0.0', '100.127.255.255'],
    ['127.0.0.0/8 loopback', '127.0.0.0', '127.255.255.255'],
    ['169.254.0.0/16 link-local', '169.254.0.0', '169.254.255.255'],
    ['172.16.0.0/12 private', '172.16.0.0', '172.31.255.255'],
    ['192.0.0.0/24 IETF protocol assignments', '192.0.0.0', '192.0.0.255'],
    ['192.0.2.0/24 TEST-NET-1', '192.0.2.0', '192.0.2.255'],
    ['192.88.99.0/24 6to4 relay anycast', '192.88.99.0', '192.88.99.255'],
    ['192.168.0.0/16 private', '192.168.0.0', '192.168.255.255'],
    ['198.18.0.0/15 benchmarking', '198.18.0.0', '198.19.255.255'],
    ['198.51.100.0/24 TEST-NET-2', '198.51.100.0', '198.51.100.255'],
    ['203.0.113.0/24 TEST-NET-3', '203.0.113.0', '203.0.113.255'],
    ['224.0.0.0/4 multicast', '224.0.0.0', '239.255.255.255'],
    ['240.0.0.0/4 reserved + broadcast', '240.0.0.0', '255.255.255.255'],
  ];
  it.each(IPV4_SPECIAL)('IPv4 %s: refused, also inside IPv4-mapped and NAT64 IPv6', (_block, first, last) => {
    for (const a of [first, last]) {
      expect(isPublicAddress(a), a).toBe(false);
      expect(isPublicAddress(`::ffff:${a}`), `::ffff:${a}`).toBe(false);
      expect(isPublicAddress(`64:ff9b::${a}`), `64:ff9b::${a}`).toBe(false);
      expect(isPublicAddress(`::${a}`), `::${a}`).toBe(false); // IPv4-compatible
    }
  });
  it('IPv4 neighbours of the blocks are public', () => {
    for (const a of ['1.0.0.1', '11.0.0.1', '100.63.255.255', '100.128.0.0', '126.255.255.255', '128.0.0.0', '169.253.255.255', '172.15.255.255', '172.32.0.0', '192.0.1.0', '192.0.3.0', '192.88.98.255', '192.167.255.255', '192.169.0.0', '198.17.255.255', '198.20.0.0', '198.51.99.255', '203.0.112.255', '223.255.255.255']) {
      expect(isPublicAddress(a), a).toBe(true);
    }
  });

  const IPV6_SPECIAL: Array<[block: string, first: string, last: string]> = [
    ['::/96 unspecified, loopback, IPv4-compatible', '::', '::ffff:ffff'],
    ['::ffff:0:0/96 IPv4-mapped (hex notation) of loopback', '::ffff:7f00:0', '::ffff:7fff:ffff'],
    ['::ffff:0:0:0/96 IPv4-translated', '::ffff:0:0:0', '::ffff:0:ffff:ffff'],
    ['64:ff9b::/96 NAT64 of private', '64:ff9b::a00:1', '64:ff9b::c0a8:ffff'],
    ['64:ff9b::/32 outside the /96', '64:ff9b:0:0:0:1::', '64:ff9b:0:ffff:ffff:ffff:ffff:ffff'],
    ['64:ff9b:1::/48 local-use translation', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
    ['100::/64 discard-only', '100::', '100::ffff:ffff:ffff:ffff'],
    ['100:0:0:1::/64 dummy prefix', '100:0:0:1::', '100:0:0:1:ffff:ffff:ffff:ffff'],
    ['2001::/23 IETF protocol assignments', '2001::', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['2001:db8::/32 documentation', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['2002::/16 6to4', '2002::', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['3fff::/20 documentation', '3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['5f00::/16 segment routing SIDs', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['fc00::/7 unique local', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['fe80::/10 link-local', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['fec0::/10 site-local (deprecated)', 'fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['ff00::/8 multicast', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['outside 2000::/3 (reserved by the IETF)', '4000::', '1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ];
  it.each(IPV6_SPECIAL)('IPv6 %s: refused', (_block, first, last) => {
    expect(isPublicAddress(first), first).toBe(false);
    expect(isPublicAddress(last), last).toBe(false);
  });
  it('IPv6 global unicast, and IPv4-mapped or NAT64 of a public IPv4 address, are public', () => {
    for (const a of ['2606:4700:4700::1111', '2a00:1450:4001::1', '2001:200::1', '2001:db7:ffff::1', '2001:db9::1', '2003::1', '3ffe:ffff::1', '3fff:1000::1', '::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::8.8.8.8', '64:ff9b::808:808']) {
      expect(isPublicAddress(a), a).toBe(true);
    }
  });
});

describe('publicFetch', () => {
  const refused = async (url: string) => {
    const before = hits;
    const err = await publicFetch(url).then(
      () => null,
      (e: Error & { cause?: { code?: string; message?: string } }) => e,
    );
    expect(err, url).toBeInstanceOf(TypeError);
    expect(err?.cause?.code, url).toBe('ENONPUBLIC');
    expect(hits, 'nothing reached the local server').toBe(before);
    return err!;
  };

  it('refuses address literals that are not public', async () => {
    await refused(`http://127.0.0.1:${port}/`);
    await refused(`http://[::1]:${port}/`);
    await refused(`http://[::ffff:127.0.0.1]:${port}/`);
    await refused('http://169.254.169.254/latest/meta-data/');
    await refused('http://10.0.0.1/');
  });

  it('refuses names that resolve to a non-public address (checked at connection time)', async () => {
    const err = await refused(`http://localhost:${port}/`);
    expect(err.cause?.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1)/);
  });

  it('the same request without the guard does reach the server (the test can see a request)', async () => {
    const before = hits;
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    expect(hits).toBe(before + 1);
  });

  it('the lookup answers in both shapes dns.lookup callers use, and refuses a mixed answer', async () => {
    const one = await new Promise<unknown>((resolve) => publicLookup('localhost', {}, (err) => resolve(err)));
    expect(one).toMatchObject({ code: 'ENONPUBLIC' });
    const all = await new Promise<unknown>((resolve) => publicLookup('localhost', { all: true }, (err) => resolve(err)));
    expect(all).toMatchObject({ code: 'ENONPUBLIC' });
  });
});

describe('platform profiles fetched through publicFetch (production)', () => {
  it('a profile URL whose host is the machine itself is unreachable, and nothing is requested', async () => {
    const profiles = new PlatformProfiles({ fetch: publicFetch, allowInsecureLoopback: true });
    const before = hits;
    const err = await profiles.get(`http://localhost:${port}/.well-known/ucp`).catch((e) => e);
    expect(err).toBeInstanceOf(ProfileError);
    expect(err.code).toBe('profile_unreachable');
    expect(hits).toBe(before);
  });
});

describe('who uses it', () => {
  it('production: agent profile fetches and webhook deliveries; development: the plain fetch (local agents and receivers)', () => {
    expect(platformProfiles(false, 'production').opts.fetch).toBe(publicFetch);
    expect(platformProfiles(false, 'development').opts.fetch).not.toBe(publicFetch);
    expect(deliveryFetch('production')).toBe(publicFetch);
    expect(deliveryFetch('development')).toBe(globalThis.fetch);
  });
});
