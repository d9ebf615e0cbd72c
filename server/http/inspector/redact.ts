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

/**
 * A JSON member whose key names a secret, wherever it sits in a body, with its scalar value (in JSON
 * a string followed by `:` is always a key). Idempotency keys and error `code`s are not secrets.
 * Applied to the text, not a parsed copy: a search answer is tens of kilobytes, and walking it
 * cost more than the search (bench, docs/sandbox.md).
 */
const SECRET_MEMBER = /("(?:[^"\\]*?(?:token|secret|password|passwd|credential|signature|authorization|cookie|api[_-]?key|channel[_-]?key|ep_auth|ec_auth)[^"\\]*|auth)"\s*:\s*)("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false)/gi;

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

/**
 * A body as stored: secret members and our credential shapes replaced, then cut to `max`
 * characters (`truncated` says so).
 */
export function redactBody(text: string, max: number): { body: string; truncated: boolean } {
  // Only what is kept is redacted, plus a margin so no secret straddling the cut is half-kept.
  const body = redactText(text.slice(0, max + CUT_MARGIN)).replace(SECRET_MEMBER, `$1"${REDACTED}"`);
  return body.length > max || text.length > max + CUT_MARGIN ? { body: body.slice(0, max), truncated: true } : { body, truncated: false };
}

/** Longer than any credential we know (a channel key is ~50 characters, a storefront token ~60). */
const CUT_MARGIN = 1024;

/** The JSON value of a body, or undefined when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
