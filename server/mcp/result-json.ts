/**
 * A tool result carries the UCP body twice: as `structuredContent` and, as MCP asks of tools that
 * return structured content, as its JSON text in `content[0].text`. Serializing the JSON-RPC answer
 * naively stringifies the body a second time (and escapes the first copy): measured, the second
 * stringify was the largest single cost MCP adds to a search (docs/benchmarks.md). `toolResult`
 * remembers each text it made from a body; `answerJson` writes that text in place of
 * re-serializing `structuredContent`. The SDK validates results (a shallow copy of the same
 * values, same key order), so the text is still exactly that object's JSON.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { toJson } from '../lib/json-fragments.ts';

/**
 * Texts made by toolResult and not yet written; bounded in case an answer is never written. An array
 * searched with `===`, not a Set: the SDK hands back the very same string, so each comparison is a
 * pointer check, where a Set hashes every character of a body (6-13 µs per search answer, measured).
 */
const made: string[] = [];
const MAX_PENDING = 256;

function forget(text: string): boolean {
  const i = made.lastIndexOf(text);
  if (i < 0) return false;
  made[i] = made[made.length - 1];
  made.pop();
  return true;
}

/** The MCP result for a UCP body: the body as structuredContent and as JSON text. */
export function toolResult(body: object, extra: { isError?: true } = {}) {
  const text = toJson(body);
  if (made.length >= MAX_PENDING) made.length = 0;
  made.push(text);
  return { content: [{ type: 'text' as const, text }], structuredContent: body as Record<string, unknown>, ...extra };
}

/** One JSON-RPC message as JSON, writing a tool result's body once. */
export function answerJson(m: JSONRPCMessage): string {
  if ('result' in m && m.id !== undefined) {
    const { content, structuredContent, ...rest } = m.result as { content?: unknown; structuredContent?: unknown; [k: string]: unknown };
    const item = Array.isArray(content) && content.length === 1 ? (content[0] as { type?: unknown; text?: unknown }) : undefined;
    if (structuredContent !== undefined && item?.type === 'text' && typeof item.text === 'string' && forget(item.text)) {
      const others = Object.keys(rest).length > 0 ? `,${JSON.stringify(rest).slice(1, -1)}` : '';
      return `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"content":[{"type":"text","text":${JSON.stringify(item.text)}}],"structuredContent":${item.text}${others}}}`;
    }
  }
  return JSON.stringify(m);
}
