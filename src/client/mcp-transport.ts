/**
 * The agent client's MCP transport: the official v2 SDK `Client` (`@modelcontextprotocol/client`)
 * over Streamable HTTP against the shop's `/mcp` endpoint, one connection per client, opened on the
 * first call. Version negotiation `auto`: `server/discover` first, so a server speaking 2026-07-28
 * is used in that era (no `initialize`, the `_meta` envelope on every request), and a 2025-era
 * server through the `initialize` handshake it falls back to (docs/client.md). Each call is the REST
 * operation's twin tool (`search_catalog`, `create_cart`, …) with UCP's call metadata in
 * `arguments.meta`; the tool result's `structuredContent` is the REST body, read like REST.
 *
 * The server also sets the HTTP status on a JSON-RPC error (the UCP MCP binding), which the SDK
 * would only report as an opaque "Streamable HTTP error": the fetch given to the SDK retries
 * 429/503 first (./retry.ts) and then hands a JSON-RPC error body over as a normal answer, with the
 * HTTP status added to `error.data.http_status`, so the caller gets the error's code and messages.
 * Loaded only by `./ucp-client.ts` when `transport: 'mcp'` (never part of host.js).
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Message } from '../wire/common.ts';
import { fail, failureCause, type Result } from './result.ts';

export interface McpCall {
  tool: string;
  args: Record<string, unknown>;
  meta: Record<string, unknown>;
  /** The argument that holds the request body (`cart`, `catalog`), to give paths back rooted at the body. */
  arg?: string;
}

/** A fetch that turns a non-2xx JSON-RPC error answer into a 200 carrying the same error (+ http_status). */
function rpcErrorsAsAnswers(fetchImpl: typeof fetch): typeof fetch {
  return async (input, init) => {
    const res = await fetchImpl(input, init);
    if (res.ok || !/json/.test(res.headers.get('content-type') ?? '')) return res;
    const text = await res.text();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    if (body?.jsonrpc !== '2.0' || typeof body.error !== 'object' || body.error === null) {
      return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    const data = typeof body.error.data === 'object' && body.error.data !== null ? body.error.data : {};
    body.error.data = { ...data, http_status: res.status };
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify(body), { status: 200, headers });
  };
}

/**
 * An input mistake's paths are rooted at the tool's arguments (`$.cart.line_items[0].quantity`); the
 * client's caller passed the request body, so its paths are the REST ones (`$.line_items[0].quantity`).
 */
function toRequestPaths(messages: Message[], arg: string | undefined): Message[] {
  const root = arg ? `$.${arg}` : undefined;
  return messages.map((m) => {
    if (!root || !m.path || !(m.path === root || m.path.startsWith(`${root}.`) || m.path.startsWith(`${root}[`))) return m;
    return { ...m, path: `$${m.path.slice(root.length)}` };
  });
}

/** An MCP error (JSON-RPC `error`) as a failed Result: its UCP `messages`, or one from `code`/`content`. */
export function mcpFailure(e: unknown): Result<never> {
  if (ProtocolError.isInstance(e)) {
    const data = (e.data ?? {}) as { code?: string; content?: string; messages?: Message[]; http_status?: number };
    const status = typeof data.http_status === 'number' ? data.http_status : 400;
    if (Array.isArray(data.messages) && data.messages.length) return { ok: false, status, messages: data.messages };
    return fail(status, data.code ?? `jsonrpc_${e.code}`, data.content ?? e.message);
  }
  const code = (e as { code?: unknown })?.code;
  if (typeof code === 'number' && code >= 400) return fail(code, code === 429 ? 'rate_limited' : code === 503 ? 'service_unavailable' : 'http_error', (e as Error).message);
  return fail(0, 'network_error', `The store could not be reached (${failureCause(e)}).`);
}

export class McpTransport {
  private client?: Promise<Client>;

  constructor(
    private readonly endpoint: () => Promise<string>,
    private readonly fetchImpl: typeof fetch,
    private readonly headers: Record<string, string>,
    private readonly info: { name: string; version: string },
  ) {}

  private connect(): Promise<Client> {
    return (this.client ??= (async () => {
      const client = new Client(this.info, { versionNegotiation: { mode: 'auto' } });
      const transport = new StreamableHTTPClientTransport(new URL(await this.endpoint()), {
        fetch: rpcErrorsAsAnswers(this.fetchImpl),
        requestInit: { headers: this.headers },
      });
      await client.connect(transport);
      return client;
    })().catch((e) => {
      this.client = undefined;
      throw e;
    }));
  }

  async call<T>({ tool, args, meta, arg }: McpCall): Promise<Result<T>> {
    let res: Awaited<ReturnType<Client['callTool']>>;
    try {
      res = await (await this.connect()).callTool({ name: tool, arguments: { meta, ...args } });
    } catch (e) {
      return mcpFailure(e);
    }
    let body = res.structuredContent as any;
    if (body === undefined) {
      const text = (res.content as Array<{ type: string; text?: string }> | undefined)?.find((c) => c.type === 'text')?.text ?? '';
      try {
        body = JSON.parse(text);
      } catch {
        return fail(res.isError ? 400 : 200, res.isError ? 'tool_error' : 'invalid_response', text || 'The tool returned no content.');
      }
    }
    if (res.isError || body?.ucp?.status === 'error') {
      // Both business outcomes and input mistakes are isError results; a business outcome carries
      // UCP's continue_url (REST: HTTP 200), an input mistake does not (REST: 400).
      const status = res.isError && !body?.continue_url ? 400 : 200;
      if (Array.isArray(body?.messages) && body.messages.length) return { ok: false, status, messages: status === 400 ? toRequestPaths(body.messages, arg) : body.messages, body };
      return fail(status, body?.code ?? 'tool_error', body?.content ?? 'The tool call failed.', body);
    }
    return { ok: true, data: body as T };
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) await (await c.catch(() => undefined))?.close();
  }
}
