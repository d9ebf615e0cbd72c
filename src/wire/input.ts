/**
 * What any input must be before a schema even looks at it, one rule for every edge (UCP REST and
 * MCP operations, merchant API, GraphQL parameters, OAuth forms; docs/security.md):
 *
 * - text every store accepts: PostgreSQL refuses U+0000 in `text`/`jsonb` and a lone UTF-16
 *   surrogate (`"\ud800"`, legal in JSON, not in Unicode) in `jsonb`;
 * - bounded: no string longer than the edge's limit (extension fields of open UCP objects
 *   included, which no schema names), no nesting deeper than {@link MAX_DEPTH}.
 *
 * {@link inputProblem} finds the first violation with its JSONPath; the edge answers 400 naming
 * the field, before anything is stored.
 */

/** `$.line_items[0].item.id` from a path of keys and indexes. */
export function jsonPath(path: ReadonlyArray<PropertyKey>, root = '$'): string {
  return path.reduce<string>((acc, seg) => {
    if (typeof seg === 'number') return `${acc}[${seg}]`;
    const s = String(seg);
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? `${acc}.${s}` : `${acc}['${s.replace(/'/g, "\\'").replace(/\0/g, '\\u0000')}']`;
  }, root);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored, or null when it can. */
export function textProblem(s: string): string | null {
  if (s.includes('\0')) return 'Text must not contain the NUL character (U+0000).';
  if (LONE_SURROGATE.test(s)) return 'Text must be valid Unicode: it contains a lone UTF-16 surrogate (e.g. \\ud800 without its pair).';
  return null;
}

/** Deepest nesting accepted anywhere (a UCP request needs 6). */
export const MAX_DEPTH = 32;
/** Longest string in a UCP request (shopper- and agent-supplied, often anonymous): any field, known or not. */
export const MAX_UCP_STRING_LENGTH = 4096;
/** Longest string in a merchant API body (product descriptions are long; the merchant is authenticated). */
export const MAX_MERCHANT_STRING_LENGTH = 65_536;

export interface InputRules {
  /** JSONPath root of the reported path. Default `$`. */
  root?: string;
  /** Longest string (or object key) accepted, in UTF-16 code units. Default: no limit here. */
  maxString?: number;
}

/** The first string, object key or nesting level (depth-first) that cannot be accepted, with its JSONPath; or null. */
export function inputProblem(value: unknown, rules: InputRules = {}): { path: string; content: string } | null {
  const maxString = rules.maxString ?? Number.POSITIVE_INFINITY;
  const stringProblem = (s: string) =>
    s.length > maxString ? `Text must be at most ${maxString} characters (this is ${s.length}).` : textProblem(s);
  const path: PropertyKey[] = [];
  const walk = (v: unknown, depth: number): string | null => {
    if (typeof v === 'string') return stringProblem(v);
    if (v === null || typeof v !== 'object') return null;
    if (depth >= MAX_DEPTH) return `Nested deeper than ${MAX_DEPTH} levels.`;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        const p = walk(v[i], depth + 1);
        if (p) return p;
        path.pop();
      }
      return null;
    }
    for (const k of Object.keys(v)) {
      path.push(k);
      const p = stringProblem(k) ?? walk((v as Record<string, unknown>)[k], depth + 1);
      if (p) return p;
      path.pop();
    }
    return null;
  };
  const content = walk(value, 0);
  return content ? { path: jsonPath(path, rules.root), content } : null;
}

/**
 * Whether a JSON text nests arrays or objects deeper than `max` levels ({@link MAX_DEPTH}, the rule
 * {@link inputProblem} holds parsed values to), found by scanning the text before `JSON.parse`
 * builds anything: a 256 KiB `[[[…]]]` costs megabytes of heap once parsed, nothing here. Brackets
 * inside strings do not count. The text need not be valid JSON (the parse that follows says so).
 */
export function jsonNestedTooDeep(text: string, max: number = MAX_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
