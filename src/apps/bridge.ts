/**
 * The view's side of MCP Apps (extension `io.modelcontextprotocol/ui`, specification 2026-01-26):
 * JSON-RPC 2.0 over `postMessage` with the host (or the host's sandbox proxy, which relays). Small
 * on purpose: the official SDK's bundled `App` is ~146 KB gzip, this whole view has a 40 KB budget
 * (docs/mcp-apps.md). What it does:
 *  - requests to the host (`ui/initialize`, `tools/call`, `ui/open-link`, `ui/update-model-context`,
 *    `ui/request-display-mode`), each answered or failed within a deadline (never left hanging);
 *  - notifications both ways (`ui/notifications/*`), and answers to the host's own requests
 *    (`ui/resource-teardown`, `ping`; anything else: method not found);
 *  - `ui/notifications/size-changed` from a ResizeObserver on the content (not the viewport, so a
 *    host that sizes the frame to the reported height never feeds a growth loop).
 * Only messages from the parent window are read (`event.source`); see `parentOrigin` for where ours go.
 */

export const PROTOCOL_VERSION = '2026-01-26';

/** A host's answer that is an error, a deadline passed, or a host that is gone. */
export class BridgeError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
/** Our own codes for failures that have no JSON-RPC answer. */
export const TIMEOUT = -1;

export interface HostContext {
  theme?: 'light' | 'dark';
  styles?: { variables?: Record<string, string | undefined>; css?: { fonts?: string } };
  displayMode?: 'inline' | 'fullscreen' | 'pip';
  availableDisplayModes?: string[];
  containerDimensions?: { width?: number; maxWidth?: number; height?: number; maxHeight?: number };
  locale?: string;
  safeAreaInsets?: { top: number; right: number; bottom: number; left: number };
  toolInfo?: { tool?: { name?: string } };
  [k: string]: unknown;
}

type Params = Record<string, unknown>;
type Handler = (params: Params) => void;

/** A JSON object (not null, not an array): what every message, params and result must be. */
export const isObject = (v: unknown): v is Params => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Where our messages go. The parent's origin when the browser tells it (`ancestorOrigins`: Chromium,
 * WebKit; else the referrer); a view loaded into an opaque-origin frame cannot learn it, and then
 * only the wildcard reaches the parent. What we send is what the host already has (tool arguments
 * for its own server, the size, the cart's words for its own model): nothing of the shop's secrets.
 */
export function parentOrigin(): string {
  const ancestor = location.ancestorOrigins?.[0];
  if (ancestor && ancestor !== 'null') return ancestor;
  try {
    const referrer = document.referrer ? new URL(document.referrer).origin : '';
    if (referrer && referrer !== 'null') return referrer;
  } catch {}
  const anyOrigin = '*';
  return anyOrigin;
}

export class Bridge {
  private next = 1;
  private pending = new Map<number, { resolve(v: unknown): void; reject(e: BridgeError): void; timer: ReturnType<typeof setTimeout> }>();
  private handlers = new Map<string, Handler>();
  /** Runs before the host tears the view down; the host waits for our answer. */
  onTeardown: (() => void) | null = null;
  private readonly target: string;
  private lastSize = '';

  constructor(
    private readonly host: Window = window.parent,
    private readonly timeoutMs = 30_000,
  ) {
    this.target = parentOrigin();
    addEventListener('message', (e) => {
      if (e.source === this.host) this.receive(e.data);
    });
  }

  /** Handles a host notification (`ui/notifications/tool-result`, …). One handler a method. */
  on(method: string, handler: Handler) {
    this.handlers.set(method, handler);
  }

  private post(message: object) {
    this.host.postMessage({ jsonrpc: '2.0', ...message }, this.target);
  }

  notify(method: string, params: Params = {}) {
    this.post({ method, params });
  }

  /** A request to the host; rejects with BridgeError on an error answer or after the deadline. */
  request<T = unknown>(method: string, params: Params = {}, timeoutMs = this.timeoutMs): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new BridgeError(TIMEOUT, `${method}: no answer from the host within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.post({ id, method, params });
    });
  }

  private receive(m: unknown) {
    if (!isObject(m) || m.jsonrpc !== '2.0') return;
    if (typeof m.method === 'string') {
      const params = isObject(m.params) ? m.params : {};
      if ('id' in m) return this.answerHost(m.id, m.method);
      try {
        this.handlers.get(m.method)?.(params);
      } catch {
        // A view's bug in one handler must not stop the bridge.
      }
      return;
    }
    const waiting = typeof m.id === 'number' ? this.pending.get(m.id) : undefined;
    if (!waiting) return;
    this.pending.delete(m.id as number);
    clearTimeout(waiting.timer);
    if (isObject(m.error)) {
      const e = m.error;
      waiting.reject(new BridgeError(typeof e.code === 'number' ? e.code : -32603, typeof e.message === 'string' ? e.message : 'The host refused the request.', e.data));
    } else waiting.resolve(m.result);
  }

  /** The host's own requests: teardown (after our last words) and ping; anything else is unknown. */
  private answerHost(id: unknown, method: string) {
    if (method === 'ui/resource-teardown') {
      try {
        this.onTeardown?.();
      } catch {}
      return this.post({ id, result: {} });
    }
    if (method === 'ping') return this.post({ id, result: {} });
    this.post({ id, error: { code: -32601, message: `Method not found: ${method}` } });
  }

  /**
   * The handshake: `ui/initialize` (our capabilities, the host's context in the answer), then
   * `ui/notifications/initialized`, after which the host sends the tool's input and result.
   */
  async initialize(appInfo: { name: string; version: string }): Promise<{ hostContext?: HostContext; hostCapabilities?: Params }> {
    const result = await this.request<{ hostContext?: HostContext; hostCapabilities?: Params }>('ui/initialize', {
      protocolVersion: PROTOCOL_VERSION,
      appInfo,
      appCapabilities: { availableDisplayModes: ['inline', 'fullscreen'] },
    });
    this.notify('ui/notifications/initialized');
    return isObject(result) ? result : {};
  }

  /** Reports the content's size whenever it changes (whole pixels, only real changes). */
  watchSize(el: Element) {
    const send = () => {
      const r = el.getBoundingClientRect();
      const size = { width: Math.ceil(r.width), height: Math.ceil(r.height) };
      const key = `${size.width}x${size.height}`;
      if (key === this.lastSize) return;
      this.lastSize = key;
      this.notify('ui/notifications/size-changed', size);
    };
    new ResizeObserver(send).observe(el);
    send();
  }
}
