/**
 * host.js's UCP REST client: a small fetch wrapper over the shop's `/api/ucp` transport (CORS).
 * Responses are read by `./result.ts`, the same code the agent client (`ucp-storefront/client`)
 * uses, so views only ever deal with `Result` / `Message[]`. Types only from src/wire (no zod in
 * the bundle).
 */
import type { Cart, CreateCartRequest, LineItemInput, UpdateCartRequest } from '../wire/cart.ts';
import type { GetProductResponse, Product } from '../wire/catalog.ts';
import type { Context, Message } from '../wire/common.ts';
import { request, type Result } from './result.ts';

export type { Result };

export interface ClientOptions {
  /** Shop origin, e.g. `http://demo.localhost:8080`. */
  origin: string;
  /** Bearer credential (embedded mode: `ep_auth` / the host's `credential`); kept in memory only. */
  auth?: string;
  fetch?: typeof fetch;
  /** Who is calling, for the development request inspector (`webmcp`: an in-page agent's tools). */
  transport?: string;
}

export class UcpClient {
  constructor(readonly opts: ClientOptions) {}

  call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Result<T>> {
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (this.opts.auth) headers.Authorization = `Bearer ${this.opts.auth}`;
    if (this.opts.transport) headers['UCP-Inspector-Transport'] = this.opts.transport;
    return request<T>(this.opts.fetch ?? fetch, `${this.opts.origin}/api/ucp${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
    }, 'unavailable');
  }

  /** The same client with its requests labelled for the request inspector (server/http/inspector/record.ts). */
  labelled(transport: string): UcpClient {
    return new UcpClient({ ...this.opts, transport });
  }

  async product(id: string, context: Context): Promise<Result<Product>> {
    const r = await this.call<GetProductResponse>('POST', '/catalog/product', { id, context });
    return r.ok ? { ok: true, data: r.data.product } : r;
  }
  /**
   * With an Idempotency-Key (as UCP recommends on create): a retry of this call cannot make a
   * second cart. 128 random bits as four numbers: `crypto.randomUUID` exists only in secure contexts, and a
   * storefront may still be served over plain http; `getRandomValues` works everywhere.
   */
  createCart(req: CreateCartRequest) {
    return this.call<Cart>('POST', '/carts', req, { 'Idempotency-Key': crypto.getRandomValues(new Uint32Array(4)).join('-') });
  }
  getCart(id: string) {
    return this.call<Cart>('GET', `/carts/${encodeURIComponent(id)}`);
  }
  updateCart(id: string, req: UpdateCartRequest) {
    return this.call<Cart>('PUT', `/carts/${encodeURIComponent(id)}`, req);
  }
}


/** The request form of a cart's lines (for full-replacement PUTs). */
export function linesOf(cart: Cart | null): LineItemInput[] {
  return (cart?.line_items ?? []).map((l) => ({
    id: l.id,
    item: { id: l.item.id },
    quantity: l.quantity,
    ...(l.customizations?.length ? { customizations: l.customizations.map(({ id, value }) => ({ id, value })) } : {}),
  }));
}

const LINE_RE = /^\$\.line_items\[(\d+)\](?:\.customizations(?:\[(\d+)\])?)?/;

/**
 * Field errors of one request line, keyed by customization id. A message at
 * `$.line_items[L].customizations[j](.value)` belongs to the id sent as entry j; one at
 * `$.line_items[L].customizations` (a missing required group) names the id first in its content
 * (`'engraving' (Engraving) is required…`). Anything else on the line lands under `''`.
 * `text` words each message (default: the server's `content`; the widget passes its own
 * localized words by `code`, src/views/customize.tsx `fieldText`).
 */
export function fieldErrors(
  messages: Message[],
  line: number,
  sent: Array<{ id: string }> = [],
  text: (m: Message, id: string) => string = (m) => m.content,
): Record<string, string> {
  // A Map while collecting: the keys are ids the request chose (`constructor` is on every object).
  const out = new Map<string, string>();
  for (const m of messages) {
    const hit = m.type === 'error' && m.path ? LINE_RE.exec(m.path) : null;
    if (!hit || +hit[1] !== line) continue;
    const key = hit[2] !== undefined ? (sent[+hit[2]]?.id ?? '') : (/^'([^']+)'/.exec(m.content)?.[1] ?? '');
    const s = text(m, key);
    const before = out.get(key);
    out.set(key, before ? `${before} ${s}` : s);
  }
  return Object.fromEntries(out);
}
