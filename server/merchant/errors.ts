/**
 * The merchant API's one error table: every failure leaves as
 * `{ "error": { "code", "message", "details"?, "required_scope"? } }` with the status its kind
 * maps to here. Schema violations are 422 (the body was JSON, its content is wrong); malformed
 * requests (not JSON, bad parameters, bad text) are 400.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { REST_STATUS } from '../http/errors.ts';
import { DomainError, isInvalidText, logCause, toDomainError, UNAVAILABLE, type ErrorKind } from '../core/shared/errors.ts';

/** UCP REST's table, but a schema violation is 422: the body was JSON, its content is wrong. */
export const MERCHANT_STATUS: Record<ErrorKind, ContentfulStatusCode> = { ...REST_STATUS, invalid: 422 };

/** The envelope for a domain error (`required_scope` for a 403 naming the missing scope). */
export function envelope(c: Context, e: DomainError, extra: { required_scope?: string } = {}): Response {
  const details = e.issues.length ? e.issues.map((d) => ({ path: d.path, code: d.code, message: d.content })) : undefined;
  if (e.kind === 'unavailable') c.header('Retry-After', String(UNAVAILABLE.retryAfterSeconds));
  return c.json({ error: { code: e.code, message: e.message, ...(details ? { details } : {}), ...extra } }, MERCHANT_STATUS[e.kind]);
}

/** Anything a merchant route threw, as a domain error (database failures included); unexpected ones are logged. */
export function asDomainError(err: unknown): DomainError {
  // PostgreSQL refuses U+0000 in text (PGlite accepts it): the input, not the server, is wrong.
  if (isInvalidText(err)) return new DomainError('invalid', 'validation_failed', 'Text must not contain the NUL character (U+0000).');
  const e = toDomainError(err, 'merchant-api');
  logCause('merchant-api', e);
  return e;
}
