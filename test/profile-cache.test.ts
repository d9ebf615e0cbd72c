/**
 * The agent-profile cache cannot take the server down (issue 47 point 1): hundreds of hostile but
 * valid profiles (256 KiB of nested arrays each, within the 32 levels) leave a cache whose own byte
 * accounting stays under its bound and whose heap (measured after a full GC) is what that
 * accounting says, not the ~7 MB a parsed hostile document costs; expired entries are swept; a
 * profile nested deeper than 32 levels (the rule request bodies are held to, src/wire/input.ts) is
 * refused before it is parsed.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { PlatformProfiles, ProfileError, type FetchLike } from '../server/core/access/platform-profiles.ts';
import { inputProblem, jsonNestedTooDeep, MAX_DEPTH } from '../src/wire/input.ts';
import { platformProfile } from './support/platform.ts';

setFlagsFromString('--expose-gc');
const gc = (globalThis as { gc?: () => void }).gc ?? (runInNewContext('gc') as () => void);

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

/**
 * A valid platform profile of about `bytes` bytes whose bulk is arrays nested as deep as allowed:
 * an unknown top-level member and an unknown member of a capability (open objects keep both).
 */
function hostileProfile(bytes: number, levels = MAX_DEPTH - 2): string {
  const base = platformProfile() as { ucp: { capabilities: Record<string, Array<Record<string, unknown>>> } };
  const caps = base.ucp.capabilities;
  caps[Object.keys(caps)[0]][0].junk = 1;
  const text = JSON.stringify({ ...base, junk: 0 });
  // {…, "junk": [item, …]}: item's levels + 2 in all; {"ucp": {"capabilities": {"n": [{…, "junk": [item, …]}]}}}: + 6.
  const bulk = (levels: number, share: number) => `[${Array(Math.floor(share / (2 * levels + 1))).fill(nested(levels)).join(',')}]`;
  const room = bytes - text.length;
  return text.replace('"junk":0', `"junk":${bulk(levels, room / 2)}`).replace('"junk":1', `"junk":${bulk(levels - 4, room / 2)}`);
}

const heap = () => {
  gc();
  gc();
  return process.memoryUsage();
};

describe('the agent-profile cache', () => {
  it('hundreds of 256 KiB hostile profiles: bytes bounded, heap per entry small', async () => {
    const body = hostileProfile(250 * 1024);
    expect(body.length).toBeGreaterThan(240 * 1024);
    expect(jsonNestedTooDeep(body)).toBe(false);
    const fetch: FetchLike = async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    const maxCacheBytes = 4 * 1024 * 1024;
    const profiles = new PlatformProfiles({ fetch, maxCacheBytes });
    const N = 300;
    const before = heap();
    for (let i = 0; i < N; i++) await profiles.get(`https://p${i}.example/.well-known/ucp`);
    const after = heap();
    const { entries, bytes } = profiles.stats;
    const heapDelta = after.heapUsed - before.heapUsed;
    const rssDelta = after.rss - before.rss;
    console.log(`${N} hostile profiles: ${entries} entries, ${bytes} bytes accounted; heap +${(heapDelta / 1048576).toFixed(1)} MiB, rss +${(rssDelta / 1048576).toFixed(1)} MiB`);
    expect(bytes).toBeLessThanOrEqual(maxCacheBytes);
    expect(entries).toBe(N); // what is kept of each is small: all fit
    expect(bytes / entries).toBeLessThan(4096);
    // Whole parsed documents would cost ~5–7 MB each (1.5 GB and more here).
    expect(heapDelta).toBeLessThan(16 * 1024 * 1024);
    expect(heapDelta / N).toBeLessThan(32 * 1024);
    expect(rssDelta).toBeLessThan(256 * 1024 * 1024);
    // Still a usable profile: negotiation's parts are there, the junk is not.
    const p = await profiles.get('https://p0.example/.well-known/ucp');
    expect(JSON.stringify(p.profile)).not.toContain('junk');
    expect(Object.keys(p.profile.ucp.capabilities ?? {}).length).toBeGreaterThan(0);
  });

  it('is bounded by bytes: the least recently used leave first', async () => {
    const body = JSON.stringify(platformProfile());
    const profiles = new PlatformProfiles({ fetch: async () => new Response(body, { status: 200 }), maxCacheBytes: 64 * 1024 });
    for (let i = 0; i < 500; i++) await profiles.get(`https://p${i}.example/p`);
    expect(profiles.stats.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(profiles.stats.entries).toBeLessThan(500);
  });

  it('expired entries are swept', async () => {
    let now = 1_000_000;
    const body = JSON.stringify(platformProfile());
    const profiles = new PlatformProfiles({ fetch: async () => new Response(body, { status: 200, headers: { 'cache-control': 'max-age=60' } }), now: () => now });
    for (let i = 0; i < 50; i++) await profiles.get(`https://p${i}.example/p`);
    expect(profiles.stats.entries).toBe(50);
    now += 61_000;
    profiles.sweep();
    expect(profiles.stats).toEqual({ entries: 0, bytes: 0 });
    // A lookup after the sweep interval sweeps too.
    for (let i = 0; i < 10; i++) await profiles.get(`https://p${i}.example/p`);
    now += 61_000;
    await profiles.get('https://other.example/p');
    expect(profiles.stats.entries).toBe(1);
  });

  it('a profile nested deeper than 32 levels is refused (422 profile_malformed) before it is parsed', async () => {
    const ok = hostileProfile(8 * 1024, MAX_DEPTH - 2); // 32 levels in all
    const deep = hostileProfile(8 * 1024, MAX_DEPTH - 1); // 33
    const mk = (body: string) => new PlatformProfiles({ fetch: async () => new Response(body, { status: 200 }) });
    await expect(mk(ok).get('https://a.example/p')).resolves.toBeTruthy();
    const e = await mk(deep).get('https://a.example/p').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProfileError);
    expect((e as ProfileError).code).toBe('profile_malformed');
    expect((e as ProfileError).message).toContain(`nested at most ${MAX_DEPTH} levels`);
    // 256 KiB of `[[[…` (131,072 levels): refused, and quickly.
    const t0 = performance.now();
    const e2 = await mk(nested(128 * 1024)).get('https://b.example/p').catch((x: unknown) => x);
    expect((e2 as ProfileError).code).toBe('profile_malformed');
    expect(performance.now() - t0).toBeLessThan(500);
  });

  it('the text scan holds the same rule as inputProblem for parsed request bodies', () => {
    for (let levels = MAX_DEPTH - 3; levels <= MAX_DEPTH + 3; levels++) {
      for (const text of [nested(levels), `{"a":"[[[[{{{{",${'"b":'.repeat(0)}"c":${nested(levels - 1)}}`]) {
        expect(jsonNestedTooDeep(text), `${levels}: ${text.slice(0, 40)}`).toBe(inputProblem(JSON.parse(text)) !== null);
      }
    }
    expect(jsonNestedTooDeep('"\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["')).toBe(false);
  });
});
