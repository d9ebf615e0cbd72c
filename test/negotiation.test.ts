/**
 * Negotiation (DIGEST §1.1/§1.2), pure: version check and the capability intersection, incl.
 * extension pruning to a fixed point, `requires` ranges and `capabilities_incompatible`. Then the
 * platform-profile wire schema against the official one (Ajv) and the profile fetcher's rules.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { intersectCapabilities, negotiateVersion, NegotiationError, type CapabilityRegistry } from '../server/core/access/negotiation.ts';
import { CAPABILITIES } from '../server/core/shops/ucp-profile.ts';
import { PlatformProfile } from '../src/wire/platform-profile.ts';
import { checkProfileUrl, entryBytes, negotiationProfile, profileHref, PlatformProfiles, ProfileError, type FetchLike } from '../server/core/access/platform-profiles.ts';
import { hasSchemas, PROFILE_ID, validateUcp } from './support/ucp-schemas.ts';
import { makeKey, platformProfile } from './support/platform.ts';

const V = '2026-04-08';
const reg = (entries: Record<string, Array<Partial<{ version: string; extends: string | string[]; requires: unknown }>>>): CapabilityRegistry =>
  Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, v.map((d) => ({ version: V, ...d }))])) as CapabilityRegistry;
const names = (m: Map<string, string>) => [...m.keys()].sort();

describe('negotiateVersion', () => {
  it('equal → ours; listed in supported_versions → that one; else version_unsupported', () => {
    expect(negotiateVersion(V, V)).toEqual({ version: V });
    expect(negotiateVersion(V, '2026-01-11', { '2026-01-11': 'https://shop/p-2026-01-11.json' })).toEqual({ version: '2026-01-11', profile: 'https://shop/p-2026-01-11.json' });
    for (const other of ['2026-01-11', '2027-01-01']) {
      try {
        negotiateVersion(V, other);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(NegotiationError);
        expect((e as NegotiationError).code).toBe('version_unsupported');
      }
    }
  });
});

describe('intersectCapabilities', () => {
  const business = CAPABILITIES as unknown as CapabilityRegistry;
  const opts = { protocolVersion: V };

  it('keeps only names both sides list', () => {
    expect(names(intersectCapabilities(business, business, opts))).toEqual(Object.keys(CAPABILITIES).sort());
    expect(names(intersectCapabilities(business, reg({ 'dev.ucp.shopping.cart': [{}] }), opts))).toEqual(['dev.ucp.shopping.cart']);
    expect(names(intersectCapabilities(business, {}, opts))).toEqual([]);
    expect(names(intersectCapabilities(business, reg({ 'com.example.other': [{}] }), opts))).toEqual([]);
  });

  it('picks the highest mutual version and drops capabilities with none', () => {
    const b = reg({ 'a.b': [{ version: '2025-01-01' }, { version: '2026-01-01' }, { version: '2026-04-08' }], 'c.d': [{ version: '2026-04-08' }] });
    const p = reg({ 'a.b': [{ version: '2026-01-01' }, { version: '2025-01-01' }, { version: '2027-01-01' }], 'c.d': [{ version: '2025-01-01' }] });
    const r = intersectCapabilities(b, p, opts);
    expect(r.get('a.b')).toBe('2026-01-01');
    expect(r.has('c.d')).toBe(false);
  });

  it('drops an extension whose parent did not survive (string or array extends)', () => {
    const withoutCart = reg({ 'dev.ucp.shopping.discount': [{ extends: 'dev.ucp.shopping.cart' }], 'dev.ucp.shopping.catalog.search': [{}] });
    expect(names(intersectCapabilities(business, withoutCart, opts))).toEqual(['dev.ucp.shopping.catalog.search']);
    const b = reg({ 'x.parent_a': [{}], 'x.parent_b': [{}], 'x.ext': [{ extends: ['x.parent_a', 'x.parent_b'] }] });
    expect(names(intersectCapabilities(b, reg({ 'x.parent_b': [{}], 'x.ext': [{}] }), opts))).toEqual(['x.ext', 'x.parent_b']);
    expect(names(intersectCapabilities(b, reg({ 'x.ext': [{}] }), opts))).toEqual([]);
  });

  it('prunes chains of extensions to a fixed point, whatever the declaration order', () => {
    const b = reg({ 'x.e3': [{ extends: 'x.e2' }], 'x.e2': [{ extends: 'x.e1' }], 'x.e1': [{ extends: 'x.root' }], 'x.root': [{}] });
    const all = reg({ 'x.e3': [{}], 'x.e2': [{}], 'x.e1': [{}], 'x.root': [{}] });
    expect(names(intersectCapabilities(b, all, opts))).toEqual(['x.e1', 'x.e2', 'x.e3', 'x.root']);
    const noRoot = reg({ 'x.e3': [{}], 'x.e2': [{}], 'x.e1': [{}] });
    expect(names(intersectCapabilities(b, noRoot, opts))).toEqual([]);
    const gap = reg({ 'x.e3': [{}], 'x.e1': [{}], 'x.root': [{}] });
    expect(names(intersectCapabilities(b, gap, opts))).toEqual(['x.e1', 'x.root']);
    // Two extensions naming only each other never survive.
    const cycle = reg({ 'x.a': [{ extends: 'x.b' }], 'x.b': [{ extends: 'x.a' }] });
    expect(names(intersectCapabilities(cycle, reg({ 'x.a': [{}], 'x.b': [{}] }), opts))).toEqual([]);
  });

  it('drops extensions whose requires ranges fail, then re-prunes their children', () => {
    const b = reg({
      'x.root': [{ version: '2026-01-01' }, { version: '2026-04-08' }],
      'x.ext': [{ extends: 'x.root', requires: { capabilities: { 'x.root': { min: '2026-04-08' } } } }],
      'x.child': [{ extends: 'x.ext' }],
      'x.proto': [{ extends: 'x.root', requires: { protocol: { min: '2026-01-01', max: '2026-02-01' } } }],
    });
    const full = reg({ 'x.root': [{ version: '2026-04-08' }], 'x.ext': [{}], 'x.child': [{}], 'x.proto': [{}] });
    expect(names(intersectCapabilities(b, full, opts))).toEqual(['x.child', 'x.ext', 'x.root']);
    const oldRoot = reg({ 'x.root': [{ version: '2026-01-01' }], 'x.ext': [{}], 'x.child': [{}] });
    expect(names(intersectCapabilities(b, oldRoot, opts))).toEqual(['x.root']);
    expect(names(intersectCapabilities(b, full, { protocolVersion: '2026-01-11' }))).toEqual(['x.child', 'x.ext', 'x.proto', 'x.root']);
  });

  it('capabilities_incompatible when a required capability is missing', () => {
    try {
      intersectCapabilities(business, reg({ 'dev.ucp.shopping.catalog.search': [{}] }), { ...opts, required: ['dev.ucp.shopping.cart'] });
      expect.unreachable();
    } catch (e) {
      expect((e as NegotiationError).code).toBe('capabilities_incompatible');
      expect((e as NegotiationError).missing).toEqual(['dev.ucp.shopping.cart']);
    }
    expect(names(intersectCapabilities(business, business, { ...opts, required: ['dev.ucp.shopping.cart'] }))).toContain('dev.ucp.shopping.cart');
  });

  it('ignores garbage in the platform registry', () => {
    const p = { 'dev.ucp.shopping.cart': [{ nope: 1 }, null], 'dev.ucp.shopping.catalog.search': 'x' } as unknown as CapabilityRegistry;
    expect(names(intersectCapabilities(business, p, opts))).toEqual([]);
  });
});

describe('platform profile wire schema agrees with the official platform_profile', () => {
  const PLATFORM = `${PROFILE_ID}#/$defs/platform_profile`;
  const valid = platformProfile({ keys: [makeKey('k1')] });
  const clone = () => JSON.parse(JSON.stringify(valid));
  const cases: Array<[string, unknown, boolean]> = [
    ['a full profile', valid, true],
    ['no capabilities', (() => { const p = clone(); delete p.ucp.capabilities; return p; })(), true],
    ['extra members', (() => { const p = clone(); p.extra = 1; p.ucp.x = { y: 1 }; return p; })(), true],
    ['no ucp', {}, false],
    ['no services', (() => { const p = clone(); delete p.ucp.services; return p; })(), false],
    ['no payment_handlers', (() => { const p = clone(); delete p.ucp.payment_handlers; return p; })(), false],
    ['bad version', (() => { const p = clone(); p.ucp.version = 'v1'; return p; })(), false],
    ['capability without spec', (() => { const p = clone(); delete p.ucp.capabilities['dev.ucp.shopping.cart'][0].spec; return p; })(), false],
    ['capability without schema', (() => { const p = clone(); delete p.ucp.capabilities['dev.ucp.shopping.cart'][0].schema; return p; })(), false],
    ['bad capability name', (() => { const p = clone(); p.ucp.capabilities.Cart = p.ucp.capabilities['dev.ucp.shopping.cart']; return p; })(), false],
    ['rest binding without schema', (() => { const p = clone(); delete p.ucp.services['dev.ucp.shopping'][0].schema; return p; })(), false],
    ['unknown transport', (() => { const p = clone(); p.ucp.services['dev.ucp.shopping'][0].transport = 'grpc'; return p; })(), false],
    ['signing key without kid', (() => { const p = clone(); delete p.signing_keys[0].kid; return p; })(), false],
    ['empty extends array', (() => { const p = clone(); p.ucp.capabilities['dev.ucp.shopping.discount'][0].extends = []; return p; })(), false],
  ];
  for (const [name, doc, ok] of cases) {
    it(`${ok ? 'accepts' : 'rejects'} ${name}`, () => {
      expect(z.safeParse(PlatformProfile, doc).success).toBe(ok);
      if (hasSchemas) expect(validateUcp(PLATFORM, doc).length === 0).toBe(ok);
    });
  }
});

describe('profile fetcher', () => {
  const URL1 = 'https://platform.example/.well-known/ucp';
  const json = (body: unknown, headers: Record<string, string> = {}) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', ...headers } });
  const code = async (p: Promise<unknown>) => {
    try {
      await p;
      return 'ok';
    } catch (e) {
      return e instanceof ProfileError ? e.code : String(e);
    }
  };

  it('URL rules: https only, loopback http only when allowed, no credentials', () => {
    expect(checkProfileUrl('https://a.example/p.json', false).href).toBe('https://a.example/p.json');
    for (const bad of ['', 'not a url', 'ftp://a.example/p', 'http://a.example/p', 'https://u:p@a.example/p', 42]) {
      expect(() => checkProfileUrl(bad, false)).toThrow(ProfileError);
    }
    expect(() => checkProfileUrl('http://127.0.0.1:9/p', false)).toThrow(ProfileError);
    for (const ok of ['http://127.0.0.1:9/p', 'http://localhost/p', 'http://agent.localhost:8080/p', 'http://[::1]/p']) expect(checkProfileUrl(ok, true).protocol).toBe('http:');
    expect(() => checkProfileUrl('http://example.com/p', true)).toThrow(ProfileError);
  });

  it('remembered URL checks give the same answers: per setting, refusals never remembered, normalized form', () => {
    const loopback = 'http://127.0.0.1:9/remembered#frag';
    expect(profileHref(loopback, true)).toBe('http://127.0.0.1:9/remembered');
    expect(profileHref(loopback, true)).toBe('http://127.0.0.1:9/remembered');
    // Accepted in development does not make it acceptable where loopback http is off.
    expect(() => profileHref(loopback, false)).toThrow(ProfileError);
    expect(() => profileHref(loopback, false)).toThrow(ProfileError);
    for (const bad of ['', 'not a url', 'https://u:p@a.example/p', 42, undefined]) {
      expect(() => profileHref(bad, true)).toThrow(ProfileError);
      expect(() => profileHref(bad, true)).toThrow(ProfileError);
    }
    // Many distinct URLs (a client probing) neither grow the memory without bound nor change answers.
    for (let i = 0; i < 3000; i++) expect(profileHref(`https://p${i}.example/ucp`, false)).toBe(`https://p${i}.example/ucp`);
    expect(profileHref('HTTPS://A.example:443/x', false)).toBe('https://a.example/x');
  });

  it('caches for at least 60 s even with max-age=0, refetches after expiry', async () => {
    let now = 1_000_000;
    let calls = 0;
    const f: FetchLike = async () => (calls++, json(platformProfile(), { 'cache-control': 'max-age=0' }));
    const p = new PlatformProfiles({ fetch: f, now: () => now });
    await p.get(URL1);
    now += 59_000;
    await p.get(URL1);
    expect(calls).toBe(1);
    now += 2_000;
    await p.get(URL1);
    expect(calls).toBe(2);
  });

  it('one fetch for concurrent misses; LRU bounded by bytes', async () => {
    let calls = 0;
    const f: FetchLike = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 20));
      return json(platformProfile());
    };
    // Room for two entries, not three.
    const one = entryBytes(URL1, negotiationProfile(platformProfile() as never));
    const p = new PlatformProfiles({ fetch: f, maxCacheBytes: 2 * one + 100 });
    await Promise.all([p.get(URL1), p.get(URL1), p.get(URL1)]);
    expect(calls).toBe(1);
    await p.get('https://b.example/p');
    await p.get('https://c.example/p'); // evicts URL1
    await p.get(URL1);
    expect(calls).toBe(4);
  });

  it('forced refresh at most once per origin per minute', async () => {
    let now = 5_000_000;
    let calls = 0;
    const p = new PlatformProfiles({ fetch: async () => (calls++, json(platformProfile())), now: () => now });
    await p.get(URL1);
    expect(await p.refresh(URL1)).not.toBeNull();
    expect(await p.refresh('https://platform.example/other.json')).toBeNull(); // same origin
    expect(calls).toBe(2);
    now += 60_000;
    expect(await p.refresh(URL1)).not.toBeNull();
    expect(calls).toBe(3);
  });

  it('unreachable: network error, non-2xx, 3xx (not followed), timeouts', async () => {
    const mk = (f: FetchLike, o = {}) => new PlatformProfiles({ fetch: f, ...o });
    expect(await code(mk(async () => { throw new TypeError('fetch failed'); }).get(URL1))).toBe('profile_unreachable');
    expect(await code(mk(async () => new Response('no', { status: 404 })).get(URL1))).toBe('profile_unreachable');
    expect(await code(mk(async () => new Response('no', { status: 503 })).get(URL1))).toBe('profile_unreachable');
    let redirect: RequestRedirect | undefined;
    expect(await code(mk(async (_u, init) => ((redirect = init.redirect), new Response(null, { status: 302, headers: { location: 'https://elsewhere.example/p' } }))).get(URL1))).toBe('profile_unreachable');
    expect(redirect).toBe('manual');
    const hang: FetchLike = (_u, init) => new Promise((_r, reject) => init.signal!.addEventListener('abort', () => reject(new Error('aborted'))));
    const t0 = Date.now();
    expect(await code(mk(hang, { connectTimeoutMs: 50, responseTimeoutMs: 1000 }).get(URL1))).toBe('profile_unreachable');
    expect(Date.now() - t0).toBeLessThan(900);
    const slowBody: FetchLike = async (_u, init) =>
      new Response(new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('{')); init.signal!.addEventListener('abort', () => c.error(new Error('aborted'))); } }), { status: 200 });
    expect(await code(mk(slowBody, { connectTimeoutMs: 1000, responseTimeoutMs: 60 }).get(URL1))).toBe('profile_unreachable');
  });

  it('malformed: not JSON, too large, not a platform profile', async () => {
    const mk = (f: FetchLike, o = {}) => new PlatformProfiles({ fetch: f, ...o });
    expect(await code(mk(async () => new Response('<html>', { status: 200 })).get(URL1))).toBe('profile_malformed');
    expect(await code(mk(async () => new Response('x'.repeat(2000), { status: 200 }), { maxBytes: 1000 }).get(URL1))).toBe('profile_malformed');
    expect(await code(mk(async () => json({ ucp: { version: V } })).get(URL1))).toBe('profile_malformed');
    expect(await code(mk(async () => json(platformProfile())).get(URL1))).toBe('ok');
  });
});
