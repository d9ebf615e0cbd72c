/**
 * The transport between one HTTP POST and the official SDK's `Server`, in-process.
 *
 * The SDK's Web-standard Streamable HTTP transport is single-use in stateless mode: per request it
 * is built, connected and closed (closing aborts the server's per-request controllers, each abort a
 * DOMException), it copies every header into an object, parses the URL, re-validates each message
 * with zod after we already checked the envelope, and builds a Response we then copy. Profiled, that
 * was the largest share of what MCP cost beyond REST (docs/benchmarks.md). The v2 SDK's serving entry
 * (`createMcpHandler`, what its Hono adapter mounts) also builds a `Server` per request: measured
 * through the app, about twice this path's cost per `tools/call` (docs/mcp.md "Built on the
 * official SDK"). This transport keeps the
 * protocol where it was — the SDK's `Server` still routes and validates every request, runs the
 * handlers and shapes results and JSON-RPC errors — and replaces only the wire: each pooled `Server`
 * stays connected to its own `ExchangeTransport`, and a POST hands it the already-checked messages
 * and collects the responses (stateless JSON mode: no session, no server-to-client stream, so what
 * the server would send on one — notifications, requests — has nowhere to go and is dropped).
 *
 * What the SDK transport also checked on the HTTP request is checked in server.ts before this runs
 * (content type, the MCP-Protocol-Version header, one initialize per POST).
 */
import type { JSONRPCMessage, MessageExtraInfo, RequestId, Transport } from '@modelcontextprotocol/server';

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId; method: string } => 'method' in m && 'id' in m;
/** A cancellation notification (a request of that name, with an id, is answered like any unknown method). */
const isCancellation = (m: JSONRPCMessage) => 'method' in m && m.method === 'notifications/cancelled' && !('id' in m);

export class ExchangeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly #answers = new Map<RequestId, (message: JSONRPCMessage) => void>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!('result' in message || 'error' in message) || message.id === undefined) return;
    const answer = this.#answers.get(message.id);
    this.#answers.delete(message.id);
    answer?.(message);
  }

  /**
   * Delivers one POST's messages and resolves with the responses to its requests, in request order
   * (empty when it held only notifications and responses: HTTP 202). One exchange at a time per
   * transport: request ids are only unique within one client's POST.
   */
  exchange(messages: JSONRPCMessage[], extra: MessageExtraInfo): Promise<JSONRPCMessage[]> {
    const requests = messages.filter(isRequest);
    // A second request with the same id would replace the first one's waiter, which then never
    // resolves (issue 29: the POST hung and its server never went back to the pool). server.ts
    // refuses repeated ids before this; this is the transport's own guarantee.
    if (new Set(requests.map((m) => m.id)).size !== requests.length) throw new Error('ExchangeTransport: request ids must be unique within one exchange');
    const answers = requests.map((m) => new Promise<JSONRPCMessage>((resolve) => this.#answers.set(m.id, resolve)));
    // The SDK sends no response to a cancelled request. With no session, a cancellation can only
    // name a request of this same POST, whose answer the client is waiting for: it is ignored, as
    // MCP lets a receiver do ("MAY ignore"), so every request is answered.
    for (const m of messages) if (!isCancellation(m)) this.onmessage?.(m, extra);
    return Promise.all(answers);
  }
}
