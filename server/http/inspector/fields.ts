/**
 * An exchange's fields as the inspector keeps them: bounded copies, and what a REST request's own
 * headers say about who sent it (its transport, its agent, its idempotency key).
 *
 * The header-derived fields are read when an exchange is shown (store.ts), not on the request path:
 * a REST exchange keeps Node's raw header list by reference anyway, and a read that went through
 * (a search, the request most often made) is then recorded as references and nothing more (issue
 * 39 point 1: the recording must cost at most 10 % of a search).
 */
import type { InspectorTransport } from './exchange.ts';

/** The agent's profile URL and the idempotency key, as kept. */
export const FIELD_CHARS = 512;

/** What the shop's own page may say about itself (host.js's WebMCP tools): `UCP-Inspector-Transport: webmcp`. */
const PAGE_TRANSPORT_HEADER = 'ucp-inspector-transport';

/** A copy of at most `max` characters that holds no reference to `s` (a V8 slice would keep all of `s` alive). */
export function own(s: string, max: number): string {
  if (s.length <= max) return s;
  return Buffer.from(s.slice(0, max), 'utf16le').toString('utf16le');
}

/**
 * A header of a raw list ([name, value, …]) by its lower-case name: the first one sent. (Node joins
 * repeats of most headers with ", " and keeps the first of others; every field read here takes its
 * first value either way: one profile, one key, one referer.)
 */
export function headerIn(raw: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i].length === name.length && raw[i].toLowerCase() === name) return raw[i + 1];
  }
  return undefined;
}

/** The `profile` of a UCP-Agent header (RFC 8941 dictionary), or the header itself when it has none; a bounded copy. */
export function profileOf(header: string | undefined): string | null {
  if (header === undefined) return null;
  return own(/profile\s*=\s*"([^"]*)"/.exec(header)?.[1] ?? header, FIELD_CHARS);
}

/**
 * Who sent a REST request: the embedded cart page (`/cart/…` on the shop's own origin), host.js on
 * the shop's page (its storefront token; `webmcp` when its WebMCP tools say so), else an agent.
 */
export function restTransportOf(raw: readonly string[], shopOrigin: string | undefined): InspectorTransport {
  const referer = headerIn(raw, 'referer');
  if (referer) {
    try {
      const url = new URL(referer);
      if (url.origin === shopOrigin && url.pathname.startsWith('/cart/')) return 'embedded';
    } catch {
      /* not a URL: an agent's own header */
    }
  }
  if (!/^Bearer sft_/i.test(headerIn(raw, 'authorization') ?? '')) return 'rest';
  return headerIn(raw, PAGE_TRANSPORT_HEADER)?.trim().toLowerCase() === 'webmcp' ? 'webmcp' : 'page';
}
