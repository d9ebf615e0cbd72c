/**
 * How errors leave the UCP REST edge (and the platform's pages): the one table from a domain
 * error's kind to a status. Protocol errors are flat `{code, content}` bodies with that status;
 * business outcomes with no resource are UCP `error_response` envelopes with HTTP 200. Nothing
 * ever leaks a stack trace.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorResponse, Message, ProtocolError } from '../../src/wire/common.ts';
import { BusinessError, DomainError, isInvalidText, logCause, severityOf, toDomainError, UNAVAILABLE, type ErrorKind } from '../core/shared/errors.ts';
import { UCP_VERSION } from '../version.ts';

/** UCP REST's status for each kind of failure (UCP: input mistakes are 400, whatever their cause). */
export const REST_STATUS: Record<ErrorKind, ContentfulStatusCode> = {
  malformed: 400,
  invalid: 400,
  too_large: 413,
  unsupported_media_type: 415,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

/** A refusal's field issues as UCP messages, with the refusal's severity (docs/errors.md: one rule on every edge). */
export function issueMessages(err: DomainError): Message[] {
  const severity = severityOf(err);
  return err.issues.map((i) => ({ type: 'error', code: i.code, path: i.path, content: i.content, severity }));
}

export function protocolError(c: Context, status: ContentfulStatusCode, code: string, content: string, extra: Partial<ProtocolError> = {}, headers: Record<string, string> = {}) {
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  return c.json({ code, content, ...extra } satisfies ProtocolError, status);
}

export function errorResponse(error: BusinessError, capabilities: Record<string, Array<{ version: string }>>, continueUrl?: string): ErrorResponse {
  const messages: Message[] = error.issues.length
    ? error.issues.map((i) => ({ type: 'error', code: i.code, path: i.path, content: i.content, severity: error.severity }))
    : [{ type: 'error', code: error.code, content: error.message, severity: error.severity }];
  return {
    ucp: { version: UCP_VERSION, status: 'error', capabilities },
    messages,
    ...(continueUrl ? { continue_url: continueUrl } : {}),
  };
}

/** Maps anything thrown by a handler to a response. */
export function renderError(err: unknown, c: Context): Response {
  // Reaching here with a business outcome means a transport forgot its own envelope; still a 200.
  if (err instanceof BusinessError) return c.json(errorResponse(err, {}), 200);
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    return protocolError(c, status, status === 413 ? 'request_too_large' : 'http_error', err.message || 'Request failed.');
  }
  if (isInvalidText(err)) {
    return protocolError(c, 400, 'invalid_request', 'The request contains text the store cannot accept (e.g. the NUL character U+0000).');
  }
  return domainError(c, toDomainError(err, 'server'));
}

/** A domain error as `{code, content, messages?}` with its kind's status (and Retry-After when waiting helps). */
function domainError(c: Context, err: DomainError): Response {
  logCause('server', err);
  const headers: Record<string, string> = err.kind === 'unavailable' ? { 'Retry-After': String(UNAVAILABLE.retryAfterSeconds) } : {};
  return protocolError(c, REST_STATUS[err.kind], err.code, err.message, err.issues.length ? { messages: issueMessages(err) } : {}, headers);
}

/** 405 for a known path with the wrong method, naming the allowed ones. */
export function methodNotAllowed(allow: string) {
  return (c: Context) => protocolError(c, 405, 'method_not_allowed', `Use ${allow} on this path.`, {}, { Allow: allow });
}
