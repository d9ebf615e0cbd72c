/**
 * Fetching a feed by URL (docs/import-feeds.md "Feeds by URL"): a conditional GET (the ETag and
 * Last-Modified of the last successful import, answered 304 when nothing changed), at most
 * FEED_LIMITS.maxRedirects redirects followed by hand (a loop refused), the body decoded as the
 * fetch library does (gzip, deflate, br) and counted as it streams: past FEED_LIMITS.maxBytes the
 * import stops. Time is bounded too: the answer's headers within headersTimeoutMs, then no pause in
 * the body longer than idleTimeoutMs. Where the request may go is the agent profiles' rule: public
 * addresses only in production (server/lib/public-fetch.ts checks each hop's address, literal or
 * resolved), loopback and *.localhost too in development (local-fetch.ts).
 */
import { publicFetch } from '../lib/public-fetch.ts';
import { localFetch } from '../lib/local-fetch.ts';
import { ImportParseError } from './adapter.ts';

/** Bounds of one feed fetch; tests lower them. */
export const FEED_LIMITS = {
  /** Decoded body bytes at most: 512 MiB. */
  maxBytes: 512 * 2 ** 20,
  maxRedirects: 5,
  /** Connect and answer headers within this. */
  headersTimeoutMs: 30_000,
  /** The body may pause at most this long. */
  idleTimeoutMs: 60_000,
};

export type FeedLimits = typeof FEED_LIMITS;

/** A feed that could not be fetched: one line naming the URL, nothing written. */
export class FeedFetchError extends ImportParseError {}

export interface FeedFetchOptions {
  mode: 'development' | 'production';
  etag?: string | null;
  lastModified?: string | null;
  signal?: AbortSignal;
  limits?: Partial<FeedLimits>;
  /** Default: publicFetch in production, localFetch otherwise. */
  fetch?: typeof globalThis.fetch;
}

export type FeedResponse =
  | { notModified: true; url: string }
  | { notModified: false; url: string; etag: string | null; lastModified: string | null; bytes: AsyncIterable<Uint8Array>; cancel(): void };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export function isFeedUrl(s: string): boolean {
  return /^https?:\/\//i.test(s);
}

/** Fetches `url` (following redirects); throws FeedFetchError with the reason. */
export async function fetchFeed(url: string, o: FeedFetchOptions): Promise<FeedResponse> {
  const limits = { ...FEED_LIMITS, ...o.limits };
  const doFetch = o.fetch ?? (o.mode === 'production' ? publicFetch : localFetch);
  const seen = new Set<string>();
  let current = url;
  for (let hop = 0; ; hop++) {
    seen.add(current);
    const abort = new AbortController();
    // Stopping the caller (the server closing) aborts the request and its body.
    const onOuter = () => abort.abort(o.signal!.reason);
    o.signal?.addEventListener('abort', onOuter, { once: true });
    const unlink = () => o.signal?.removeEventListener('abort', onOuter);
    let res: Response;
    try {
      res = await request(doFetch, current, o, limits, abort);
    } catch (e) {
      unlink();
      throw e;
    }
    if (res.status !== 200) unlink();
    if (REDIRECTS.has(res.status)) {
      await res.body?.cancel().catch(() => {});
      const location = res.headers.get('location');
      if (!location) throw new FeedFetchError(`${url}: answered ${res.status} without a Location`);
      const next = new URL(location, current);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new FeedFetchError(`${url}: redirected to ${next.protocol} (only http and https are fetched)`);
      if (seen.has(next.href)) throw new FeedFetchError(`${url}: redirect loop (${next.href} again)`);
      if (hop >= limits.maxRedirects) throw new FeedFetchError(`${url}: more than ${limits.maxRedirects} redirects`);
      current = next.href;
      continue;
    }
    if (res.status === 304 && (o.etag || o.lastModified)) {
      await res.body?.cancel().catch(() => {});
      return { notModified: true, url: current };
    }
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => {});
      throw new FeedFetchError(`${url}: the server answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${current !== url ? ` (at ${current})` : ''}`);
    }
    const length = Number(res.headers.get('content-length'));
    if (!res.headers.get('content-encoding') && length > limits.maxBytes) {
      unlink();
      await res.body?.cancel().catch(() => {});
      throw new FeedFetchError(`${url}: ${length} bytes, more than the ${mib(limits.maxBytes)} a feed may have`);
    }
    const body = res.body;
    return {
      notModified: false,
      url: current,
      etag: res.headers.get('etag'),
      lastModified: res.headers.get('last-modified'),
      bytes: body ? bounded(body, limits, abort, unlink) : empty(),
      cancel: () => (abort.abort(), unlink()),
    };
  }
}

async function request(doFetch: typeof globalThis.fetch, url: string, o: FeedFetchOptions, limits: FeedLimits, abort: AbortController): Promise<Response> {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new FeedFetchError(`${url}: only http and https URLs are fetched`);
  const headers: Record<string, string> = { accept: '*/*', 'accept-encoding': 'gzip, deflate, br', 'user-agent': 'ucp-storefront-import/1' };
  if (o.etag) headers['if-none-match'] = o.etag;
  if (o.lastModified) headers['if-modified-since'] = o.lastModified;
  const timer = setTimeout(() => abort.abort(new Error('timeout')), limits.headersTimeoutMs);
  try {
    return await doFetch(url, { headers, redirect: 'manual', signal: abort.signal });
  } catch (e) {
    if (o.signal?.aborted) throw new FeedFetchError(`${url}: stopped (the server is shutting down)`);
    if (abort.signal.aborted) throw new FeedFetchError(`${url}: no answer within ${limits.headersTimeoutMs / 1000} s`);
    throw new FeedFetchError(`${url}: ${why(e, parsed.hostname)}`);
  } finally {
    clearTimeout(timer);
  }
}

/** A fetch failure in words: the cause's (non-public address, DNS, refused) rather than "fetch failed". */
function why(e: unknown, host: string): string {
  const cause = (e as { cause?: NodeJS.ErrnoException }).cause;
  const code = cause?.code;
  if (code === 'ENONPUBLIC') return `${cause!.message} (production fetches feeds from public addresses only)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot resolve ${host}`;
  if (code === 'ECONNREFUSED') return `connection refused by ${host}`;
  return cause?.message ?? (e as Error).message;
}

/** The body's bytes, counted: past maxBytes, or a pause past idleTimeoutMs, the fetch is aborted and the import stops. */
async function* bounded(body: ReadableStream<Uint8Array>, limits: FeedLimits, abort: AbortController, done: () => void): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  let timer: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      timer = setTimeout(() => abort.abort(new Error('idle')), limits.idleTimeoutMs);
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        const reason = (abort.signal.reason as Error | undefined)?.message;
        if (reason === 'idle') throw new ImportParseError(`the feed stopped sending for ${limits.idleTimeoutMs / 1000} s after ${total} bytes`);
        if (abort.signal.aborted) throw new ImportParseError(`stopped after ${total} bytes (the server is shutting down)`);
        throw new ImportParseError(`the connection broke after ${total} bytes: ${why(e, '')}`);
      }
      clearTimeout(timer);
      if (r.done) return;
      total += r.value.length;
      if (total > limits.maxBytes) throw new ImportParseError(`more than ${mib(limits.maxBytes)} (decoded) a feed may have`);
      yield r.value;
    }
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
    abort.abort();
    done();
  }
}

async function* empty(): AsyncGenerator<Uint8Array> {}

function mib(bytes: number): string {
  return bytes >= 2 ** 20 ? `${Math.round(bytes / 2 ** 20)} MiB` : `${bytes} bytes`;
}
