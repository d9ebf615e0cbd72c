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

z.config(en());

/** `$.line_items[0].item.id` from zod's path array. */
export function jsonPath(path: ReadonlyArray<PropertyKey>, root = '$'): string {
  return path.reduce<string>((acc, seg) => {
    if (typeof seg === 'number') return `${acc}[${seg}]`;
    const s = String(seg);
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? `${acc}.${s}` : `${acc}['${s.replace(/'/g, "\\'")}']`;
  }, root);
}

export function zodIssues(error: z.core.$ZodError, root = '$'): FieldIssue[] {
  return error.issues.map((i) => ({ path: jsonPath(i.path, root), code: `invalid_${i.code}`.replace('invalid_invalid_', 'invalid_'), content: i.message }));
}

/**
 * The path of the first string (or object key) holding U+0000, or null. PostgreSQL refuses NUL in
 * `text` and `jsonb` (PGlite is laxer), so such input is a 400 here rather than a database error.
 */
function nulPath(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = nulPath(value[i], `${path}[${i}]`, depth + 1);
      if (p) return p;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k.includes('\u0000')) return `${path}.${k.replace(/\u0000/g, '\\u0000')}`;
    const p = nulPath(v, `${path}.${k}`, depth + 1);
    if (p) return p;
  }
  return null;
}

/** Validates a value against a wire schema; throws InvalidRequest naming each bad field. */
export function validate<T extends z.ZodMiniType>(schema: T, value: unknown, root = '$'): z.infer<T> {
  const nul = nulPath(value, root);
  if (nul) {
    throw new InvalidRequest('invalid_request', `The request has 1 invalid field: ${nul} (text must not contain the NUL character U+0000)`, [
      { path: nul, code: 'invalid_character', content: 'Text must not contain the NUL character (U+0000).' },
    ]);
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
