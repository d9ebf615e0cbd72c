/**
 * Reading and validating JSON bodies: 415 for a wrong content type, 400 for malformed JSON, 400
 * naming every bad field (as an RFC 9535 JSONPath) for schema violations. The 413 size limit is
 * enforced before this by the body-limit middleware.
 */
import type { Context } from 'hono';
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { InvalidRequest, type FieldIssue } from '../core/errors.ts';
import { ProtocolFailure } from './errors.ts';
import { jsonPath, inputProblem, MAX_UCP_STRING_LENGTH } from '../../src/wire/input.ts';

z.config(en());

export { jsonPath };

export function zodIssues(error: z.core.$ZodError, root = '$'): FieldIssue[] {
  return error.issues.map((i) => ({ path: jsonPath(i.path, root), code: `invalid_${i.code}`.replace('invalid_invalid_', 'invalid_'), content: i.message }));
}

/** Validates a value against a wire schema; throws InvalidRequest naming each bad field. */
export function validate<T extends z.ZodMiniType>(schema: T, value: unknown, root = '$'): z.infer<T> {
  const bad = inputProblem(value, { root, maxString: MAX_UCP_STRING_LENGTH });
  if (bad) {
    throw new InvalidRequest('invalid_request', `The request has 1 invalid field: ${bad.path} (${bad.content})`, [{ path: bad.path, code: 'invalid_character', content: bad.content }]);
  }
  const r = z.safeParse(schema, value);
  if (r.success) return r.data;
  const issues = zodIssues(r.error, root);
  throw new InvalidRequest(
    'invalid_request',
    `The request has ${issues.length} invalid field${issues.length === 1 ? '' : 's'}: ${issues.map((i) => `${i.path} (${i.content})`).join('; ')}`,
    issues,
  );
}

export async function readJson(c: Context): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(type)) {
    throw new ProtocolFailure(415, { code: 'unsupported_media_type', content: 'Send the body as application/json.' });
  }
  const raw = await c.req.text();
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw new ProtocolFailure(400, { code: 'invalid_json', content: `The body is not valid JSON: ${(e as Error).message}` });
  }
}

export async function readBody<T extends z.ZodMiniType>(c: Context, schema: T): Promise<z.infer<T>> {
  return validate(schema, await readJson(c));
}
