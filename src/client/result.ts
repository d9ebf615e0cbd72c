/**
 * How a UCP REST response is read, once, for both clients: host.js's widget (`./api.ts`) and the
 * agent client `ucp-storefront/client` (`./ucp-client.ts`). Business outcomes (HTTP 200/201) come
 * back as `{ok:true, data}` or, for a UCP `error_response`, `{ok:false, messages}`; transport
 * failures (non-2xx, network, unreadable body) also become `{ok:false}` with at least one message,
 * so callers only ever deal with `Message[]`. Types only from src/wire (no zod in the bundle).
 */
import type { Message } from '../wire/common.ts';

/** `body`: the answer as received, when there was one (a UCP error_response, a 4xx envelope). */
export type Result<T> = { ok: true; data: T } | { ok: false; status: number; messages: Message[]; body?: unknown };

/**
 * A failure with no UCP messages of its own (a flat protocol error, no answer). Its severity is left
 * to the callers that report one (the agent client, WebMCP: `gradeMessages` in src/wire/errors.ts,
 * from the status), so host.js's entry, whose widget words failures by code, does not carry the table.
 */
export const fail = (status: number, code: string, content: string, body?: unknown): Result<never> => ({
  ok: false,
  status,
  messages: [{ type: 'error', code, content }],
  body,
});

/**
 * Why a fetch failed, in a few words: Node's `TypeError('fetch failed')` keeps it in `cause`
 * (`connect ECONNREFUSED 127.0.0.1:8080`, `getaddrinfo ENOTFOUND shop.example`); a browser gives
 * only its own message. Views word `network_error` themselves; this is for developers.
 */
export function failureCause(e: unknown): string {
  // The deepest cause: an SDK may wrap the fetch error that wraps the socket's (the MCP client v2 does).
  let c = e as { message?: string; code?: string; errors?: Array<{ message?: string }>; cause?: unknown } | undefined;
  for (let i = 5; i-- && c?.cause; ) c = c.cause as typeof c;
  const text = c?.message || c?.errors?.map((x) => x?.message).join('; ') || String(e);
  return text.slice(0, 200);
}

/**
 * Sends one request and reads its answer as a Result (never throws). `flatCode`, when given, replaces
 * the code of a flat protocol error (access, limits, server faults: words for developers) so a view
 * can word it for shoppers (the widget passes `unavailable`); `body` keeps the original either way.
 */
export async function request<T>(fetchImpl: typeof fetch, url: string, init: RequestInit, flatCode?: string): Promise<Result<T>> {
  let res: Response;
  try {
    res = await fetchImpl(url, init);
  } catch (e) {
    return fail(0, 'network_error', `The store could not be reached (${failureCause(e)}).`);
  }
  let json: any;
  try {
    json = await res.json();
  } catch {
    return fail(res.status, 'invalid_response', `Unexpected response (HTTP ${res.status}).`);
  }
  if (!res.ok) {
    return json?.messages?.length ? { ok: false, status: res.status, messages: json.messages as Message[], body: json } : fail(res.status, flatCode ?? json?.code ?? 'http_error', json?.content ?? `HTTP ${res.status}`, json);
  }
  if (json?.ucp?.status === 'error') return { ok: false, status: res.status, messages: json.messages ?? [], body: json };
  return { ok: true, data: json as T };
}
