/**
 * What the request inspector shows of a body, a header or any other text it keeps: secrets replaced
 * by `[redacted]`, so the dev page, the JSON route and the CLI can never show one (docs/sandbox.md
 * "What is kept"). Applied when the inspector is read, never on the request path (store.ts), and
 * to whatever an exchange stores as text: bodies, headers, the agent's profile URL, note messages.
 *
 * Two rules, both needed (issue 39 point 3: 48 of 79 tries got through a regex over the text):
 * - by structure: a JSON body is tokenized (a truncated one too), each member key decoded as JSON
 *   decodes it (`"client_\u0073ecret"` is `client_secret`), and every value under a secret-named key
 *   is replaced whatever its type: string, number, object, array. The tokenizer runs over the whole
 *   kept text before the display cut, so a value that straddles the cut is replaced whole.
 * - by value shape, in every string and in free text: our credentials (`ucp_sk_…`, `sft_…`), bearer
 *   and basic credentials, JWTs, well-known API key formats, secret-named query parameters
 *   (`?token=`, `&client_secret=`, …) and the userinfo of a URL (`https://user:pass@host`).
 */

export const REDACTED = '[redacted]';

/** Words that name a secret wherever they appear in a key: `access_token`, `clientSecret`, `X-Auth-Token`. */
const SECRET_WORDS = new Set([
  'token', 'tokens', 'secret', 'secrets', 'password', 'passwords', 'passwd', 'passphrase', 'pwd', 'pass', 'credential', 'credentials',
  'signature', 'sig', 'authorization', 'auth', 'cookie', 'cookies', 'jwt', 'jwe', 'jws', 'session', 'otp', 'totp', 'hotp', 'hmac', 'mfa',
  'pin', 'cvv', 'cvc', 'apikey', 'privatekey', 'sessionid', 'bearer', 'nonce', 'salt', 'ssn',
]);
/** Word pairs that name a secret together: `api_key`, `private-key`, `channel_key`, `sessionId`. */
const SECRET_PAIRS = new Set(['api key', 'private key', 'channel key', 'access key', 'secret key', 'signing key', 'encryption key', 'session id', 'master key', 'client key', 'account key', 'security token', 'refresh token', 'ep auth', 'ec auth', 'set cookie', 'card number', 'account number']);
/** Substrings that name a secret even glued to other words: `accesstoken`, `clientsecret`, `x-apikey`. */
const SECRET_PARTS = /token|secret|passw|credential|signature|authoriz|cookie|apikey|privatekey|channelkey|accesskey|hmac|jwt/;

const wordsOf = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** Does this key (a JSON member name, a header name, a query parameter) name a secret? */
export function isSecretKey(key: string): boolean {
  if (key.length > 200) return false; // a sentence, not a name
  const words = wordsOf(key);
  if (words.some((w) => SECRET_WORDS.has(w))) return true;
  for (let i = 1; i < words.length; i++) if (SECRET_PAIRS.has(`${words[i - 1]} ${words[i]}`)) return true;
  return SECRET_PARTS.test(words.join(''));
}

/** A query parameter whose value is a credential although its name is not one of the words above. */
const SECRET_PARAMS = new Set(['code', 'key', 'state_token', 'x-amz-security-token', 'x-amz-signature', 'x-amz-credential', 'ep_auth', 'ec_auth', 'st']);

/**
 * A credential after an auth scheme: 8 characters or more, with a digit, an upper-case letter past
 * the first, or one of `+/=_-` (a random token of 16 lower-case letters only: ~1 in 10^7). A word of
 * prose (`capabilities.`, `Tee`) is none of these.
 */
function looksLikeCredential(s: string): boolean {
  return s.length >= 8 && /[0-9A-Z+/=_-]/.test(s.slice(1));
}

/** Credential shapes in free text, each replaced whole (its prefix kept where it helps to read). */
const SECRET_SHAPES: Array<[RegExp, string | ((...m: string[]) => string)]> = [
  [/\bucp_sk_[A-Za-z0-9_-]+/g, `ucp_sk_${REDACTED}`],
  [/\bsft_[0-9a-z]+\.[A-Za-z0-9_.-]+/g, `sft_${REDACTED}`],
  [/\bsft_[A-Za-z0-9_-]{8,}/g, `sft_${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*)?/g, REDACTED], // JWT / JWS
  [/\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{8,}/g, REDACTED], // Stripe-style keys
  [/\bgh[pousr]_[A-Za-z0-9]{16,}/g, REDACTED], // GitHub tokens
  [/\bxox[abposr]-[A-Za-z0-9-]{8,}/g, REDACTED], // Slack tokens
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED], // AWS access key ids
  // An auth scheme and what follows it, when that looks like a credential: prose says "negotiate
  // capabilities" and shops sell a "Basic tee" (both were redacted).
  [/\b(Bearer|Basic|Digest|Token|Negotiate|DPoP|HOBA|Mutual)(\s+)([^\s"',;]+)/gi, (m, scheme: string, sp: string, credential: string) => (looksLikeCredential(credential) ? `${scheme}${sp}${REDACTED}` : m)],
  // userinfo of any URL: scheme://user:pass@host
  [/\b([a-z][a-z0-9+.-]{1,20}:\/\/)[^/@\s"'<>?#]+@/gi, (_m, scheme: string) => `${scheme}${REDACTED}@`],
];

/** `name=value` in a query string, fragment, form body or cookie-like list; the value replaced when the name is a secret's. */
const PARAM = /(^|[?&#;\s])([^=&#;\s"'<>?]{1,100})=([^&#;\s"'<>]*)/g;

export function redactText(text: string): string {
  let out = text;
  for (const [re, to] of SECRET_SHAPES) out = out.replace(re, to as string);
  if (out.includes('=')) {
    out = out.replace(PARAM, (m, lead: string, name: string, value: string) => {
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        /* a malformed escape: judge the name as written */
      }
      return value !== '' && value !== REDACTED && (isSecretKey(decoded) || SECRET_PARAMS.has(decoded.toLowerCase())) ? `${lead}${name}=${REDACTED}` : m;
    });
  }
  return out;
}

/** Request and response headers whose values are credentials although their names are none of the secret words. */
const SECRET_HEADERS = new Set(['proxy-authorization', 'set-cookie', 'signature-input', 'x-amz-security-token', 'x-api-key', 'api-key', 'x-client-secret', 'dpop', 'x-csrf-token', 'x-xsrf-token']);

/** Headers as shown: names lower case, secret values replaced (an Authorization keeps its scheme), the rest redacted by shape. */
export function redactHeaders(headers: Iterable<[string, string]>, limit = 40): Record<string, string> {
  // No prototype: a header named `__proto__` or `constructor` is a header like any other.
  const out: Record<string, string> = Object.create(null);
  let n = 0;
  for (const [name, value] of headers) {
    if (n++ >= limit) break;
    const k = name.toLowerCase();
    let shown: string;
    if (k === 'idempotency-key' || k === 'ucp-agent' || k === 'content-type') {
      shown = redactText(value.slice(0, 512));
    } else if (SECRET_HEADERS.has(k) || isSecretKey(k)) {
      const scheme = /^(\w+)\s/.exec(value)?.[1];
      shown = (k === 'authorization' || k === 'proxy-authorization') && scheme ? `${scheme} ${REDACTED}` : REDACTED;
    } else {
      shown = redactText(value.slice(0, 512));
    }
    // A repeated header is shown as HTTP joins it: its values in order, comma-separated.
    out[k] = k in out ? `${out[k]}, ${shown}` : shown;
  }
  return out;
}

/** Node's `rawHeaders` ([name, value, name, value, …]) as pairs. */
export function* headerPairs(raw: readonly string[]): Generator<[string, string]> {
  for (let i = 0; i + 1 < raw.length; i += 2) yield [raw[i], raw[i + 1]];
}

/* ------------------------------------------------------------------ bodies, by structure */

const WS = /[\s]/;

/** The end of the JSON string starting at `i` (its closing quote + 1), or the text's end when it is cut. */
function stringEnd(t: string, i: number): number {
  for (let j = i + 1; j < t.length; j++) {
    const ch = t.charCodeAt(j);
    if (ch === 92) j++; // backslash: skip the escaped character
    else if (ch === 34) return j + 1;
  }
  return t.length;
}

/** The end of the JSON value starting at `i` (any type), or the text's end when it is cut. */
function valueEnd(t: string, i: number): number {
  const first = t[i];
  if (first === '"') return stringEnd(t, i);
  if (first !== '{' && first !== '[') {
    let j = i;
    while (j < t.length && !/[,\]}\s]/.test(t[j])) j++;
    return j;
  }
  let depth = 0;
  for (let j = i; j < t.length; j++) {
    const ch = t[j];
    if (ch === '"') j = stringEnd(t, j) - 1;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return t.length;
}

/** A string token's text as JSON decodes it (a cut one as far as it goes). */
function decodeString(token: string): string {
  try {
    return JSON.parse(token.endsWith('"') && token.length > 1 ? token : `${token.replace(/\\(u[0-9a-fA-F]{0,3})?$/, '')}"`) as string;
  } catch {
    return token.slice(1);
  }
}

/** A string token with credential shapes replaced; escapes decoded first, so `ucp\u005fsk_…` is found too. */
function redactStringToken(token: string): string {
  if (!token.includes('\\')) return redactText(token);
  const decoded = decodeString(token);
  const redacted = redactText(decoded);
  return redacted === decoded ? token : JSON.stringify(redacted);
}

/**
 * A JSON text (whole or cut) with every value under a secret-named key replaced by `"[redacted]"`
 * and credential shapes replaced in every string. Linear in the text; never throws.
 */
export function redactJsonText(t: string): string {
  const out: string[] = [];
  /** Per open container: is it an object, and does it expect a key next? */
  const stack: Array<{ object: boolean; expectKey: boolean }> = [];
  let key: string | null = null;
  let i = 0;
  let from = 0;
  while (i < t.length) {
    const ch = t[i];
    const top = stack[stack.length - 1];
    if (WS.test(ch) || ch === ',' || ch === ':') {
      if (ch === ',' && top?.object) top.expectKey = true;
      i++;
      continue;
    }
    if (ch === '{' || ch === '[') {
      if (top?.object && !top.expectKey && key !== null && isSecretKey(key)) {
        const end = valueEnd(t, i);
        out.push(t.slice(from, i), `"${REDACTED}"`);
        i = from = end;
        if (top) top.expectKey = false;
        key = null;
        continue;
      }
      stack.push({ object: ch === '{', expectKey: ch === '{' });
      key = null;
      i++;
      continue;
    }
    if (ch === '}' || ch === ']') {
      stack.pop();
      i++;
      continue;
    }
    const end = valueEnd(t, i);
    if (top?.object && top.expectKey && ch === '"') {
      key = decodeString(t.slice(i, end));
      top.expectKey = false;
      const shown = redactStringToken(t.slice(i, end));
      out.push(t.slice(from, i), shown);
    } else if (top?.object && key !== null && isSecretKey(key)) {
      out.push(t.slice(from, i), `"${REDACTED}"`);
      key = null;
    } else {
      out.push(t.slice(from, i), ch === '"' ? redactStringToken(t.slice(i, end)) : t.slice(i, end));
      key = null;
    }
    i = from = Math.max(end, i + 1);
  }
  out.push(t.slice(from));
  return out.join('');
}

/**
 * A kept body as shown: JSON by structure, anything else by shape, then cut to `max` characters.
 * `cut` says the kept text was already only the beginning of the body.
 */
export function redactBody(text: string, max: number, cut = false): { body: string; truncated: boolean } {
  const trimmed = text.trimStart();
  const redacted = trimmed.startsWith('{') || trimmed.startsWith('[') ? redactJsonText(text) : redactText(text);
  return redacted.length > max || cut ? { body: redacted.slice(0, max), truncated: true } : { body: redacted, truncated: false };
}

/** The JSON value of a body, or undefined when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
