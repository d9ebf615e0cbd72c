/** @jsxRuntime classic */
/** @jsx h */
/** @jsxFrag Fragment */
/**
 * The custom elements `<ucp-product>` and `<ucp-cart>`: a shadow root with adopted stylesheets and
 * a Preact tree. Attributes (all may change at run time):
 *   shop      shop origin (default: the origin host.js was loaded from)
 *   lang      language (default: the page's `<html lang>`, tracked)
 *   currency  ISO 4217 display currency (default: the shop's)
 *   product-id                     <ucp-product> only
 *   cart-id, mode="page", allowed-hosts   <ucp-cart> on the cart page (continue_url)
 *   color-scheme  light | dark (default: follow the system)
 */
import { h, render, type VNode } from 'preact';
import { effect } from '@preact/signals';
import { money, storeFor, type Store } from '../state/store.ts';
import { adoptStyles } from '../views/styles.ts';
import { interactive, loadProduct, ProductView, productUi, type ProductUi } from '../views/product.tsx';
import { CartView, cartUi, type CartUi } from '../views/cart.tsx';
import { startPage, type PageSession } from './mode.ts';
import type { UcpEventDetails } from './types.ts';

/** The origin host.js was loaded from (a module script: its own URL, `import.meta.url`). */
let scriptOrigin = location.origin;
try {
  const u = new URL(import.meta.url);
  if (u.protocol === 'https:' || u.protocol === 'http:') scriptOrigin = u.origin;
} catch {}
/** The origin used when an element has no `shop` attribute. */
export const defaultShop = () => scriptOrigin;
/** For tests: the origin used when an element has no `shop` attribute. */
export function setDefaultShop(origin: string) {
  scriptOrigin = origin;
}

let n = 0;
const pageLang = () => document.documentElement.lang || navigator.language || 'en';

// Fields assigned after construction are `declare`d: no field definition is emitted for them (each
// costs bytes in the entry, which every storefront page view pays).
abstract class UcpElement extends HTMLElement {
  static observedAttributes = ['shop', 'lang', 'currency', 'product-id', 'cart-id'];
  declare protected root: ShadowRoot;
  protected uid = `u${++n}`;
  declare protected store: Store;
  declare private langObserver?: MutationObserver;
  /** Stops the current view's effects (its render effect and any others `mount` started). */
  declare protected stop?: () => void;

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
    adoptStyles(this.root);
  }

  connectedCallback() {
    this.store = storeFor((this.getAttribute('shop') || scriptOrigin).replace(/\/$/, ''));
    this.syncLocale();
    // Always watched: while the element has its own `lang` a page change is a no-op in syncLocale,
    // and once that attribute is removed the element follows the page again.
    this.langObserver = new MutationObserver(() => this.syncLocale());
    this.langObserver.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
    this.mount();
  }

  disconnectedCallback() {
    this.langObserver?.disconnect();
    this.unmount();
    render(null, this.root);
  }

  /**
   * Renders `view` now and again whenever a signal it read while rendering changes: the views read
   * `.value` of the store's and their own signals, and this effect is what re-renders them (host.js
   * uses the signals' core API, not the Preact auto-tracking integration, see docs/host-js.md).
   */
  protected show(view: () => VNode, after?: () => void) {
    this.stop?.();
    this.stop = effect(() => {
      render(view(), this.root);
      after?.();
    });
  }

  /** Stops re-rendering and drops the view's state (a reconnected element starts afresh). */
  protected unmount() {
    this.stop?.();
    this.stop = undefined;
  }

  attributeChangedCallback(name: string, old: string | null, value: string | null) {
    if (!this.store || old === value) return;
    if (name === 'lang' || name === 'currency') this.syncLocale();
    else this.mount();
  }

  /** Pushes this element's locale into the shared store; a change re-prices the cart. */
  private syncLocale() {
    const s = this.store;
    const lang = this.getAttribute('lang') || pageLang();
    const currency = this.getAttribute('currency')?.toUpperCase() || s.currency.value;
    if (s.lang.value === lang && s.currency.value === currency) return;
    const repriced = s.currency.value !== currency || s.lang.value !== lang;
    s.lang.value = lang;
    s.currency.value = currency;
    if (repriced && s.cart.value) s.relocalize();
  }

  protected abstract mount(): void;
}

export class UcpProduct extends UcpElement {
  declare private ui?: ProductUi;
  declare private stopLoad?: () => void;

  protected mount() {
    const id = this.getAttribute('product-id');
    if (!id) return;
    const store = this.store;
    const ui = (this.ui ??= productUi());
    this.store.product(id); // start the request before the first render
    let marked: unknown = null;
    this.show(
      () => (
        <ProductView
          store={store}
          ui={ui}
          uid={this.uid}
          onAdded={(detail) => this.dispatchEvent(new CustomEvent<UcpEventDetails['ucp:cart:add']>('ucp:cart:add', { detail, bubbles: true, composed: true }))}
          onRetry={() => loadProduct(store, id, ui)}
        />
      ),
      () => {
        // Performance mark for docs/benchmarks.md: the first moment the widget can take input.
        const p = ui.product.peek();
        if (p && p !== marked && interactive(ui)) {
          performance.mark('ucp:product:interactive');
          marked = p;
        }
      },
    );
    // (Re)load when the product id, the language or the currency changes.
    this.stopLoad?.();
    this.stopLoad = effect(() => loadProduct(store, id, ui));
    this.store.load();
  }

  protected override unmount() {
    super.unmount();
    this.stopLoad?.();
    this.stopLoad = this.ui = undefined;
  }
}

export class UcpCart extends UcpElement {
  session: PageSession | null = null;
  declare private stopEvents?: () => void;
  declare private ui?: CartUi;

  protected mount() {
    const page = this.getAttribute('mode') === 'page';
    // `cart-id` shows that cart (the cart page, and the checkout page's header button, whose cart
    // may have been filled from the shop's widget on another origin, with nothing in this one's storage).
    const id = this.getAttribute('cart-id');
    if (id) this.store.pin(id);
    const ui = (this.ui ??= cartUi());
    const draw = () => this.show(() => <CartView store={this.store} ui={ui} uid={this.uid} page={page} />);
    // Re-emit cart changes as DOM events for the page (analytics, agents).
    this.stopEvents?.();
    let first = true;
    this.stopEvents = effect(() => {
      const cart = this.store.cart.value;
      if (cart) this.dispatchEvent(new CustomEvent<UcpEventDetails['ucp:cart:load']>(first ? 'ucp:cart:load' : 'ucp:cart:change', { detail: cart, bubbles: true, composed: true }));
      if (cart) first = false;
    });
    if (!page) {
      draw();
      this.store.load();
      return;
    }
    startPage(this, this.store).then((session) => {
      this.session = session;
      draw();
    });
  }

  protected override unmount() {
    super.unmount();
    this.ui = undefined;
  }
}

/**
 * `<ucp-search>`: defined here, built by a lazily loaded chunk (src/search/search.ts) in the
 * element's shadow root, so pages without it pay only these lines.
 */
class UcpSearch extends UcpElement {
  protected mount() {
    import('../search/search.ts').then((m) => m.mountSearch(this, this.root, this.store, money), () => {});
  }
}

export function defineElements() {
  if (!customElements.get('ucp-product')) customElements.define('ucp-product', UcpProduct);
  if (!customElements.get('ucp-cart')) customElements.define('ucp-cart', UcpCart);
  if (!customElements.get('ucp-search')) customElements.define('ucp-search', UcpSearch);
}
