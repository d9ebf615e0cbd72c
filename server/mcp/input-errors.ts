/**
 * Tool input mistakes as MCP tool execution errors (docs/mcp.md "Which failures are results"): a
 * result with `isError: true` that MCP clients hand to the model, instead of a JSON-RPC error they
 * throw. `structuredContent` is a UCP error_response whose messages carry the JSONPath of each bad
 * field (rooted at `arguments`) and say what to send instead: a missing field gets its description,
 * and unknown fields beside it are named with the fields that object takes (from the tool's
 * published input schema, which is generated from the wire schemas).
 */
import type { Message } from '../../src/wire/common.ts';
import { InvalidRequest, severityOf, type FieldIssue } from '../core/shared/errors.ts';
import { UCP_VERSION } from '../version.ts';

type JsonSchema = { properties?: Record<string, JsonSchema>; items?: JsonSchema; description?: string; [k: string]: unknown };

/** `$.cart.line_items[0]['idempotency-key']` → ['cart', 'line_items', 0, 'idempotency-key']. */
export function pathSegments(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]/g;
  for (let m = re.exec(path); m; m = re.exec(path)) out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3].replace(/\\'/g, "'")));
  return out;
}

function at(value: unknown, schema: JsonSchema | undefined, segs: Array<string | number>): { value: unknown; schema: JsonSchema | undefined } {
  let v = value;
  let s = schema;
  for (const seg of segs) {
    v = v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[seg] : undefined;
    s = typeof seg === 'number' ? s?.items : s?.properties?.[seg];
  }
  return { value: v, schema: s };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Unknown keys of `value` that sit beside a missing field, named with the fields the object takes. */
function siblingsNote(value: unknown, schema: JsonSchema | undefined): string {
  if (!isPlainObject(value) || !schema?.properties) return '';
  const known = Object.keys(schema.properties);
  const unknown = Object.keys(value).filter((k) => !known.includes(k));
  if (!unknown.length) return '';
  return ` Unknown field${unknown.length > 1 ? 's' : ''} here: ${unknown.slice(0, 5).join(', ')}; this object takes ${known.join(', ')}.`;
}

/** Each issue's content, completed with what to send (the field's description, unknown neighbours). */
export function explainIssues(issues: FieldIssue[], args: unknown, inputSchema: JsonSchema): FieldIssue[] {
  return issues.map((issue) => {
    const segs = pathSegments(issue.path);
    const field = at(args, inputSchema, segs);
    let content = /[.!?]$/.test(issue.content) ? issue.content : `${issue.content}.`;
    if (field.value === undefined && segs.length) {
      const parent = at(args, inputSchema, segs.slice(0, -1));
      if (field.schema?.description) content += ` Send ${issue.path.replace(/^\$\.?/, '') || 'it'}: ${field.schema.description}`;
      content += siblingsNote(parent.value, parent.schema);
    }
    return { ...issue, content };
  });
}

/** Top-level arguments the tool does not take → issues naming the ones it does. */
export function unknownArguments(tool: string, args: Record<string, unknown>, inputSchema: JsonSchema): InvalidRequest | undefined {
  const known = Object.keys(inputSchema.properties ?? {});
  const unknown = Object.keys(args).filter((k) => !known.includes(k));
  if (!unknown.length) return undefined;
  const takes = known.map((k) => `${k} (${inputSchema.properties![k].description ?? ''})`).join('; ');
  return new InvalidRequest(
    'invalid_request',
    `${tool} does not take ${unknown.map((k) => `\`${k}\``).join(', ')}. Its arguments: ${takes}`,
    unknown.map((k) => ({ path: `$.${k}`, code: 'unknown_argument', content: `Unknown argument \`${k}\`; ${tool} takes ${known.join(', ')}.` })),
  );
}

/** The MCP result for an input mistake: `isError`, readable text, and a UCP error_response. */
export function inputErrorResult(err: InvalidRequest, args: unknown, inputSchema: JsonSchema | undefined) {
  const issues = inputSchema ? explainIssues(err.issues, args, inputSchema) : err.issues;
  const severity = severityOf(err);
  const messages: Message[] = issues.length
    ? issues.map((i) => ({ type: 'error', code: i.code, path: i.path, content: i.content, severity }))
    : [{ type: 'error', code: err.code, content: err.message, severity }];
  const body = { ucp: { version: UCP_VERSION, status: 'error' as const, capabilities: {} }, messages };
  const text = [err.message, ...issues.map((i) => `- ${i.path}: ${i.content}`)].join('\n');
  return {
    isError: true,
    content: [{ type: 'text' as const, text }],
    structuredContent: body,
  };
}
