/**
 * BENCH_ONLY=profile-cache npm run bench   (or: node --import tsx bench/profile-cache.ts)
 *
 * The agent-profile cache's cost per entry (issue 47): N distinct profile URLs, each answering a
 * hostile but valid platform profile (~250 KiB of arrays nested as deep as the 32-level rule allows,
 * in an unknown top-level member and an unknown capability member), go through
 * `PlatformProfiles.get` with an in-memory fetch. Reported: the cache's own byte accounting per
 * entry, the heap and RSS it grew by (after full GCs), and, for comparison, what the whole parsed
 * document costs when kept (what the cache held before issue 47) for a few of them.
 * BENCH_PROFILES (default 500), BENCH_PROFILE_KIB (default 250).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PlatformProfiles, type FetchLike } from '../server/core/access/platform-profiles.ts';
import { MAX_DEPTH } from '../src/wire/input.ts';
import { platformProfile } from '../test/support/platform.ts';

setFlagsFromString('--expose-gc');
const gc = (globalThis as { gc?: () => void }).gc ?? (runInNewContext('gc') as () => void);

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

/** A valid platform profile of about `bytes` bytes, nested at most 32 levels (test/profile-cache.test.ts). */
export function hostileProfile(bytes: number): string {
  const base = platformProfile() as { ucp: { capabilities: Record<string, Array<Record<string, unknown>>> } };
  const caps = base.ucp.capabilities;
  caps[Object.keys(caps)[0]][0].junk = 1;
  const text = JSON.stringify({ ...base, junk: 0 });
  const bulk = (levels: number, share: number) => `[${Array(Math.floor(share / (2 * levels + 1))).fill(nested(levels)).join(',')}]`;
  const room = bytes - text.length;
  return text.replace('"junk":0', `"junk":${bulk(MAX_DEPTH - 2, room / 2)}`).replace('"junk":1', `"junk":${bulk(MAX_DEPTH - 6, room / 2)}`);
}

function memory() {
  gc();
  gc();
  return process.memoryUsage();
}

const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;

export async function benchProfileCache(): Promise<void> {
  const n = Number(process.env.BENCH_PROFILES ?? 500);
  const body = hostileProfile(Number(process.env.BENCH_PROFILE_KIB ?? 250) * 1024);
  const fetch: FetchLike = async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  const profiles = new PlatformProfiles({ fetch });
  const before = memory();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await profiles.get(`https://p${i}.example/.well-known/ucp`);
  const ms = performance.now() - t0;
  const after = memory();
  const { entries, bytes } = profiles.stats;

  // The same document kept whole (the cache before issue 47), for a few.
  const whole: unknown[] = [];
  const m0 = memory();
  const few = 10;
  for (let i = 0; i < few; i++) whole.push(JSON.parse(body));
  const m1 = memory();

  console.log(`\n== agent-profile cache: ${n} hostile profiles of ${body.length} bytes (nested ${MAX_DEPTH} levels)`);
  console.log(`entries kept              ${entries} (bound ${mib(profiles.opts.maxCacheBytes)} accounted)`);
  console.log(`accounted per entry       ${Math.round(bytes / Math.max(entries, 1))} B (total ${mib(bytes)})`);
  console.log(`heap per entry            ${Math.round((after.heapUsed - before.heapUsed) / n)} B (heap +${mib(after.heapUsed - before.heapUsed)}, rss +${mib(after.rss - before.rss)})`);
  console.log(`fetch + check + keep      ${(ms / n).toFixed(2)} ms per profile`);
  console.log(`whole document kept       ${Math.round((m1.heapUsed - m0.heapUsed) / few)} B per profile (${few} parsed and held)`);
  void whole.length;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchProfileCache();
