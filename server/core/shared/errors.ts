/**
 * The one error family. Everything the server refuses on purpose is a DomainError with a `kind`
 * (what sort of failure, transport-neutral) and a `code` (what exactly, stable, for programs).
 * Each edge maps a kind to its own answer once, in one table: UCP REST in http/errors.ts, MCP in
 * mcp/errors.ts, the merchant API in merchant/errors.ts. The core never knows about HTTP.
 */
import { SEVERITY_OF_KIND, type ErrorKind, type Severity } from '../../../src/wire/errors.ts';
import { log } from '../../lib/log.ts';
import { requestUnavailable } from '../../lib/outage.ts';

// The kinds and their severities live in the shared wire module, so the browser's WebMCP tools and
// the typed client apply the same rule (docs/errors.md "One vocabulary").
export { SEVERITY_OF_KIND, type ErrorKind, type Severity };

/** The codes the core itself raises, exported once so edges and tests name them, not retype them. */
export const ERROR_CODES = {
  validationFailed: 'validation_failed',
  invalidRequest: 'invalid_request',
  invalidJson: 'invalid_json',
  /** An import file that cannot be read as its format (server/import/adapter.ts ImportParseError). */
  invalidFile: 'invalid_file',
  /** An import asked for what cannot be done (a new shop without a domain, another currency): server/import/run.ts. */
  importRefused: 'import_refused',
  /** The client stopped sending its request body before it ended. */
  requestAborted: 'request_aborted',
  requestTooLarge: 'request_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  notFound: 'not_found',
  idempotencyConflict: 'idempotency_conflict',
  customerExists: 'customer_exists',
  capabilitiesIncompatible: 'capabilities_incompatible',
  serviceUnavailable: 'service_unavailable',
  internalError: 'internal_error',
} as const;

/**
 * The answer when the database cannot be reached (restart, failover, pool exhausted): the same
 * code, words and retry hint on every edge (UCP REST, MCP, merchant API); nothing was written.
 */
export const UNAVAILABLE = { code: ERROR_CODES.serviceUnavailable, content: 'The store is temporarily unavailable; retry shortly.', retryAfterSeconds: 2 } as const;

/** What an edge answers for a failure it did not expect: logged, never described. */
export const INTERNAL = { code: ERROR_CODES.internalError, content: 'An internal error occurred; it has been logged.' } as const;

/** One offending field, with an RFC 9535 JSONPath into the request (e.g. `$.line_items[0].quantity`). */
export interface FieldIssue {
  path: string;
  code: string;
  content: string;
}

/** The severity every message of this refusal carries: its own when it has one (a business outcome), else its kind's. */
export function severityOf(err: DomainError): Severity {
  return err instanceof BusinessError ? err.severity : SEVERITY_OF_KIND[err.kind];
}

/** The base of every deliberate refusal: a kind for the edges' tables, a code, words, and the fields at fault. */
export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly issues: FieldIssue[] = [],
  ) {
    super(message);
  }
}

/** The request cannot be processed as sent (shape, limits): every field named. */
export class InvalidRequest extends DomainError {
  constructor(code: string, message: string, issues: FieldIssue[] = []) {
    super('invalid', code, message, issues);
  }
}

/** A batch or list over a documented limit. REST: 400 `request_too_large`; MCP: -32602. (A body over its byte limit is kind `too_large`.) */
export class RequestTooLarge extends InvalidRequest {
  constructor(message: string, issues: FieldIssue[] = []) {
    super(ERROR_CODES.requestTooLarge, message, issues);
  }
}

/** A write that collides with what exists (an e-mail taken, an idempotency key reused). */
export class Conflict extends DomainError {
  constructor(code: string, message: string) {
    super('conflict', code, message);
  }
}

/**
 * A business outcome with no resource to return (unknown product or cart, invalid customizations):
 * UCP answers these with a 200 `error_response` carrying messages, whatever the kind.
 */
export class BusinessError extends DomainError {
  constructor(
    code: string,
    message: string,
    issues: FieldIssue[] = [],
    readonly severity: Severity = 'unrecoverable',
    kind: ErrorKind = code === ERROR_CODES.notFound ? 'not_found' : 'invalid',
  ) {
    super(kind, code, message, issues);
  }
}

/**
 * Logs what lies behind a refusal the caller cannot act on (an unreachable store, an internal
 * failure), once, at the edge that answers it; refusals of the caller's request are not logged.
 */
export function logCause(edge: string, err: DomainError): void {
  if (err.cause !== undefined && (err.kind === 'unavailable' || err.kind === 'internal')) log.error(edge, err.code, { err: err.cause });
}

/**
 * Anything a handler threw, as a domain error: a refusal as it is, an unreachable database as
 * UNAVAILABLE, anything else logged (naming the edge) and answered as INTERNAL, never described.
 * Each edge words text its database refused (`isInvalidText`) itself, before this.
 */
export function toDomainError(err: unknown, edge: string): DomainError {
  if (err instanceof DomainError) return err;
  // The client stopped sending its body (a proxy's size cutoff, a closed tab): its mistake, not an outage.
  if (isClientAbort(err)) return new DomainError('malformed', ERROR_CODES.requestAborted, 'The request body was cut off before it ended; send it whole.');
  if (isUnavailable(err)) {
    requestUnavailable(edge, err); // the operator sees the outage, counted, and its end (lib/outage.ts)
    return new DomainError('unavailable', UNAVAILABLE.code, UNAVAILABLE.content);
  }
  log.error(edge, 'unhandled error', { err });
  return new DomainError('internal', INTERNAL.code, INTERNAL.content);
}

/** Node's error for a request whose body ended early (`IncomingMessage` 'aborted'), not a socket of the database's. */
export function isClientAbort(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === 'ECONNRESET' && e.message === 'aborted';
}

/** PostgreSQL refused a text value (22021 invalid byte sequence, 22P05 untranslatable character: NUL): the input is at fault. */
export function isInvalidText(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '22021' || code === '22P05';
}

/**
 * Database connection failures are transient: every edge answers UNAVAILABLE, never wrong data.
 * PostgreSQL classes 08 (connection), 53 (resources: too many connections), 57P0x (shutdown,
 * starting up), 40001/40P01 (serialization failure, deadlock: the transaction rolled back, a retry
 * succeeds), 25006 (a write reached a server that became read-only, e.g. a demoted primary: the
 * pool drops that connection and the retry finds the writable host, db/failover.ts); a write
 * refused while commits stall (WRITES_BLOCKED: the synchronous standby is gone, db/write-gate.ts); socket
 * errors; node-postgres's own code-less errors for a dropped or unobtainable connection; and
 * kysely's for a database already closed (a request that arrives while the server stops).
 */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '40001', '40P01', '25006', 'WRITES_BLOCKED'].includes(code)) return true;
  if (code.startsWith('08') || code.startsWith('53')) return true;
  const message = typeof e?.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end|driver has already been destroyed/.test(message);
}
