/**
 * The one validation helper: a value against a zod schema (the wire schemas in src/wire are
 * zod/mini, the stored formats in core are classic zod; both are zod core types), every bad field
 * reported as a FieldIssue with an RFC 9535 JSONPath. Edges differ only in the error code they
 * answer with (`invalid_request` on UCP, `validation_failed` on the merchant API) and whether the
 * text rule (src/wire/input.ts) runs first.
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { inputProblem, jsonPath } from '../../../src/wire/input.ts';
import { ERROR_CODES, InvalidRequest, type FieldIssue } from './errors.ts';

z.config(en());

export interface ValidateOptions {
  /** The InvalidRequest code (default `validation_failed`). */
  code?: string;
  /** Where paths start (`$`, or `$.arguments` for MCP tool arguments). */
  root?: string;
  /** Apply the text rule (no NUL or lone surrogates, depth, this string length) before the schema. */
  maxString?: number;
}

/**
 * zod's issues as field issues: codes are `invalid_<zod code>`; an unknown key becomes one issue at
 * its own path (`$.extra`, code `unrecognized_key`) rather than one at the object naming them all.
 */
export function fieldIssues(error: z.core.$ZodError, root = '$'): FieldIssue[] {
  return error.issues.flatMap((i): FieldIssue[] =>
    i.code === 'unrecognized_keys'
      ? i.keys.map((k) => ({ path: jsonPath([...i.path, k], root), code: 'unrecognized_key', content: `Unknown field ${k}.` }))
      : [{ path: jsonPath(i.path, root), code: i.code.startsWith('invalid_') ? i.code : `invalid_${i.code}`, content: i.message }],
  );
}

/** Parses `value` with `schema`, or throws InvalidRequest naming every bad field. */
export function validate<T extends z.core.$ZodType>(schema: T, value: unknown, opts: ValidateOptions = {}): z.core.output<T> {
  const code = opts.code ?? ERROR_CODES.validationFailed;
  const root = opts.root ?? '$';
  if (opts.maxString !== undefined) {
    const bad = inputProblem(value, { root, maxString: opts.maxString });
    if (bad) throw new InvalidRequest(code, `The request has 1 invalid field: ${bad.path} (${bad.content})`, [{ path: bad.path, code: 'invalid_character', content: bad.content }]);
  }
  const r = z.safeParse(schema, value);
  if (r.success) return r.data;
  const issues = fieldIssues(r.error, root);
  throw new InvalidRequest(code, `The request has ${issues.length} invalid field${issues.length === 1 ? '' : 's'}: ${issues.map((i) => `${i.path} (${i.content})`).join('; ')}`, issues);
}
