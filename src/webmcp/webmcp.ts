/**
 * The WebMCP chunk (`host-webmcp-<hash>.js`), loaded by src/host/webmcp-gate.ts only when the page
 * has `document.modelContext`. Reads the shop's tool list (`/ucp/webmcp.json`: names, descriptions,
 * JSON Schemas generated on the server from src/wire, annotations; a 404 there means the shop has
 * switched WebMCP off) and registers each tool with its handler from ./tools.ts. Nothing here
 * throws or logs: a failed load registers nothing, a failing call returns an `isError` result.
 */
import { handlers, type Deps, type Handler, type ToolClient } from './tools.ts';
import { outcome, type ToolResult } from './results.ts';

interface ToolDef {
  name: string;
  title?: string;
  description: string;
  inputSchema: object;
  annotations?: object;
}
interface ModelContext {
  registerTool(tool: ToolDef & { execute(input: unknown, client?: ToolClient): Promise<ToolResult> }): Promise<void> | void;
}

/** Runs a handler so that it never throws (a thrown error reaches the agent as an opaque failure and is logged). */
export const guarded = (run: Handler) => async (input: unknown, client?: ToolClient): Promise<ToolResult> => {
  try {
    return await run(typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {}, client ?? {});
  } catch (e) {
    return outcome('internal_error', `The page could not complete this call (${e instanceof Error ? e.message : String(e)}).`);
  }
};

export async function registerTools(mc: object, deps: Deps): Promise<void> {
  let list: { tools?: ToolDef[] };
  try {
    const res = await fetch(`${deps.store.origin}/ucp/webmcp.json`, { credentials: 'omit' });
    if (!res.ok) return;
    list = await res.json();
  } catch {
    return;
  }
  const run = handlers(deps);
  for (const t of list.tools ?? []) {
    const h = run[t.name];
    if (!h) continue;
    // A second copy of host.js on the page (its entry and its hashed twin) finds the names taken: fine.
    try {
      await (mc as ModelContext).registerTool({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations, execute: guarded(h) });
    } catch {}
  }
}
