/**
 * WebMCP tool results (docs/webmcp.md): the UCP body as JSON text and as `structuredContent` — the
 * same bodies as the MCP transport — and `isError` when nothing was done. A refused request's field
 * paths are re-rooted at the tool's arguments (`$.line_items[0]` → `$.cart.line_items[0]`), as the
 * MCP transport does; paths in a business outcome stay rooted at the request body, as over MCP.
 * Nothing here throws: every failure is a result the agent can read.
 */
import type { Result } from '../client/api.ts';
import type { Message } from '../wire/common.ts';
import { gradeMessages, SEVERITY_OF_KIND, type ErrorKind } from '../wire/errors.ts';
import { UCP_VERSION } from '../wire/version.ts';

export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent: object;
  isError?: true;
}

/** A body as a result; `isError` defaults to "this is a UCP error_response". Notes are extra text items. */
export function result(body: object, isError = (body as { ucp?: { status?: string } }).ucp?.status === 'error', notes: string[] = []): ToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }, ...notes.map((text) => ({ type: 'text' as const, text }))],
    structuredContent: body,
    ...(isError ? { isError: true as const } : {}),
  };
}

/**
 * A business outcome decided in the page (no request made), shaped as a UCP error_response, with
 * its kind's severity from the shared rule (src/wire/errors.ts; only this chunk and the agent client
 * load it, not host.js's entry): `not_found` (no cart to act on) and `internal` are unrecoverable;
 * the shopper declining is `forbidden` (the agent cannot change it by retrying).
 */
export function outcome(code: string, content: string, kind: ErrorKind = code === 'not_found' ? 'not_found' : 'internal'): ToolResult {
  return result({ ucp: { version: UCP_VERSION, status: 'error' }, messages: [{ type: 'error', code, content, severity: SEVERITY_OF_KIND[kind] }] }, true);
}

/** Invalid arguments found in the page, shaped as the MCP transport's input mistakes (recoverable). */
export function invalid(path: string, content: string): ToolResult {
  return result({ code: 'invalid_request', content, messages: [{ type: 'error', code: 'invalid_type', path, content, severity: SEVERITY_OF_KIND.invalid }] }, true);
}

/** `$…` → `root…` (`$` alone → root). */
export const reroot = (path: string, root: string) => (path === '$' ? root : path.startsWith('$') ? root + path.slice(1) : path);

const withPaths = (messages: Message[] | undefined, f: (p: string) => string) => messages?.map((m) => (m.path ? { ...m, path: f(m.path) } : m));


/**
 * A REST answer as a result. `line` maps a path of the request the page sent to the agent's own
 * line numbers (create_cart merges the agent's lines into the shopper's cart).
 */
export function fromRest(r: Result<unknown>, root: string, line: (path: string) => string = (p) => p): ToolResult {
  if (r.ok) return result(r.data as object, false);
  const body = r.body as { ucp?: object; code?: string; content?: string; messages?: Message[] } | undefined;
  if (body?.ucp) return result({ ...body, messages: withPaths(body.messages, line) }, true);
  const first = r.messages[0];
  const at = (p: string) => reroot(line(p), root);
  const content = (body?.content ?? first?.content ?? '').replace(/\$[\w.[\]]*/g, at);
  // A flat error (429, 503, no answer) carries no severity: its status's, as the agent client gives it.
  return result({ code: body?.code ?? first?.code ?? 'error', content, messages: withPaths(gradeMessages(r.messages, r.status), at) }, true);
}
