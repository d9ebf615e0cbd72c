/**
 * Fetching platform profiles named by `UCP-Agent` (REST) or `meta["ucp-agent"].profile` (MCP),
 * DIGEST §1.1 "Fetching the platform profile":
 *
 * - https only (`invalid_profile_url`); loopback `http:` (localhost, *.localhost, 127.0.0.0/8, ::1)
 *   only with `allowInsecureLoopback` (config `allowInsecureProfileUrls`: on in development unless
 *   UCP_ALLOW_INSECURE_PROFILE_URLS=0, never in production). No credentials in the URL. Each
 *   refusal says why; the transports add what to name instead (authenticate.ts `profileAdvice`).
 * - No redirects (`redirect: 'manual'`; a 3xx is `profile_unreachable`), a connect timeout (no
 *   response headers within `connectTimeoutMs`) and a response timeout (whole body within
 *   `responseTimeoutMs`), a body cap (`maxBytes`). Timeouts, network errors and non-2xx →
 *   `profile_unreachable`; bad JSON, oversize or a shape that is not a platform profile →
 *   `profile_malformed`.
 * - A bounded LRU cache (`maxEntries`): each profile is kept for `Cache-Control: max-age` clamped
 *   to [`minTtlMs` (60 s), `maxTtlMs`], `defaultTtlMs` without one. Concurrent misses for the same
 *   URL share one fetch.
 * - `refresh(url)` (an unknown signature `kid`): at most one forced refresh per origin per
 *   `forcedRefreshIntervalMs` (60 s); otherwise it returns null and the caller answers key_not_found.
 *
 * `fetch` is injectable (tests serve profiles from memory or over a loopback TLS server).
 */
import { publicFetch } from '../../lib/public-fetch.ts';
import { localFetch } from '../../lib/local-fetch.ts';
import * as z from 'zod/mini';
import { PlatformProfile } from '../../../src/wire/platform-profile.ts';
import { DomainError } from '../shared/errors.ts';

export type ProfileErrorCode = 'invalid_profile_url' | 'profile_unreachable' | 'profile_malformed';

/** A platform profile that cannot be used: a bad URL (`malformed`), unreachable (`unavailable`: the failure is upstream), or not a profile (`invalid`). */
export class ProfileError extends DomainError {
  declare readonly code: ProfileErrorCode;
  constructor(code: ProfileErrorCode, message: string) {
    super(code === 'invalid_profile_url' ? 'malformed' : code === 'profile_unreachable' ? 'unavailable' : 'invalid', code, message);
  }
}

export interface ResolvedProfile {
  url: string;
  origin: string;
  profile: PlatformProfile;
  fetchedAt: number;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface ProfileFetcherOptions {
  fetch: FetchLike;
  allowInsecureLoopback: boolean;
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  maxBytes: number;
  maxEntries: number;
  minTtlMs: number;
  defaultTtlMs: number;
  maxTtlMs: number;
  forcedRefreshIntervalMs: number;
  now: () => number;
}

export const PROFILE_FETCH_DEFAULTS: Omit<ProfileFetcherOptions, 'fetch' | 'now' | 'allowInsecureLoopback'> = {
  connectTimeoutMs: 3000,
  responseTimeoutMs: 5000,
  maxBytes: 256 * 1024,
  maxEntries: 500,
  minTtlMs: 60_000,
  defaultTtlMs: 300_000,
  maxTtlMs: 3_600_000,
  forcedRefreshIntervalMs: 60_000,
};

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
      throw new ProfileError('invalid_profile_url', `The platform profile ${url.href.slice(0, 200)} must be an https URL: plain http on a loopback host is accepted only in development (not with NODE_ENV=production, not with UCP_ALLOW_INSECURE_PROFILE_URLS=0).`);
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
}

export class PlatformProfiles {
  readonly opts: ProfileFetcherOptions;
  private readonly cache = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<ResolvedProfile>>();
  private readonly lastForced = new Map<string, number>();

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

  /** The profile, from the cache when fresh. */
  async get(raw: string): Promise<ResolvedProfile> {
    const url = this.href(raw);
    const hit = this.cache.get(url);
    if (hit && hit.expiresAt > this.opts.now()) {
      this.cache.delete(url); // LRU: move to the end
      this.cache.set(url, hit);
      return hit.value;
    }
    return this.load(url);
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
    this.lastForced.set(url.origin, now);
    if (this.lastForced.size > this.opts.maxEntries) this.lastForced.delete(this.lastForced.keys().next().value!);
    return this.load(url.href);
  }

  clear(): void {
    this.cache.clear();
    this.lastForced.clear();
  }

  private load(url: string): Promise<ResolvedProfile> {
    const pending = this.inflight.get(url);
    if (pending) return pending;
    const p = this.fetchProfile(url).finally(() => this.inflight.delete(url));
    this.inflight.set(url, p);
    return p;
  }

  private async fetchProfile(url: string): Promise<ResolvedProfile> {
    const { connectTimeoutMs, responseTimeoutMs, maxBytes } = this.opts;
    const ctrl = new AbortController();
    const unreachable = (why: string) => new ProfileError('profile_unreachable', `The platform profile ${url} could not be fetched: ${why}.`);
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
      let res: Response;
      try {
        res = await this.opts.fetch(url, { method: 'GET', redirect: 'manual', signal: ctrl.signal, headers: { accept: 'application/json' } });
      } catch (e) {
        throw unreachable(timedOut ?? ((e as Error).message || 'network error'));
      } finally {
        clearTimeout(connectTimer);
      }
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel().catch(() => {});
        throw unreachable(`it answered ${res.status} (redirects are not followed)`);
      }
      if (res.status < 200 || res.status >= 300) {
        await res.body?.cancel().catch(() => {});
        throw unreachable(`it answered HTTP ${res.status}`);
      }
      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (declared > maxBytes) {
        await res.body?.cancel().catch(() => {});
        throw new ProfileError('profile_malformed', `The platform profile ${url} is larger than ${maxBytes} bytes.`);
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      try {
        const reader = res.body?.getReader();
        for (;;) {
          if (!reader) break;
          const { done, value } = await reader.read();
          if (done) break;
          size += value.byteLength;
          if (size > maxBytes) {
            await reader.cancel().catch(() => {});
            throw new ProfileError('profile_malformed', `The platform profile ${url} is larger than ${maxBytes} bytes.`);
          }
          chunks.push(value);
        }
      } catch (e) {
        if (e instanceof ProfileError) throw e;
        throw unreachable(timedOut ?? ((e as Error).message || 'read error'));
      }
      let json: unknown;
      try {
        json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        throw new ProfileError('profile_malformed', `The platform profile ${url} is not valid JSON.`);
      }
      const parsed = z.safeParse(PlatformProfile, json);
      if (!parsed.success) {
        const first = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
        throw new ProfileError('profile_malformed', `The platform profile ${url} is not a valid UCP platform profile (${first}).`);
      }
      const now = this.opts.now();
      const value: ResolvedProfile = { url, origin: new URL(url).origin, profile: parsed.data, fetchedAt: now };
      const ttl = Math.min(Math.max(maxAgeMs(res.headers.get('cache-control')) ?? this.opts.defaultTtlMs, this.opts.minTtlMs), Math.max(this.opts.maxTtlMs, this.opts.minTtlMs));
      this.cache.delete(url);
      this.cache.set(url, { value, expiresAt: now + ttl });
      while (this.cache.size > this.opts.maxEntries) this.cache.delete(this.cache.keys().next().value!);
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

/** The fetcher the transports use. */
export function platformProfiles(allowInsecureLoopback: boolean, mode: 'development' | 'production' = 'development'): PlatformProfiles {
  const key = `${allowInsecureLoopback} ${mode}`;
  let p = shared.get(key);
  if (!p) {
    // In production, profile URLs (chosen by whoever sends a request) reach public addresses only:
    // never the shop's own network or a cloud metadata service (server/lib/public-fetch.ts).
    // In development, `*.localhost` names resolve to loopback (the demo agent's profile lives there).
    p = new PlatformProfiles({ fetch: mode === 'production' ? publicFetch : localFetch, ...overrides, allowInsecureLoopback });
    shared.set(key, p);
  }
  return p;
}

/** Replaces the options of the shared fetcher (tests: an in-memory or TLS-trusting fetch); drops the caches. */
export function configurePlatformProfiles(opts: Partial<Omit<ProfileFetcherOptions, 'allowInsecureLoopback'>>): void {
  overrides = opts;
  shared.clear();
}
