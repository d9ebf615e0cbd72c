/**
 * The transport between one HTTP POST and the official SDK's `Server`, in-process.
 *
 * The SDK's Web-standard Streamable HTTP transport is single-use in stateless mode: per request it
 * is built, connected and closed (closing aborts the server's per-request controllers, each abort a
 * DOMException), it copies every header into an object, parses the URL, re-validates each message
 * with zod after we already checked the envelope, and builds a Response we then copy. Profiled, that
 * was the largest share of what MCP cost beyond REST (docs/benchmarks.md). This transport keeps the
 * protocol where it was — the SDK's `Server` still routes and validates every request, runs the
 * handlers and shapes results and JSON-RPC errors — and replaces only the wire: each pooled `Server`
 * stays connected to its own `ExchangeTransport`, and a POST hands it the already-checked messages
 * and collects the responses (stateless JSON mode: no session, no server-to-client stream, so what
 * the server would send on one — notifications, requests — has nowhere to go and is dropped).
 *
 * What the SDK transport also checked on the HTTP request is checked in server.ts before this runs
 * (content type, the MCP-Protocol-Version header, one initialize per POST).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId; method: string } => 'method' in m && 'id' in m;

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
    const answers = messages.filter(isRequest).map((m) => new Promise<JSONRPCMessage>((resolve) => this.#answers.set(m.id, resolve)));
    for (const m of messages) this.onmessage?.(m, extra);
    return Promise.all(answers);
  }
}
