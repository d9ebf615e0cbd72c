/**
 * How errors leave the server. Protocol errors are flat `{code, content}` bodies with a status;
 * business outcomes with no resource are UCP `error_response` envelopes with HTTP 200. Nothing
 * ever leaks a stack trace.
 */
import type { Context } from 'hono';
import { UNAVAILABLE } from '../core/errors.ts';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { UCP_VERSION, type ErrorResponse, type Message, type ProtocolError } from '../../src/wire/common.ts';
import { BusinessError, InvalidRequest, type FieldIssue } from '../core/errors.ts';

export function issueMessages(issues: FieldIssue[]): Message[] {
  return issues.map((i) => ({ type: 'error', code: i.code, path: i.path, content: i.content, severity: 'unrecoverable' }));
}

/** A protocol error raised from anywhere in a handler; rendered by `onError`. */
export class ProtocolFailure extends HTTPException {
  constructor(
    status: ContentfulStatusCode,
    readonly body: ProtocolError,
    readonly headers: Record<string, string> = {},
  ) {
    super(status, { message: body.content });
  }
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
  if (err instanceof ProtocolFailure) return protocolError(c, err.status as ContentfulStatusCode, err.body.code, err.body.content, err.body, err.headers);
  if (err instanceof InvalidRequest) {
    return protocolError(c, 400, err.code, err.message, err.issues.length ? { messages: issueMessages(err.issues) } : {});
  }
  if (err instanceof BusinessError) {
    // Reaching here means a transport forgot to render it in its own envelope; still a 200 business outcome.
    return c.json(errorResponse(err, {}), 200);
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    return protocolError(c, status, status === 413 ? 'request_too_large' : 'http_error', err.message || 'Request failed.');
  }
  if (isInvalidText(err)) {
    return protocolError(c, 400, 'invalid_request', 'The request contains text the store cannot accept (e.g. the NUL character U+0000).');
  }
  if (isUnavailable(err)) {
    return protocolError(c, 503, UNAVAILABLE.code, UNAVAILABLE.content, {}, { 'Retry-After': String(UNAVAILABLE.retryAfterSeconds) });
  }
  console.error('[server] unhandled error', err);
  return protocolError(c, 500, 'internal_error', 'An internal error occurred; it has been logged.');
}

/** PostgreSQL refused a text value (22021 invalid byte sequence, 22P05 untranslatable character: NUL). */
export function isInvalidText(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '22021' || code === '22P05';
}

/**
 * Database connection failures are transient: 503 + Retry-After, never wrong data. PostgreSQL
 * classes 08 (connection), 53 (resources: too many connections), 57P0x (shutdown, starting up),
 * 40001/40P01 (serialization failure, deadlock: the transaction rolled back, a retry succeeds);
 * socket errors; and node-postgres's own code-less errors for a dropped or unobtainable connection.
 */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '40001', '40P01'].includes(code)) return true;
  if (code.startsWith('08') || code.startsWith('53')) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end/.test(message);
}

/** 405 for a known path with the wrong method, naming the allowed ones. */
export function methodNotAllowed(allow: string) {
  return (c: Context) => protocolError(c, 405, 'method_not_allowed', `Use ${allow} on this path.`, {}, { Allow: allow });
}
