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
