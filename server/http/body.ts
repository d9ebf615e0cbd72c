/**
 * Reading JSON bodies, for every edge (UCP REST and the merchant API): 415 for a wrong content
 * type, 400 for malformed JSON, and optionally the text rule (src/wire/input.ts) on the whole body.
 * Byte limits (413) are enforced before this by body-limit.ts; schemas are applied after, by the
 * one validation helper (core/shared/validate.ts).
 */
import type { Context } from 'hono';
import { DomainError, ERROR_CODES } from '../core/shared/errors.ts';
import type { ValidateOptions } from '../core/shared/validate.ts';
import { inputProblem, MAX_UCP_STRING_LENGTH } from '../../src/wire/input.ts';

/** How UCP bodies and tool arguments are validated: code `invalid_request`, the UCP text rule first. */
export const UCP_INPUT: ValidateOptions = { code: ERROR_CODES.invalidRequest, maxString: MAX_UCP_STRING_LENGTH };

export interface ReadJsonOptions {
  /** An empty body reads as `{}` (UCP's operations without a body); otherwise it is malformed JSON. */
  emptyIsObject?: boolean;
  /** Apply the text rule to the whole body here, failing with this code (the merchant API's `invalid_input`). */
  text?: { maxString: number; code: string };
}

export async function readJson(c: Context, opts: ReadJsonOptions = { emptyIsObject: true }): Promise<unknown> {
  if (!/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(c.req.header('content-type') ?? '')) {
    throw new DomainError('unsupported_media_type', ERROR_CODES.unsupportedMediaType, 'Send the body as application/json.');
  }
  const raw = await c.req.text();
  c.set('bodyText', raw);
  if (opts.emptyIsObject && raw.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch (e) {
    throw new DomainError('malformed', ERROR_CODES.invalidJson, `The body is not valid JSON: ${(e as Error).message}`);
  }
  if (opts.text) {
    const bad = inputProblem(body, { maxString: opts.text.maxString });
    if (bad) throw new DomainError('malformed', opts.text.code, `${bad.path}: ${bad.content}`, [{ path: bad.path, code: 'invalid_character', content: bad.content }]);
  }
  return body;
}
