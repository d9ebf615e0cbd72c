/**
 * Fetching platform profiles named by `UCP-Agent` (REST) or `meta["ucp-agent"].profile` (MCP),
 * DIGEST §1.1 "Fetching the platform profile":
 *
 * - https only (`invalid_profile_url`); loopback `http:` (localhost, *.localhost, 127.0.0.0/8, ::1)
 *   only with `allowInsecureLoopback` (config `allowInsecureProfileUrls`: on in development unless
 *   UCP_ALLOW_INSECURE_PROFILE_URLS=0, never in production, never for a cross-site browser request:
 *   authenticate.ts `crossSiteRequest`). No credentials in the URL. Each URL refusal says why; the
 *   transports add what to name instead (authenticate.ts `profileAdvice`).
 * - No redirects (`redirect: 'manual'`; a 3xx is `profile_unreachable`), a connect timeout (no
 *   response headers within `connectTimeoutMs`) and a response timeout (whole body within
 *   `responseTimeoutMs`), a body cap (`maxBytes`), a nesting cap ({@link MAX_DEPTH} levels, the
 *   rule every request body is held to, checked on the text before it is parsed). Timeouts, network
 *   errors and non-2xx → `profile_unreachable`; bad JSON, oversize, too deep or a shape that is not a
 *   platform profile → `profile_malformed`. The client is told which of the two and the URL, never
 *   what the address answered (a status, a parse error, a schema path: that would make the server a
 *   port scanner, issue 47): the reason goes to the server log (scope `profiles`).
 * - Only what negotiation and signature checks read is kept ({@link NegotiationProfile}: the
 *   version, each capability's versions with `extends`/`requires`, the signing keys' JWK members),
 *   not the parsed document. The cache is bounded by bytes (`maxCacheBytes`, least recently used
 *   out first; {@link entryBytes} estimates an entry's heap) and swept of expired entries. Each
 *   profile is kept for `Cache-Control: max-age` clamped to [`minTtlMs` (60 s), `maxTtlMs`],
 *   `defaultTtlMs` without one. Concurrent misses for the same URL share one fetch.
 * - `refresh(url)` (an unknown signature `kid`): at most one forced refresh per origin per
 *   `forcedRefreshIntervalMs` (60 s); otherwise it returns null and the caller answers key_not_found.
 *
 * `fetch` is injectable (tests serve profiles from memory or over a loopback TLS server).
 */
import { publicFetch } from '../../lib/public-fetch.ts';
import { localFetch } from '../../lib/local-fetch.ts';
import { log } from '../../lib/log.ts';
import * as z from 'zod/mini';
import { PlatformProfile, type SigningKey } from '../../../src/wire/platform-profile.ts';
import { jsonNestedTooDeep, MAX_DEPTH } from '../../../src/wire/input.ts';
import { DomainError } from '../shared/errors.ts';

export type ProfileErrorCode = 'invalid_profile_url' | 'profile_unreachable' | 'profile_malformed';

/** A platform profile that cannot be used: a bad URL (`malformed`), unreachable (`unavailable`: the failure is upstream), or not a profile (`invalid`). */
export class ProfileError extends DomainError {
  declare readonly code: ProfileErrorCode;
  constructor(code: ProfileErrorCode, message: string) {
    super(code === 'invalid_profile_url' ? 'malformed' : code === 'profile_unreachable' ? 'unavailable' : 'invalid', code, message);
  }
}

/**
 * A fetched profile that cannot be used, as the client is told: the URL and which of the two, never
 * what the address answered (`reason`, logged). `profile_malformed` names the rules a profile is
 * held to, so an honest platform can check its own.
 */
function refused(code: 'profile_unreachable' | 'profile_malformed', url: string, reason: string, maxBytes: number): ProfileError {
  log.warn('profiles', 'platform profile refused', { url, code, reason });
  const why =
    code === 'profile_unreachable'
      ? 'it could not be fetched (no answer, an error status or a redirect; the server log says which)'
      : `it is not a usable UCP platform profile (at most ${maxBytes} bytes of JSON nested at most ${MAX_DEPTH} levels, of the platform profile schema; the server log says what failed)`;
  return new ProfileError(code, `The agent profile ${url} could not be used: ${why}.`);
}

/** One capability version as negotiation reads it (server/core/access/negotiation.ts). */
export interface NegotiationCapability {
  version: string;
  extends?: string | string[];
  requires?: { protocol?: { min: string; max?: string }; capabilities?: Record<string, { min: string; max?: string }> };
}

/** What is kept of a platform profile: what version and capability negotiation and signature checks read. */
export interface NegotiationProfile {
  ucp: { version: string; capabilities?: Record<string, NegotiationCapability[]> };
  signing_keys?: SigningKey[];
  /** UCP 2026-08-25's `keys`. */
  keys?: SigningKey[];
}

export interface ResolvedProfile {
  url: string;
  origin: string;
  profile: NegotiationProfile;
  fetchedAt: number;
}

const JWK_MEMBERS = ['kid', 'kty', 'crv', 'x', 'y', 'n', 'e', 'use', 'alg'] as const;

function pickKeys(keys: readonly SigningKey[] | undefined): SigningKey[] | undefined {
  if (!keys) return undefined;
  return keys.map((k) => {
    const out: Record<string, string> = {};
    for (const m of JWK_MEMBERS) if (typeof k[m] === 'string') out[m] = k[m];
    return out as SigningKey;
  });
}

function pickRange(r: unknown): { min: string; max?: string } | undefined {
  if (!r || typeof r !== 'object') return undefined;
  const { min, max } = r as Record<string, unknown>;
  if (typeof min !== 'string') return undefined;
  return typeof max === 'string' ? { min, max } : { min };
}

function pickRequires(r: unknown): NegotiationCapability['requires'] {
  if (!r || typeof r !== 'object') return undefined;
  const src = r as Record<string, unknown>;
  const protocol = pickRange(src.protocol);
  const caps: Record<string, { min: string; max?: string }> = {};
  if (src.capabilities && typeof src.capabilities === 'object') {
    for (const [name, range] of Object.entries(src.capabilities)) {
      const picked = pickRange(range);
      if (picked) caps[name] = picked;
    }
  }
  const out: NonNullable<NegotiationCapability['requires']> = {};
  if (protocol) out.protocol = protocol;
  if (Object.keys(caps).length) out.capabilities = caps;
  return Object.keys(out).length ? out : undefined;
}

/** A validated profile reduced to {@link NegotiationProfile}: unknown members, services, payment handlers and config dropped. */
export function negotiationProfile(p: PlatformProfile): NegotiationProfile {
  const out: NegotiationProfile = { ucp: { version: p.ucp.version } };
  if (p.ucp.capabilities) {
    const caps: Record<string, NegotiationCapability[]> = {};
    for (const [name, decls] of Object.entries(p.ucp.capabilities)) {
      caps[name] = decls.map((d) => {
        const c: NegotiationCapability = { version: d.version };
        if (d.extends !== undefined) c.extends = Array.isArray(d.extends) ? [...d.extends] : d.extends;
        const requires = pickRequires((d as Record<string, unknown>).requires);
        if (requires) c.requires = requires;
        return c;
      });
    }
    out.ucp.capabilities = caps;
  }
  const signing = pickKeys(p.signing_keys);
  if (signing) out.signing_keys = signing;
  const keys = pickKeys(p.keys);
  if (keys) out.keys = keys;
  return out;
}

/**
 * An entry's heap, estimated from above: 2 bytes a character for every string (V8 stores Latin-1
 * in 1) and 64 bytes for each object, array and property slot, plus the entry's own bookkeeping.
 */
export function entryBytes(url: string, value: unknown): number {
  let bytes = 256 + url.length * 2;
  const walk = (v: unknown): void => {
    if (typeof v === 'string') bytes += 24 + v.length * 2;
    else if (Array.isArray(v)) {
      bytes += 64 + v.length * 8;
      for (const x of v) walk(x);
    } else if (v && typeof v === 'object') {
      bytes += 64;
      for (const [k, x] of Object.entries(v)) {
        bytes += 16 + k.length * 2;
        walk(x);
      }
    } else bytes += 8;
  };
  walk(value);
  return bytes;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface ProfileFetcherOptions {
  fetch: FetchLike;
  allowInsecureLoopback: boolean;
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  maxBytes: number;
  /** The cache's bound: the sum of its entries' {@link entryBytes}. */
  maxCacheBytes: number;
  minTtlMs: number;
  defaultTtlMs: number;
  maxTtlMs: number;
  forcedRefreshIntervalMs: number;
  /** Expired entries are swept at most this often (on a lookup), and by the shared fetchers' timer. */
  sweepIntervalMs: number;
  now: () => number;
}

export const PROFILE_FETCH_DEFAULTS: Omit<ProfileFetcherOptions, 'fetch' | 'now' | 'allowInsecureLoopback'> = {
  connectTimeoutMs: 3000,
  responseTimeoutMs: 5000,
  maxBytes: 256 * 1024,
  maxCacheBytes: 8 * 1024 * 1024,
  minTtlMs: 60_000,
  defaultTtlMs: 300_000,
  maxTtlMs: 3_600_000,
  forcedRefreshIntervalMs: 60_000,
  sweepIntervalMs: 30_000,
};

/** Origins remembered for the forced-refresh interval (the oldest forgotten first). */
const MAX_FORCED_ORIGINS = 1024;

const LOOPBACK_NAME = /^(localhost|[a-z0-9-]+(\.[a-z0-9-]+)*\.localhost)$/i;

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return LOOPBACK_NAME.test(h) || /^127(\.\d{1,3}){3}$/.test(h) || h === '::1';
}

/** Checks a profile URL; returns its normalized form or throws `invalid_profile_url`. */
export function checkProfileUrl(raw: unknown, allowInsecureLoopback: boolean): URL {
  if (typeof raw !== 'string' || raw.trim() === '') throw new ProfileError('invalid_profile_url', 'The platform profile URL is missing.');
  if (raw.length > 2048) throw new ProfileError('invalid_profile_url', 'The platform profile URL is longer than 2048 characters.');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ProfileError('invalid_profile_url', `The platform profile '${raw.slice(0, 200)}' is not a URL.`);
  }
  if (url.protocol !== 'https:') {
    const loopbackHttp = url.protocol === 'http:' && isLoopbackHost(url.hostname);
    if (!loopbackHttp) {
      throw new ProfileError('invalid_profile_url', `The platform profile ${url.href.slice(0, 200)} must be an https URL (plain http only for loopback hosts, localhost, *.localhost, 127.0.0.1 or ::1, in development).`);
    }
    if (!allowInsecureLoopback) {
      throw new ProfileError('invalid_profile_url', `The platform profile ${url.href.slice(0, 200)} must be an https URL: plain http on a loopback host is accepted only in development (not with NODE_ENV=production, not with UCP_ALLOW_INSECURE_PROFILE_URLS=0, not for a cross-site browser request).`);
    }
  }
  if (url.username || url.password) throw new ProfileError('invalid_profile_url', 'The platform profile URL must not carry credentials.');
  url.hash = '';
  return url;
}

/**
 * `checkProfileUrl(raw).href`, remembered: a platform names the same profile on every call, and REST
 * and MCP check it more than once per request (the call's metadata, then authentication, then the
 * cache lookup). Only accepted URLs are remembered; the map is cleared when full (many distinct
 * URLs is a client probing, and a miss only costs the parse).
 */
const accepted = [new Map<string, string>(), new Map<string, string>()];
const MAX_ACCEPTED = 1024;

export function profileHref(raw: unknown, allowInsecureLoopback: boolean): string {
  const memo = accepted[allowInsecureLoopback ? 1 : 0];
  const hit = typeof raw === 'string' ? memo.get(raw) : undefined;
  if (hit !== undefined) return hit;
  const href = checkProfileUrl(raw, allowInsecureLoopback).href;
  if (memo.size >= MAX_ACCEPTED) memo.clear();
  memo.set(raw as string, href);
  return href;
}

function maxAgeMs(cacheControl: string | null): number | undefined {
  const m = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl ?? '');
  return m ? Number(m[1]) * 1000 : undefined;
}

interface Entry {
  value: ResolvedProfile;
  expiresAt: number;
  bytes: number;
}

/** The body as text, at most `maxBytes`; throws `profile_malformed` (too large) or a plain Error (read failure). */
async function readCapped(res: Response, maxBytes: number, tooLarge: () => ProfileError): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  for (;;) {
    if (!reader) break;
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class PlatformProfiles {
  readonly opts: ProfileFetcherOptions;
  private readonly cache = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<ResolvedProfile>>();
  private readonly lastForced = new Map<string, number>();
  private bytes = 0;
  private lastSweep = 0;

  constructor(opts: Partial<ProfileFetcherOptions> = {}) {
    this.opts = {
      ...PROFILE_FETCH_DEFAULTS,
      fetch: (input, init) => fetch(input, init),
      now: Date.now,
      allowInsecureLoopback: false,
      ...opts,
    };
    this.opts.minTtlMs = Math.max(this.opts.minTtlMs, 0);
  }

  checkUrl(raw: unknown): URL {
    return checkProfileUrl(raw, this.opts.allowInsecureLoopback);
  }

  /** The normalized URL (profileHref), or `invalid_profile_url`. */
  href(raw: unknown): string {
    return profileHref(raw, this.opts.allowInsecureLoopback);
  }

  /** The cache's accounting: entries and the sum of their {@link entryBytes}. */
  get stats(): { entries: number; bytes: number } {
    return { entries: this.cache.size, bytes: this.bytes };
  }

  /** The profile, from the cache when fresh. */
  async get(raw: string): Promise<ResolvedProfile> {
    const url = this.href(raw);
    const now = this.opts.now();
    if (now - this.lastSweep >= this.opts.sweepIntervalMs) this.sweep();
    const hit = this.cache.get(url);
    if (hit && hit.expiresAt > now) {
      this.cache.delete(url); // LRU: move to the end
      this.cache.set(url, hit);
      return hit.value;
    }
    return this.load(url);
  }

  /** Drops every expired entry. */
  sweep(): void {
    const now = this.opts.now();
    this.lastSweep = now;
    for (const [url, e] of this.cache) if (e.expiresAt <= now) this.drop(url, e);
  }

  /**
   * Forced refresh for an unknown `kid`: refetches unless this origin was force-refreshed within
   * the interval; null when rate-limited.
   */
  async refresh(raw: string): Promise<ResolvedProfile | null> {
    const url = this.checkUrl(raw);
    const now = this.opts.now();
    const last = this.lastForced.get(url.origin);
    if (last !== undefined && now - last < this.opts.forcedRefreshIntervalMs) return null;
    this.lastForced.delete(url.origin);
    this.lastForced.set(url.origin, now);
    if (this.lastForced.size > MAX_FORCED_ORIGINS) this.lastForced.delete(this.lastForced.keys().next().value!);
    return this.load(url.href);
  }

  clear(): void {
    this.cache.clear();
    this.lastForced.clear();
    this.bytes = 0;
  }

  private drop(url: string, e: Entry): void {
    this.cache.delete(url);
    this.bytes -= e.bytes;
  }

  private store(url: string, value: ResolvedProfile, ttl: number): void {
    const old = this.cache.get(url);
    if (old) this.drop(url, old);
    const bytes = entryBytes(url, value.profile);
    if (bytes > this.opts.maxCacheBytes) return; // served, never kept
    this.cache.set(url, { value, expiresAt: value.fetchedAt + ttl, bytes });
    this.bytes += bytes;
    for (const [u, e] of this.cache) {
      if (this.bytes <= this.opts.maxCacheBytes) break;
      this.drop(u, e); // least recently used first
    }
  }

  private load(url: string): Promise<ResolvedProfile> {
    const pending = this.inflight.get(url);
    if (pending) return pending;
    const p = this.fetchProfile(url).finally(() => this.inflight.delete(url));
    this.inflight.set(url, p);
    return p;
  }

  /** The response, within the connect timeout, 2xx; `profile_unreachable` otherwise. */
  private async respond(url: string, signal: AbortSignal, timedOut: () => string | undefined): Promise<Response> {
    const unreachable = (why: string) => refused('profile_unreachable', url, why, this.opts.maxBytes);
    let res: Response;
    try {
      res = await this.opts.fetch(url, { method: 'GET', redirect: 'manual', signal, headers: { accept: 'application/json' } });
    } catch (e) {
      throw unreachable(timedOut() ?? ((e as Error).message || 'network error'));
    }
    if (res.status < 200 || res.status >= 300) {
      await res.body?.cancel().catch(() => {});
      throw unreachable(res.status >= 300 && res.status < 400 ? `it answered ${res.status} (redirects are not followed)` : `it answered HTTP ${res.status}`);
    }
    return res;
  }

  /** The profile document from the body's text: capped depth, JSON, the platform profile schema. */
  private parse(url: string, text: string): PlatformProfile {
    const malformed = (why: string) => refused('profile_malformed', url, why, this.opts.maxBytes);
    if (jsonNestedTooDeep(text)) throw malformed(`nested deeper than ${MAX_DEPTH} levels`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw malformed(`not valid JSON (${(e as Error).message})`);
    }
    const parsed = z.safeParse(PlatformProfile, json);
    if (!parsed.success) {
      const first = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      throw malformed(`not a UCP platform profile (${first})`);
    }
    return parsed.data;
  }

  private async fetchProfile(url: string): Promise<ResolvedProfile> {
    const { connectTimeoutMs, responseTimeoutMs, maxBytes } = this.opts;
    const ctrl = new AbortController();
    let timedOut: string | undefined;
    const connectTimer = setTimeout(() => {
      timedOut = `no response within ${connectTimeoutMs} ms`;
      ctrl.abort();
    }, connectTimeoutMs);
    const totalTimer = setTimeout(() => {
      timedOut = `not complete within ${responseTimeoutMs} ms`;
      ctrl.abort();
    }, responseTimeoutMs);
    try {
      const res = await this.respond(url, ctrl.signal, () => timedOut).finally(() => clearTimeout(connectTimer));
      let text: string;
      try {
        text = await readCapped(res, maxBytes, () => refused('profile_malformed', url, `larger than ${maxBytes} bytes`, maxBytes));
      } catch (e) {
        if (e instanceof ProfileError) throw e;
        throw refused('profile_unreachable', url, timedOut ?? ((e as Error).message || 'read error'), maxBytes);
      }
      const profile = negotiationProfile(this.parse(url, text));
      const now = this.opts.now();
      const value: ResolvedProfile = { url, origin: new URL(url).origin, profile, fetchedAt: now };
      const ttl = Math.min(Math.max(maxAgeMs(res.headers.get('cache-control')) ?? this.opts.defaultTtlMs, this.opts.minTtlMs), Math.max(this.opts.maxTtlMs, this.opts.minTtlMs));
      this.store(url, value, ttl);
      return value;
    } finally {
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The process-wide fetcher (one cache per process; per insecure setting).

let overrides: Partial<ProfileFetcherOptions> = {};
const shared = new Map<string, PlatformProfiles>();
const sweepers: ReturnType<typeof setInterval>[] = [];

/** The fetcher the transports use. */
export function platformProfiles(allowInsecureLoopback: boolean, mode: 'development' | 'production' = 'development'): PlatformProfiles {
  const key = `${allowInsecureLoopback} ${mode}`;
  let p = shared.get(key);
  if (!p) {
    // In production, profile URLs (chosen by whoever sends a request) reach public addresses only:
    // never the shop's own network or a cloud metadata service (server/lib/public-fetch.ts).
    // In development, `*.localhost` names resolve to loopback (the demo agent's profile lives there).
    const fetcher = new PlatformProfiles({ fetch: mode === 'production' ? publicFetch : localFetch, ...overrides, allowInsecureLoopback });
    // Expired entries leave even when no request comes to sweep them.
    sweepers.push(setInterval(() => fetcher.sweep(), fetcher.opts.sweepIntervalMs).unref());
    shared.set(key, (p = fetcher));
  }
  return p;
}

/** Replaces the options of the shared fetcher (tests: an in-memory or TLS-trusting fetch); drops the caches. */
export function configurePlatformProfiles(opts: Partial<Omit<ProfileFetcherOptions, 'allowInsecureLoopback'>>): void {
  overrides = opts;
  shared.clear();
  for (const t of sweepers.splice(0)) clearInterval(t);
}
