/**
 * The one severity rule (docs/errors.md "One vocabulary"), shared by every transport: the server's
 * edges (REST, MCP), the page's WebMCP tools and the typed client all give a mistake the severity of
 * its kind from this table, so the same mistake reads the same everywhere. No zod here: the client
 * and host.js import these values into their bundles.
 *
 * UCP's message_error.json says what severity means: `recoverable` = the platform can resolve it by
 * changing its inputs and retrying through the API; `unrecoverable` = no valid resource exists to act
 * on (retry with a new resource); `requires_buyer_input` / `requires_buyer_review` = only the buyer
 * can resolve it. So: every mistake in what was sent (shape, limits, a key reused, a header missing),
 * and every "wait and retry" (429, 503, a dropped connection), is `recoverable`; a resource that does
 * not exist (an unknown product or cart), a refusal the caller cannot change (403) and the server's own
 * failure are `unrecoverable`. The core overrides this only where it knows more: a line whose variant is
 * unknown or sold out is `recoverable` (change that line), a required customization is
 * `requires_buyer_input` (ask the buyer), `capabilities_incompatible` is `unrecoverable`.
 */
export type Severity = 'recoverable' | 'requires_buyer_input' | 'requires_buyer_review' | 'unrecoverable';

/**
 * What sort of failure, named the way a caller acts on it (docs/errors.md):
 * fix the request (`malformed`, `invalid`, `too_large`, `unsupported_media_type`), authenticate
 * (`unauthorized`), stop (`forbidden`), look elsewhere (`not_found`), reconcile (`conflict`),
 * wait (`rate_limited`, `unavailable`), or report (`internal`).
 */
export type ErrorKind = 'malformed' | 'invalid' | 'too_large' | 'unsupported_media_type' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'rate_limited' | 'unavailable' | 'internal';

/** The severity of each kind of failure. */
export const SEVERITY_OF_KIND: Record<ErrorKind, Severity> = {
  malformed: 'recoverable',
  invalid: 'recoverable',
  too_large: 'recoverable',
  unsupported_media_type: 'recoverable',
  unauthorized: 'recoverable',
  forbidden: 'unrecoverable',
  not_found: 'unrecoverable',
  conflict: 'recoverable',
  rate_limited: 'recoverable',
  unavailable: 'recoverable',
  internal: 'unrecoverable',
};

/**
 * The kind behind an HTTP status, for a client that sees only the status of a flat protocol error
 * (UCP's `{code, content}` carries no severity). 0 is "no answer" (the network): wait and retry.
 * 422/424 are the negotiation refusals (fix the profile); any other 4xx is the request's to fix.
 */
export function kindOfStatus(status: number): ErrorKind {
  if (status === 0 || status === 503 || status === 502 || status === 504) return 'unavailable';
  if (status === 429) return 'rate_limited';
  if (status === 404 || status === 410) return 'not_found';
  if (status === 403) return 'forbidden';
  if (status === 401) return 'unauthorized';
  if (status === 409) return 'conflict';
  if (status === 413) return 'too_large';
  if (status === 415) return 'unsupported_media_type';
  if (status >= 400 && status < 500) return 'invalid';
  return 'internal';
}

/** The severity a flat protocol error with this HTTP status has (see kindOfStatus). */
export const severityOfStatus = (status: number): Severity => SEVERITY_OF_KIND[kindOfStatus(status)];

/** Error messages without a severity (a flat protocol error, no answer at all) given their status's. */
export function gradeMessages<M extends { type: string; severity?: Severity }>(messages: M[], status: number): M[] {
  return messages.map((m) => (m.type === 'error' && !m.severity ? { ...m, severity: severityOfStatus(status) } : m));
}
