/**
 * The MCP Apps view's state and what it does with the host's notifications (src/apps/main.tsx draws
 * it). The view is rebuilt by hosts for every tool call, so everything it shows comes from the tool
 * result it is given (and the tools it calls itself): no storage, no server session. The cart store
 * and the product/cart views are host.js's own (src/state/store.ts, src/views/), over a client that
 * calls tools through the host (./tools.ts).
 */
import { batch, signal } from '@preact/signals';
import { ViewCart, type Cart } from '../wire/cart.ts';
import { webAddress } from './links.ts';
import { ViewProduct, type Product } from '../wire/catalog.ts';
import type { Message } from '../wire/common.ts';
import { money, rememberNoCarts, Store } from '../state/store.ts';
import { productUi } from '../views/product.tsx';
import { cartUi } from '../views/cart-ui.ts';
import { lineAmount } from '../format/amounts.ts';
import { customizationsText } from '../format/line-text.ts';
import { messageText } from '../views/i18n.ts';
import { BridgeError, isObject, TIMEOUT, type Bridge } from './bridge.ts';
import { callFailure, readToolResult, ToolClient } from './tools.ts';
import { say } from './words.ts';

export type Screen = 'wait' | 'cards' | 'product' | 'cart';
type Args = Record<string, unknown>;

/** The `meta["ucp-agent"]` the model sent with the tool call that opened this view. */
const agentMetaOf = (args: Args) => (isObject(args.meta) && isObject(args.meta['ucp-agent']) ? args.meta['ucp-agent'] : undefined);

/** A cart in words a model reads: id, lines, codes, total, where checkout is, which tools to use. */
export function cartSummary(cart: Cart): string {
  const fmt = (n: number) => money(n, cart.currency, 'en');
  const lines = cart.line_items.map((l) => `${l.quantity} × ${l.item.title}${l.customizations?.length ? ` (${customizationsText(l.customizations)})` : ''} [${l.item.id}]: ${fmt(lineAmount(l))}`);
  const total = cart.totals.find((x) => x.type === 'total');
  const codes = cart.discounts?.codes.length ? ` Discount codes: ${cart.discounts.codes.join(', ')}.` : '';
  return (
    `The shopper changed cart ${cart.id} in the shop's view. ` +
    (lines.length ? `It holds ${lines.join('; ')}.` : 'It is empty.') +
    codes +
    (total ? ` Total ${fmt(total.amount)} (${cart.currency}).` : '') +
    (lines.length ? ` Checkout: ${cart.continue_url}.` : '') +
    ` Use get_cart or update_cart with id "${cart.id}" for this cart.`
  );
}

export class Shell {
  readonly screen = signal<Screen>('wait');
  readonly products = signal<Product[]>([]);
  /** A sentence above the view: a result that could not be shown, a cancelled or refused call. */
  readonly notice = signal('');
  /** What "waiting" says (the query being searched, from the tool's input). */
  readonly pending = signal('');
  /** Per product card: the answer to its last "Add to cart". */
  readonly cardNotes = signal<Record<string, { error: boolean; messages: Message[] }>>({});
  readonly productUi = productUi();
  readonly cartUi = cartUi();
  readonly store: Store;
  /** The arguments of the tool call that opened the view. */
  private input: Args = {};
  private lastProduct = '';

  constructor(readonly bridge: Bridge) {
    rememberNoCarts();
    this.store = new Store('', undefined, new ToolClient(bridge, () => agentMetaOf(this.input)));
    this.store.observer = { changed: (cart) => this.tellModel(cart) };
    this.store.handoff = () => void this.checkout();
  }

  toolInput(args: unknown, complete = true) {
    if (!isObject(args)) return;
    if (complete) this.input = args;
    const query = isObject(args.catalog) && typeof args.catalog.query === 'string' ? args.catalog.query : '';
    if (this.screen.value === 'wait') this.pending.value = query ? say(this.store.lang.value, 'searching', query) : '';
  }

  /** The tool's result: a UCP response is shown; anything else is said, and the last view stays. */
  toolResult(result: unknown) {
    const r = readToolResult<Args>(result);
    const lang = this.store.lang.value;
    if (!r.ok) {
      const m = r.messages[0];
      this.notice.value = m?.code === 'invalid_response' && r.status === 0 ? say(lang, 'notUcp') : say(lang, 'failed', r.messages.map((x) => messageText(lang, x)).join(' '));
      return;
    }
    if (!this.show(r.data)) this.notice.value = say(lang, 'notUcp');
  }

  /** Shows a catalog listing, a product or a cart; false for a UCP body that is none of these. */
  show(body: Args): boolean {
    return batch(() => {
      this.notice.value = '';
      if (Array.isArray(body.products)) {
        if (!body.products.every((p) => drawable(ViewProduct.safeParse(p), 'products[]'))) return false;
        this.products.value = body.products as Product[];
        this.cardNotes.value = {};
        this.screen.value = 'cards';
        // For docs/benchmarks.md: the cards are drawn (the render ran in this batch's effect).
        requestAnimationFrame(() => performance.mark('ucp:apps:cards'));
      } else if (isObject(body.product)) {
        if (!drawable(ViewProduct.safeParse(body.product), 'product')) return false;
        this.setProduct(body.product as unknown as Product);
      } else if ('line_items' in body) {
        const cart = ViewCart.safeParse(body);
        if (!drawable(cart, 'cart')) return false;
        this.store.pin(cart.data.id);
        this.store.cart.value = body as unknown as Cart;
        this.store.error.value = [];
        this.screen.value = 'cart';
      } else return false;
      return true;
    });
  }

  private setProduct(p: Product) {
    const ui = this.productUi;
    ui.product.value = p;
    ui.failure.value = [];
    ui.rejected.value = null;
    ui.status.value = null;
    ui.values.value = {};
    ui.qty.value = 1;
    const chosen = p.variants.find((v) => p.selected?.length && p.selected.every((s) => v.options?.some((o) => o.name === s.name && o.label === s.label)));
    ui.variantId.value = (chosen ?? p.variants.find((v) => v.availability.available) ?? p.variants[0]).id;
    this.screen.value = 'product';
  }

  toolCancelled(reason: unknown) {
    this.notice.value = say(this.store.lang.value, 'cancelled', typeof reason === 'string' && reason ? `: ${reason.slice(0, 200)}` : '');
  }

  /** "Add to cart" on a card: one of the product's only purchasable variant. */
  async addFromCard(p: Product, variantId: string) {
    const { result } = await this.store.add({ item: { id: variantId }, quantity: 1 });
    this.cardNotes.value = { ...this.cardNotes.value, [p.id]: result.ok ? { error: false, messages: [] } : { error: true, messages: result.messages } };
  }

  /** A card's "Choose options": the product view, filled by a `get_product` call through the host. */
  async openProduct(id: string) {
    this.lastProduct = id;
    const ui = this.productUi;
    batch(() => {
      ui.product.value = null;
      ui.failure.value = [];
      this.screen.value = 'product';
    });
    const r = await this.store.product(id);
    if (r.ok) this.setProduct(r.data);
    else ui.failure.value = r.messages;
  }

  /** The product view's "Try again" after a failed `get_product`. */
  retryProduct() {
    if (this.lastProduct) void this.openProduct(this.lastProduct);
  }

  /** After the shopper changed the cart here: the model is told (hosts send it with the next turn). */
  private tellModel(cart: Cart) {
    this.bridge.request('ui/update-model-context', { content: [{ type: 'text', text: cartSummary(cart) }] }).catch(() => {});
  }

  /** A product's page on the shop's site (its `url`), opened by the host. */
  async openPage(url: string) {
    if (!webAddress(url)) return void (this.notice.value = say(this.store.lang.value, 'badLink'));
    await this.bridge.request('ui/open-link', { url }).catch(() => {});
  }

  /** Checkout: the host opens the cart's `continue_url` (views never take payment themselves). */
  async checkout() {
    const url = this.store.cart.value?.continue_url;
    if (!url) return;
    // Only a web address leaves the view: a tool result's `javascript:` or `data:` URL is never opened.
    if (!webAddress(url)) return void (this.notice.value = say(this.store.lang.value, 'badLink'));
    try {
      await this.bridge.request('ui/open-link', { url });
    } catch (e) {
      const why = e instanceof BridgeError && e.code !== TIMEOUT ? e.message : callFailure(e).messages[0].content;
      // The address itself, so the shopper can still copy it: a host may refuse to open links.
      this.notice.value = say(this.store.lang.value, 'checkoutFailed', why, url);
    }
  }
}


/**
 * Whether a tool result's part has the shape the views read; if not, the console says where (the
 * shopper sees a notice and the last good screen).
 */
function drawable<T>(r: { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } }, what: string): r is { success: true; data: T } {
  if (!r.success) console.warn(`ucp view: a ${what} in the tool result was not drawn:`, r.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return r.success;
}
