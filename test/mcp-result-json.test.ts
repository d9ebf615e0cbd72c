/**
 * server/mcp/result-json.ts writes a tool result's body once: the answer must be exactly the JSON
 * of the message, whatever path it takes.
 */
import { describe, expect, it } from 'vitest';
import { specTypeSchemas, type CallToolResult } from '@modelcontextprotocol/server';
import { answerJson, toolResult } from '../server/mcp/result-json.ts';
import { TOOLS_LIST_RESULT } from '../server/mcp/tools.ts';

/** What the SDK (v2) hands its transport: the result validated by its schema, a copy. */
function validated(result: unknown): CallToolResult {
  const r = specTypeSchemas.CallToolResult['~standard'].validate(result);
  if (r.issues) throw new Error(r.issues.map((i) => i.message).join('; '));
  return r.value as CallToolResult;
}

const body = { ucp: { version: '2026-04-08' }, products: [{ id: 'p', title: 'Tee "quoted" \u2028 ✓', price: 2500, tags: [] }], note: 'back\\slash' };

describe('answerJson', () => {
  it('a tool result, after the SDK validated it (a copy), serializes to the same JSON as JSON.stringify', () => {
    const result = validated(toolResult(body));
    const message = { jsonrpc: '2.0' as const, id: 'x-1', result };
    const text = answerJson(message);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(message)));
    expect(JSON.parse(JSON.parse(text).result.content[0].text)).toEqual(body);
  });

  it('a remembered result (the tool list) is written from its remembered text, equal to its JSON', () => {
    const m = { result: TOOLS_LIST_RESULT, jsonrpc: '2.0' as const, id: 'list-1' };
    const text = answerJson(m as never);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(m)));
    expect(text).toContain(`"result":${JSON.stringify(TOOLS_LIST_RESULT)}`);
    expect(Object.isFrozen(TOOLS_LIST_RESULT.tools[0].inputSchema)).toBe(true);
  });

  it('extra result fields (isError) are kept; messages that are not tool results use plain JSON', () => {
    const m = { jsonrpc: '2.0' as const, id: 7, result: validated(toolResult(body, { isError: true })) };
    expect(JSON.parse(answerJson(m))).toEqual(JSON.parse(JSON.stringify(m)));
    const error = { jsonrpc: '2.0' as const, id: 8, error: { code: -32602, message: 'Invalid params' } };
    expect(answerJson(error)).toBe(JSON.stringify(error));
    // A result whose text was not made from its structuredContent is never spliced.
    const foreign = { jsonrpc: '2.0' as const, id: 9, result: { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { b: 2 } } };
    expect(answerJson(foreign)).toBe(JSON.stringify(foreign));
  });

  it('members (the 2026-07-28 resultType and _meta, made once) are written after the result\'s own: the same text as JSON.stringify of the merged result, on every path', () => {
    const members = { resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'n', version: '1' } } };
    const text = JSON.stringify(members).slice(1, -1);
    for (const result of [toolResult(body), toolResult(body, { isError: true }), { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { b: 2 } }]) {
      const m = { jsonrpc: '2.0' as const, id: 'm-1', result };
      expect(answerJson(m as never, text)).toBe(JSON.stringify({ ...m, result: { ...result, ...members } }));
    }
  });
});
