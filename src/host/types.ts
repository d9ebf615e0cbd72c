/**
 * The public types of host.js for pages that load it (docs/host-js.md): the `UCP` global,
 * `UCP.openCart`, the custom elements and their attributes, and the `ucp:*` events with their
 * `detail`. Bundled into one self-contained `dist/host.d.ts` (scripts/build-host-dts.ts), served at
 * `/ucp/host.d.ts` and shipped in the package as `ucp-storefront/host`. The implementation is held to
 * it by the type checker: src/host/main.ts builds `window.UCP` `satisfies UcpGlobal`, the elements
 * and src/embedded/host.ts dispatch through the event map below.
 */
import type { Cart } from '../wire/cart.ts';
import type { EpErrorResponse } from '../wire/ep.ts';
import type { EpCart } from '../embedded/guards.ts';
import type { ColorScheme } from '../embedded/embedded.ts';

export type { Cart, EpCart, EpErrorResponse };

/** `UCP.openCart` options. */
export interface OpenCartOptions {
  /** The shop, e.g. `https://shop.example` (its REST API is `{shopOrigin}/api/ucp`). */
  shopOrigin: string;
  /** An existing cart: fetched to learn its `continue_url` and embedded binding. */
  cartId?: string;
  /** Open this `continue_url` directly (the caller vouches for the embedded binding). */
  continueUrl?: string;
  /** No cart yet: create one with these lines first (`POST /api/ucp/carts`). */
  lineItems?: Array<{ item: { id: string }; quantity: number; customizations?: Array<{ id: string; value: string }> }>;
  colorScheme?: ColorScheme;
  /** Sent as `ep_auth`, and answered to `ep.cart.auth` / `ready {auth}`. */
  auth?: string;
  /** Where the dialog is mounted and events are dispatched (default `document.body`). */
  target?: HTMLElement;
  /** How long to wait for `ep.cart.ready` before falling back (default 10 s). */
  readyTimeout?: number;
}

export interface CartHandle {
  close(): void;
}


/** How host.js runs on this page: `embedded` (the cart page in an agent's frame) or `widget`. */
export type UcpMode = 'widget' | 'embedded' | 'host';

/** `window.UCP` (also host.js's module exports). */
export interface UcpGlobal {
  /** Opens a shop's cart in an accessible modal frame on this (agent) page; events are dispatched on `opts.target`. */
  openCart(opts: OpenCartOptions): CartHandle;
  /** The UCP version host.js speaks, e.g. `2026-04-08`. */
  readonly version: string;
  readonly mode: UcpMode;
}

/** Attributes both elements read (all may change at run time). */
export interface UcpElementAttributes {
  /** Shop origin; default: the origin host.js was loaded from. */
  shop?: string;
  /** Language; default: the page's `<html lang>`, then `navigator.language`. */
  lang?: string;
  /** ISO 4217 display currency; default: the shop's. */
  currency?: string;
  /** Force light or dark; default: follow the system. */
  'color-scheme'?: 'light' | 'dark';
}

/** `<ucp-product product-id="…">`: a product with its variant and customization picker. */
export interface UcpProductAttributes extends UcpElementAttributes {
  'product-id': string;
}

/** `<ucp-cart>`: the cart button and dialog; on the cart page (`continue_url`) `mode="page"` with `cart-id`. */
export interface UcpCartAttributes extends UcpElementAttributes {
  'cart-id'?: string;
  mode?: 'page';
  /** Space-separated origins allowed to frame the cart page (embedded mode). */
  'allowed-hosts'?: string;
}

/** The custom elements (their API is their attributes and events). */
export interface UcpProductElement extends HTMLElement {}
export interface UcpCartElement extends HTMLElement {}

/** `detail` of every `ucp:*` event (all bubble and are composed). */
export interface UcpEventDetails {
  /** `<ucp-product>`: after a successful add to cart. */
  'ucp:cart:add': { variantId: string; quantity: number };
  /** `<ucp-cart>`: the cart, the first time it is loaded. */
  'ucp:cart:load': Cart;
  /**
   * `<ucp-cart>`: the full cart after every change (detail: the cart); `UCP.openCart`: the framed
   * cart changed (detail: `{cart, kind}`, the cart as the framed page sent it: `EpCart`).
   */
  'ucp:cart:change': Cart | { cart: EpCart; kind: 'line_items' | 'buyer' | 'messages' };
  /** `UCP.openCart`: the handshake is done. */
  'ucp:cart:ready': { channel: 'port'; via: 'frame' | 'popup'; delegate: string[] };
  /** `UCP.openCart`: the framed cart started (full cart). */
  'ucp:cart:start': { cart: EpCart };
  /** `UCP.openCart`: the buyer proceeds to checkout (cancelable: `preventDefault()` keeps the page). */
  'ucp:cart:complete': { cart: EpCart; continue_url: string };
  /** `UCP.openCart`: the cart failed (handshake refused, creation failed, frame error). */
  'ucp:cart:error': { error: EpErrorResponse };
  /** `UCP.openCart`: the cart could not be framed; open `continue_url` instead. */
  'ucp:cart:fallback': { reason: 'timeout' | 'not_embeddable'; continue_url: string };
  /** `UCP.openCart`: the dialog was closed. */
  'ucp:cart:close': Record<string, never>;
}

export type UcpEventMap = { [K in keyof UcpEventDetails]: CustomEvent<UcpEventDetails[K]> };

declare global {
  interface Window {
    UCP: UcpGlobal;
  }
  interface HTMLElementTagNameMap {
    'ucp-product': UcpProductElement;
    'ucp-cart': UcpCartElement;
  }
  interface HTMLElementEventMap extends UcpEventMap {}
  interface DocumentEventMap extends UcpEventMap {}
  interface WindowEventMap extends UcpEventMap {}
}
