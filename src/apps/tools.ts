/**
 * The shop as an MCP Apps view reaches it: every REST operation the views use is sent as its twin
 * UCP tool through the host (`tools/call`; docs/mcp.md's table), and the tool result is read into
 * the same `Result` the REST client gives (src/client/result.ts), so the Preact views and the store
 * work unchanged. The view never talks to the shop itself (CSP `connect-src 'none'`).
 *
 * `meta`: UCP's binding says the host supplies the agent profile and idempotency keys, so calls go
 * without it. A host that does not (a plain MCP Apps host, which knows nothing of UCP) gets the
 * server's `invalid_profile_url` refusal; the view then calls again once with the `meta["ucp-agent"]`
 * the model itself sent in the tool input that opened this view, and keeps doing so (docs/mcp-apps.md).
 */
import { UcpClient } from '../client/api.ts';
import { fail, type Result } from '../client/result.ts';
import type { Message } from '../wire/common.ts';
import { BridgeError, isObject, TIMEOUT, type Bridge } from './bridge.ts';

type Args = Record<string, unknown>;

/** A REST operation's twin tool and its arguments (method + path + body → name + arguments). */
export function twinOf(method: string, path: string, body?: unknown): { name: string; arguments: Args } | null {
  const cart = /^\/carts\/([^/]+)$/.exec(path);
  if (method === 'POST' && path === '/catalog/search') return { name: 'search_catalog', arguments: { catalog: body } };
  if (method === 'POST' && path === '/catalog/lookup') return { name: 'lookup_catalog', arguments: { catalog: body } };
  if (method === 'POST' && path === '/catalog/product') return { name: 'get_product', arguments: { catalog: body } };
  if (method === 'POST' && path === '/carts') return { name: 'create_cart', arguments: { cart: body } };
  if (method === 'GET' && cart) return { name: 'get_cart', arguments: { id: decodeURIComponent(cart[1]) } };
  if (method === 'PUT' && cart) return { name: 'update_cart', arguments: { id: decodeURIComponent(cart[1]), cart: body } };
  return null;
}

/** A UCP response: an object with `ucp.version` (every UCP body starts so). */
export const isUcpResponse = (v: unknown): v is { ucp: { version: string; status?: string }; messages?: Message[] } =>
  isObject(v) && isObject(v.ucp) && typeof v.ucp.version === 'string';

/**
 * A `tools/call` result as a Result: a UCP body in `structuredContent` is the answer (an error
 * response, or `isError`, is a failure with its messages); anything else is a clear failure.
 */
export function readToolResult<T>(result: unknown): Result<T> {
  if (!isObject(result)) return fail(0, 'invalid_response', 'The host answered the tool call with something that is not a tool result.');
  const body = result.structuredContent;
  if (!isUcpResponse(body)) {
    const text = Array.isArray(result.content) ? result.content.map((c) => (isObject(c) && typeof c.text === 'string' ? c.text : '')).join(' ').trim() : '';
    return fail(0, 'invalid_response', text && result.isError ? text.slice(0, 300) : 'The tool result carries no UCP response.', result);
  }
  if (result.isError === true || body.ucp.status === 'error') {
    const messages = body.messages?.length ? body.messages : [{ type: 'error' as const, code: 'error', content: 'The shop refused the request.' }];
    return { ok: false, status: 200, messages, body };
  }
  return { ok: true, data: body as T };
}

/** A failed `tools/call` (the host declined it, the server refused it, no answer in time), in words. */
type Failure = Extract<Result<never>, { ok: false }>;

export function callFailure(e: unknown): Failure {
  if (e instanceof BridgeError) {
    if (e.code === TIMEOUT) return fail(0, 'timeout', 'The chat app did not answer in time. Please try again.') as Failure;
    const data = isObject(e.data) ? e.data : {};
    const content = typeof data.content === 'string' ? data.content : e.message;
    return fail(0, 'declined', `This action was not carried out: ${content}`, e.data) as Failure;
  }
  return fail(0, 'declined', 'This action was not carried out.') as Failure;
}

export class ToolClient extends UcpClient {
  /** `meta` the host does not add for us (see the module's comment); set after the first refusal. */
  private meta: Args | undefined;

  /** `agentMeta`: the `meta["ucp-agent"]` of the tool input that opened the view, if any. */
  constructor(
    private readonly bridge: Bridge,
    private readonly agentMeta: () => Args | undefined,
  ) {
    super({ origin: '' });
  }

  override async call<T>(method: string, path: string, body?: unknown): Promise<Result<T>> {
    const twin = twinOf(method, path, body);
    if (!twin) return fail(0, 'invalid_request', `No tool for ${method} ${path}.`);
    return this.tool<T>(twin.name, twin.arguments);
  }

  async tool<T>(name: string, args: Args): Promise<Result<T>> {
    try {
      return readToolResult<T>(await this.send(name, args));
    } catch (e) {
      return callFailure(e);
    }
  }

  private async send(name: string, args: Args): Promise<unknown> {
    if (this.meta) return this.bridge.request('tools/call', { name, arguments: { ...args, meta: this.meta } });
    try {
      return await this.bridge.request('tools/call', { name, arguments: args });
    } catch (e) {
      const agent = this.agentMeta();
      // -32001: UCP's discovery errors (invalid_profile_url when no meta came). Hosts relay it as they
      // can: the JSON-RPC error with its data, or (the server answers it with HTTP 400) an HTTP error
      // whose text carries the body: any of them names the code.
      const profileRefused = e instanceof BridgeError && (e.code === -32001 || (isObject(e.data) && e.data.code === 'invalid_profile_url') || e.message.includes('invalid_profile_url'));
      if (!profileRefused || !agent) throw e;
      this.meta = { 'ucp-agent': agent };
      return this.bridge.request('tools/call', { name, arguments: { ...args, meta: this.meta } });
    }
  }
}
