/**
 * The cart store of one shop on one page, shared by every `<ucp-product>` / `<ucp-cart>` that
 * points at that shop: signals for the cart, the locale and a polite announcement, plus the
 * mutations (each one full-replacement PUT, as the REST transport defines). In widget mode the
 * cart id is kept in localStorage when storage works; in page/embedded mode it comes from the URL.
 */
import { batch, signal } from '@preact/signals';
import type { Cart, LineItemInput } from '../wire/cart.ts';
import type { Context, Message } from '../wire/common.ts';
import type { Product } from '../wire/catalog.ts';
import { linesOf, UcpClient, type Result } from '../client/api.ts';

export interface CartObserver {
  /** After every successful mutation, with the full cart the server returned. */
  changed(cart: Cart, messagesChanged: boolean): void;
}

const KEY = 'ucp:cart:';
/**
 * Whether carts are remembered in localStorage (widget mode). An MCP Apps view keeps none: its cart
 * travels in tool arguments and results only (src/apps/), never in a store shared by other views.
 */
let persisting = true;
export const rememberNoCarts = () => void (persisting = false);

function storage(): Storage | null {
  if (!persisting) return null;
  try {
    const s = globalThis.localStorage;
    s.setItem(KEY, '1');
    s.removeItem(KEY);
    return s;
  } catch {
    return null;
  }
}

export class Store {
  readonly client: UcpClient;
  readonly cart = signal<Cart | null>(null);
  readonly lang = signal('en');
  readonly currency = signal<string | undefined>(undefined);
  readonly busy = signal(false);
  /** Last cart-level failure (not-found, network…), shown in the cart. */
  readonly error = signal<Message[]>([]);
  /** Text for the aria-live region. */
  readonly announcement = signal('');
  /** Set by page mode (`cart-id` attribute, see `pin`); disables storage. */
  fixedId: string | null = null;
  observer: CartObserver | null = null;
  /**
   * Embedded mode: checkout goes to the host (`ep.cart.complete`) instead of navigating; set by the
   * embedded role (src/host/role-embedded.ts).
   */
  handoff: ((cart: Cart) => void) | null = null;
  private loaded: Promise<void> | null = null;

  /** `client`: another way to the shop than REST (an MCP Apps view calls tools through its host, src/apps/). */
  constructor(readonly origin: string, auth?: string, client?: UcpClient) {
    this.client = client ?? new UcpClient({ origin, auth });
  }

  private products = new Map<string, Promise<Result<Product>>>();

  /** The product in the current locale; shared and started early (at element connection). */
  product(id: string): Promise<Result<Product>> {
    const ctx = this.context();
    const key = `${id}|${ctx.language}|${ctx.currency ?? ''}`;
    let p = this.products.get(key);
    if (!p) {
      this.products.set(key, (p = this.client.product(id, ctx)));
      p.then((r) => r.ok || this.products.delete(key));
    }
    return p;
  }

  context(): Context {
    return { language: this.lang.value, ...(this.currency.value ? { currency: this.currency.value } : {}) };
  }

  announce(text: string) {
    // Re-setting the same text must still be announced.
    this.announcement.value = this.announcement.value === text ? `${text}\u00a0` : text;
  }

  private get storedId(): string | null {
    return this.fixedId ?? storage()?.getItem(KEY + this.origin) ?? null;
  }

  remember(cart: Cart | null) {
    if (this.fixedId) return;
    const s = storage();
    if (!s) return;
    if (cart) s.setItem(KEY + this.origin, cart.id);
    else s.removeItem(KEY + this.origin);
  }

  /** Page mode: the cart named by the URL, never storage. */
  pin(id: string) {
    if (this.fixedId === id) return;
    this.fixedId = id;
    this.loaded = null;
  }

  /** Loads the remembered cart once (later calls share the first load). */
  load(): Promise<void> {
    return (this.loaded ??= this.reload());
  }

  async reload(): Promise<void> {
    const id = this.storedId;
    if (!id) return;
    this.busy.value = true;
    const r = await this.client.getCart(id);
    batch(() => {
      this.busy.value = false;
      if (r.ok) {
        this.cart.value = r.data;
        this.error.value = [];
      } else {
        this.error.value = r.messages;
        if (r.status === 404 && !this.fixedId) this.remember(null);
      }
    });
    // Another page or tab may have changed the locale: keep the cart in the buyer's currency and language.
    if (r.ok && ((this.currency.value && r.data.currency !== this.currency.value) || (r.data.context?.language && r.data.context.language !== this.lang.value))) await this.relocalize();
  }

  /**
   * One full-replacement write (create when there is no cart yet); `extra` adds or overrides body
   * fields; `client`: the one to send it with (the WebMCP tools' is labelled for the inspector).
   */
  async commit(lines: LineItemInput[], codes?: string[], extra?: object, client = this.client): Promise<Result<Cart>> {
    const cart = this.cart.value;
    const discounts = { codes: codes ?? cart?.discounts?.codes ?? [] };
    const body = { line_items: lines, context: this.context(), discounts, ...extra };
    this.busy.value = true;
    const r = cart ? await client.updateCart(cart.id, body) : await client.createCart(body);
    batch(() => {
      this.busy.value = false;
      if (r.ok) {
        const before = JSON.stringify(cart?.messages ?? []);
        this.cart.value = r.data;
        this.error.value = [];
        this.remember(r.data);
        this.observer?.changed(r.data, before !== JSON.stringify(r.data.messages ?? []));
      } else if (r.status >= 400 || r.status === 0) {
        this.error.value = r.messages;
      }
    });
    return r;
  }

  /**
   * Adds a line (merging into an identical line). Returns the line index the server saw, so
   * field errors at `$.line_items[i]…` can be mapped back to the form.
   */
  async add(line: LineItemInput): Promise<{ result: Result<Cart>; index: number }> {
    const lines = linesOf(this.cart.value);
    const same = (l: LineItemInput) => l.item.id === line.item.id && JSON.stringify(l.customizations ?? []) === JSON.stringify(line.customizations ?? []);
    let index = lines.findIndex(same);
    if (index >= 0) lines[index] = { ...lines[index], quantity: lines[index].quantity + line.quantity };
    else index = lines.push(line) - 1;
    const result = await this.commit(lines);
    return { result, index };
  }

  setQuantity(lineId: string, quantity: number) {
    const lines = linesOf(this.cart.value);
    return this.commit(quantity > 0 ? lines.map((l) => (l.id === lineId ? { ...l, quantity } : l)) : lines.filter((l) => l.id !== lineId));
  }

  /** Codes the server did not reject (rejections are warnings at `$.discounts.codes[i]`). */
  keptCodes(): string[] {
    const cart = this.cart.value;
    const codes = cart?.discounts?.codes ?? [];
    const rejected = new Set((cart?.messages ?? []).map((m) => /^\$\.discounts\.codes\[(\d+)\]/.exec(m.path ?? '')?.[1]).filter(Boolean).map(Number));
    return codes.filter((_, i) => !rejected.has(i));
  }

  /** Keeps exactly these codes (removing one from the cart). */
  setCodes(codes: string[]) {
    return this.commit(linesOf(this.cart.value), codes);
  }

  applyCode(code: string) {
    const codes = this.keptCodes().filter((c) => c.toUpperCase() !== code.toUpperCase());
    return this.commit(linesOf(this.cart.value), [...codes, code]);
  }

  /**
   * The one checkout action (the cart's Checkout button, and any agent-facing tool that begins
   * checkout): hands the current cart to the shop's checkout. On a page, navigates to the handoff;
   * inside an agent's frame, sends the cart to the host with `continue_url` = that same handoff, so
   * the host lands where the button would have. Returns the target, or null with nothing to check out.
   */
  checkout(): string | null {
    const cart = this.cart.value;
    if (!cart?.line_items.length) return null;
    // Where the shop's checkout handoff starts (server/storefront/checkout.ts, docs/carts.md "Checkout handoff").
    const url = `${this.origin}/cart/${encodeURIComponent(cart.id)}/checkout`;
    this.handoff ? this.handoff({ ...cart, continue_url: url }) : location.assign(url);
    return url;
  }

  /** Re-prices the cart after a currency/language change. */
  async relocalize() {
    if (this.cart.value) await this.commit(linesOf(this.cart.value), this.keptCodes());
  }
}

const stores = new Map<string, Store>();

/**
 * One store per shop origin on a page. On the shop's own pages the store uses the page's storefront
 * token (server/core/access/storefront-tokens.ts): the shop's pages may do what its policy keeps from agents.
 */
export function storeFor(origin: string): Store {
  let s = stores.get(origin);
  if (!s) stores.set(origin, (s = new Store(origin, origin === location.origin ? document.querySelector<HTMLMetaElement>('meta[name=ucp-storefront-token]')?.content : undefined)));
  return s;
}

/** Formats minor units in a currency for a language. */
export function money(amount: number, currency: string, lang: string): string {
  try {
    const f = new Intl.NumberFormat(lang, { style: 'currency', currency });
    return f.format(amount / 10 ** (f.resolvedOptions().maximumFractionDigits ?? 2));
  } catch {
    return `${amount} ${currency}`;
  }
}
