/**
 * A tool result carries the UCP body twice: as `structuredContent` and, as MCP asks of tools that
 * return structured content, as its JSON text in `content[0].text`. Serializing the JSON-RPC answer
 * naively stringifies the body a second time and escapes the first copy: measured, the largest single
 * costs MCP adds to a search (docs/benchmarks.md). `toolResult` makes the text and its escaped form
 * together from remembered pieces (server/lib/json-fragments.ts) and keeps both until the answer is
 * written; `answerJson` writes them in place of re-serializing `structuredContent` and escaping the
 * text. The SDK validates results (a shallow copy of the same values, same key order), so the text
 * is still exactly that object's JSON.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { rememberedJson, toJsonWithEscaped } from '../lib/json-fragments.ts';

/**
 * Texts made by toolResult and not yet written, with their escaped forms; bounded in case an answer
 * is never written. Searched with `===`, not hashed: the SDK hands back the very same string, so each
 * comparison is a pointer check, where a Set hashes every character of a body (6-13 µs per search
 * answer, measured).
 */
const pending: Array<{ text: string; escaped: string }> = [];
const MAX_PENDING = 256;

function take(text: string): string | undefined {
  for (let i = pending.length - 1; i >= 0; i--) {
    if (pending[i].text !== text) continue;
    const { escaped } = pending[i];
    pending[i] = pending[pending.length - 1];
    pending.pop();
    return escaped;
  }
  return undefined;
}

/**
 * The MCP result for a UCP body: the body as structuredContent and as JSON text, with `isError` when
 * it is a UCP error_response (nothing was done: MCP's "business logic errors" are tool execution
 * errors; the page's WebMCP tools do the same, docs/mcp.md).
 */
export function toolResult(body: object, extra: { isError?: true } = (body as { ucp?: { status?: unknown } }).ucp?.status === 'error' ? { isError: true } : {}) {
  const made = toJsonWithEscaped(body);
  if (pending.length >= MAX_PENDING) pending.length = 0;
  pending.push(made);
  return { content: [{ type: 'text' as const, text: made.text }], structuredContent: body as Record<string, unknown>, ...extra };
}

/**
 * One JSON-RPC message as JSON, writing a tool result's body once and a remembered result (tools/list)
 * as remembered. `members`: JSON members written at the end of a tool result (the 2026-07-28 era's
 * `resultType` and `_meta`, made once: modern.ts), for a result holding neither; the result is then
 * written as if it held them, in that order after its own.
 */
export function answerJson(m: JSONRPCMessage, members = ''): string {
  if ('result' in m && m.id !== undefined) {
    const known = members ? undefined : rememberedJson(m.result);
    if (known !== undefined) return `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":${known}}`;
    const { content, structuredContent, ...rest } = m.result as { content?: unknown; structuredContent?: unknown; [k: string]: unknown };
    const item = Array.isArray(content) && content.length === 1 ? (content[0] as { type?: unknown; text?: unknown }) : undefined;
    const escaped = structuredContent !== undefined && item?.type === 'text' && typeof item.text === 'string' ? take(item.text) : undefined;
    if (escaped !== undefined) {
      const others = Object.keys(rest).length > 0 ? `,${JSON.stringify(rest).slice(1, -1)}` : '';
      return `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"content":[{"type":"text","text":"${escaped}"}],"structuredContent":${item!.text}${others}${members ? `,${members}` : ''}}}`;
    }
    if (members) return JSON.stringify({ ...m, result: { ...m.result, ...JSON.parse(`{${members}}`) } });
  }
  return JSON.stringify(m);
}
