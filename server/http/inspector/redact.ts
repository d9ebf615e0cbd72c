/**
 * What the request inspector keeps of a body or header: secrets replaced by `[redacted]` before
 * anything is stored, so the dev page, the JSON route and the CLI can never show one. Secrets here
 * are credentials and signatures (Authorization, cookies, HTTP message signatures, channel keys,
 * storefront and embedded tokens, OAuth codes and tokens), by header name, by JSON key and by the
 * shapes of our own credentials wherever they appear in text (a URL's `ep_auth`, a `ucp_sk_…` key).
 */

export const REDACTED = '[redacted]';

/** Request and response headers whose values are credentials or proofs of them. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'signature', 'signature-input', 'x-api-key']);

/** JSON keys whose values are secrets wherever they sit in a body (idempotency keys and error `code`s are not). */
const SECRET_KEY = /(token|secret|password|passwd|credential|signature|authorization|cookie|api[_-]?key|channel[_-]?key|ep_auth|ec_auth|^auth$)/i;

/** Our credentials' shapes in free text, and credential-bearing query parameters. */
const SECRET_TEXT: Array<[RegExp, string]> = [
  [/\bucp_sk_[A-Za-z0-9_-]+/g, `ucp_sk_${REDACTED}`],
  [/\bsft_[0-9a-z]+\.[A-Za-z0-9_-]+/g, `sft_${REDACTED}`],
  [/([?&#](?:ep_auth|ec_auth|token|access_token|refresh_token|code|sig|signature)=)[^&#"'\s]*/gi, `$1${REDACTED}`],
  [/(\bBearer\s+)[^\s"',]+/gi, `$1${REDACTED}`],
];

export function redactText(text: string): string {
  let out = text;
  for (const [re, to] of SECRET_TEXT) out = out.replace(re, to);
  return out;
}

/** Headers as stored: names lower case, secret values replaced (an Authorization keeps its scheme). */
export function redactHeaders(headers: Iterable<[string, string]>, limit = 40): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const [name, value] of headers) {
    if (n++ >= limit) break;
    const k = name.toLowerCase();
    if (SECRET_HEADERS.has(k)) {
      const scheme = /^(\w+)\s/.exec(value)?.[1];
      out[k] = k === 'authorization' && scheme ? `${scheme} ${REDACTED}` : REDACTED;
    } else {
      out[k] = redactText(value.slice(0, 512));
    }
  }
  return out;
}

function redactValue(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return redactText(v);
  if (depth > 32 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => redactValue(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = SECRET_KEY.test(k) && x !== null && typeof x !== 'object' ? REDACTED : redactValue(x, depth + 1);
  return out;
}

/**
 * A body as stored: JSON re-serialized with secret keys replaced, other text by its shapes, then cut
 * to `max` characters (`truncated` says so). `parsed` is the JSON value when the body was JSON.
 */
export function redactBody(text: string, max: number): { body: string; truncated: boolean; parsed?: unknown } {
  let parsed: unknown;
  let body: string;
  try {
    parsed = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed !== undefined) body = JSON.stringify(redactValue(parsed, 0));
  else body = redactText(text);
  return body.length > max ? { body: body.slice(0, max), truncated: true, parsed } : { body, truncated: false, parsed };
}
