/**
 * Errors the domain core raises. Transports map them: REST to a status and a flat body or a UCP
 * error_response, MCP to a JSON-RPC error or a result. The core never knows about HTTP.
 */

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
