/**
 * How a UCP REST response is read, once, for both clients: host.js's widget (`./api.ts`) and the
 * agent client `ucp-storefront/client` (`./ucp-client.ts`). Business outcomes (HTTP 200/201) come
 * back as `{ok:true, data}` or, for a UCP `error_response`, `{ok:false, messages}`; transport
 * failures (non-2xx, network, unreadable body) also become `{ok:false}` with at least one message,
 * so callers only ever deal with `Message[]`. Types only from src/wire (no zod in the bundle).
 */
import type { Message } from '../wire/common.ts';

export type Result<T> = { ok: true; data: T } | { ok: false; status: number; messages: Message[] };

export const fail = (status: number, code: string, content: string): Result<never> => ({
  ok: false,
  status,
  messages: [{ type: 'error', code, content, severity: 'unrecoverable' }],
});

/** Sends one request and reads its answer as a Result (never throws). */
export async function request<T>(fetchImpl: typeof fetch, url: string, init: RequestInit): Promise<Result<T>> {
  let res: Response;
  try {
    res = await fetchImpl(url, init);
  } catch {
    return fail(0, 'network_error', 'The store could not be reached.');
  }
  let json: any;
  try {
    json = await res.json();
  } catch {
    return fail(res.status, 'invalid_response', `Unexpected response (HTTP ${res.status}).`);
  }
  if (!res.ok) {
    return json?.messages?.length ? { ok: false, status: res.status, messages: json.messages as Message[] } : fail(res.status, json?.code ?? 'http_error', json?.content ?? `HTTP ${res.status}`);
  }
  if (json?.ucp?.status === 'error') return { ok: false, status: res.status, messages: json.messages ?? [] };
  return { ok: true, data: json as T };
}
