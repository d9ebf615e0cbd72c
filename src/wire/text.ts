/**
 * Text every store accepts. PostgreSQL refuses U+0000 in `text`/`jsonb` and a lone UTF-16
 * surrogate (`"\ud800"`, legal in JSON, not in Unicode) in `jsonb`; such input is the caller's
 * mistake, so every edge (REST and MCP operations, merchant API, GraphQL variables, OAuth forms)
 * scans its parsed input with {@link unacceptableText} and answers 400 naming the field, before
 * anything is stored. One rule, one place (docs/security.md).
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

/** Deeper than any input we accept; the schemas refuse such nesting anyway. */
const MAX_DEPTH = 64;

/** The first string or object key (depth-first) that cannot be stored, with its JSONPath; or null. */
export function unacceptableText(value: unknown, root = '$'): { path: string; content: string } | null {
  const path: PropertyKey[] = [];
  const walk = (v: unknown, depth: number): string | null => {
    if (typeof v === 'string') return textProblem(v);
    if (v === null || typeof v !== 'object' || depth > MAX_DEPTH) return null;
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
      const p = textProblem(k) ?? walk((v as Record<string, unknown>)[k], depth + 1);
      if (p) return p;
      path.pop();
    }
    return null;
  };
  const content = walk(value, 0);
  return content ? { path: jsonPath(path, root), content } : null;
}
