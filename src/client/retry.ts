/**
 * Retries of the agent client (`ucp-storefront/client`), for both transports: a `fetch` that sends a
 * request again when the server answers 429 (rate limited) or 503 (unavailable), waiting what
 * `Retry-After` asks (seconds or an HTTP date), or a doubling backoff without it. It gives up, and
 * hands the last answer to the caller, after `retries` extra attempts or when the server asks for a
 * longer wait than `maxDelayMs` (a caller in a hurry learns it at once instead of hanging).
 * Only requests whose body can be sent twice (none or a string) are retried. Not used by host.js.
 */

export interface RetryOptions {
  /** Extra attempts after the first (default 3; 0 turns retries off). */
  retries?: number;
  /** The longest wait before one retry, in ms (default 30 000). A longer `Retry-After` is not waited for. */
  maxDelayMs?: number;
  /** First backoff when the answer has no `Retry-After`, in ms (default 500; doubles each time). */
  baseDelayMs?: number;
}

export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** `Retry-After` in ms: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function retryingFetch(fetchImpl: typeof fetch, opts: RetryOptions = {}): typeof fetch {
  const retries = opts.retries ?? 3;
  const maxDelay = opts.maxDelayMs ?? 30_000;
  const base = opts.baseDelayMs ?? 500;
  return async (input, init) => {
    const replayable = !(input instanceof Request) && (init?.body === undefined || init.body === null || typeof init.body === 'string');
    for (let attempt = 0; ; attempt++) {
      const res = await fetchImpl(input, init);
      if (!RETRY_STATUSES.has(res.status) || !replayable || attempt >= retries) return res;
      const wait = retryAfterMs(res.headers.get('retry-after')) ?? base * 2 ** attempt;
      if (wait > maxDelay) return res;
      await res.body?.cancel().catch(() => {});
      await sleep(wait);
    }
  };
}
