/**
 * Errors the domain core raises. Transports map them: REST to a status and a flat body or a UCP
 * error_response, MCP to a JSON-RPC error or a result. The core never knows about HTTP.
 */

import type { z } from 'zod';

/**
 * The answer when the database cannot be reached (restart, failover, pool exhausted): the same
 * code, words and retry hint on every edge (UCP REST, MCP, merchant API); nothing was written.
 */
export const UNAVAILABLE = { code: 'service_unavailable', content: 'The store is temporarily unavailable; retry shortly.', retryAfterSeconds: 2 } as const;

/** One offending field, with an RFC 9535 JSONPath into the request (e.g. `$.line_items[0].quantity`). */
export interface FieldIssue {
  path: string;
  code: string;
  content: string;
}

/** The request cannot be processed as sent (shape, limits). REST: 400 with every field named. */
export class InvalidRequest extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly issues: FieldIssue[] = [],
  ) {
    super(message);
  }
}

/** A batch or body over a documented limit. REST: 400 `request_too_large`; MCP: -32602. */
export class RequestTooLarge extends InvalidRequest {
  constructor(message: string, issues: FieldIssue[] = []) {
    super('request_too_large', message, issues);
  }
}

/**
 * A business outcome with no resource to return (unknown product or cart, invalid customizations):
 * UCP answers these with a 200 `error_response` carrying messages.
 */
export class BusinessError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly issues: FieldIssue[] = [],
    readonly severity: 'recoverable' | 'requires_buyer_input' | 'requires_buyer_review' | 'unrecoverable' = 'unrecoverable',
  ) {
    super(message);
  }
}

/**
 * zod's issues as field issues. An unknown key becomes one issue at its own path
 * (`$.extra`, code `unrecognized_key`) rather than one at the object naming them all.
 */
export function zodFieldIssues(error: z.ZodError): FieldIssue[] {
  const at = (path: PropertyKey[]) => path.reduce<string>((acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : `${acc}.${String(seg)}`), '$');
  return error.issues.flatMap((i): FieldIssue[] =>
    i.code === 'unrecognized_keys'
      ? i.keys.map((k) => ({ path: at([...i.path, k]), code: 'unrecognized_key', content: `Unknown field ${k}.` }))
      : [{ path: at(i.path), code: i.code, content: i.message }],
  );
}

/** Validates with zod; throws InvalidRequest('validation_failed') naming every bad field. */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = zodFieldIssues(r.error);
  throw new InvalidRequest('validation_failed', `${issues.length} invalid field${issues.length === 1 ? '' : 's'}: ${issues.map((i) => `${i.path} (${i.content})`).join('; ')}`, issues);
}
