/**
 * host.js public types: the `UCP` global, `UCP.openCart`, the <ucp-product> / <ucp-cart> elements
 * and their attributes, and the `ucp:*` events (docs/host-js.md, docs/embedded.md).
 * Use: `/// <reference types="ucp-storefront/host" />` or copy this file (served at /ucp/host.d.ts).
 * Generated from src/host/types.ts by scripts/build-host-dts.ts: do not edit.
 */
/** The type of `Context` (`ContextSchema`), written out so host.d.ts and the client's types need no zod; a compile-time check in src/wire/common.ts keeps them equal. */
export interface Context {
	language?: string;
	currency?: string;
	address_country?: string;
	address_region?: string;
	postal_code?: string;
	intent?: string;
	eligibility?: string[];
	[k: string]: unknown;
}
/** The type of `MessageSchema`, written out like `Context`. */
export interface Message {
	type: "error" | "warning" | "info";
	code?: string;
	content: string;
	path?: string;
	severity?: "recoverable" | "requires_buyer_input" | "requires_buyer_review" | "unrecoverable";
	content_type?: "plain" | "markdown";
	[k: string]: unknown;
}
/** A unit descriptor (UCP 2026-08-25 common/types/unit.json): machine identity is (`unit`, `scale` or 0). */
export interface UnitDescriptor {
	unit: string;
	display_text: string;
	scale?: number;
}
/** How an item is sold (2026-08-25 `quantity_unit`); absent on a response = by the piece (`C62`). */
export interface QuantityUnit extends UnitDescriptor {
	increment?: number;
}
/** 2026-08-25 common/types/policy.json (returns, shipping, …). */
export interface Policy {
	type: string;
	description: {
		plain: string;
	};
	url?: string;
	applies_to?: string[];
}
/** The `ucp` block every response carries. */
export interface UcpMeta {
	version: string;
	status?: "success" | "error";
	capabilities?: Record<string, Array<{
		version: string;
	}>>;
	services?: Record<string, unknown[]>;
}
/** The type of `CustomizationEntrySchema`, written out like `Context` (./common.ts) and checked against it. */
export interface CustomizationEntry {
	id: string;
	value: string;
	[k: string]: unknown;
}
/** types/total.json entry. Amounts are integers in the cart currency's minor units. */
export interface Total {
	type: "subtotal" | "items_discount" | "discount" | "tax" | "fee" | "fulfillment" | "total" | (string & {});
	amount: number;
	display_text?: string;
}
export interface LineItem {
	id: string;
	/** `quantity_unit`: 2026-08-25 only (server/ucp/versions.ts), when the item is not sold by the piece. */
	item: {
		id: string;
		title: string;
		price: number;
		image_url?: string;
		quantity_unit?: QuantityUnit;
	};
	quantity: number;
	/**
	 * Echo of the accepted customizations (an extension field; line_item.json is open), each with
	 * `display_text` ("Gift box: Kraft box") in the cart's language.
	 */
	customizations?: Array<CustomizationEntry & {
		display_text?: string;
	}>;
	totals: Total[];
	parent_id?: string;
}
export interface AppliedDiscount {
	code?: string;
	title: string;
	amount: number;
	automatic?: boolean;
	method?: "each" | "across";
	priority?: number;
	allocations?: Array<{
		path: string;
		amount: number;
	}>;
}
export interface Cart {
	ucp: UcpMeta;
	id: string;
	currency: string;
	line_items: LineItem[];
	totals: Total[];
	context?: Context;
	buyer?: Record<string, unknown>;
	discounts?: {
		codes: string[];
		applied: AppliedDiscount[];
	};
	messages?: Message[];
	continue_url: string;
	expires_at: string;
	/** 2026-08-25 only: the shop's policies. */
	policies?: Policy[];
}
/** types/error_response.json as EP carries it (the zod schema is `EpErrorResponse` in ./embedded.ts). */
export interface EpErrorResponse {
	ucp: {
		version: string;
		status: "error";
		[k: string]: unknown;
	};
	messages: Array<{
		type: string;
		content: string;
		code?: string;
		path?: string;
		severity?: string;
		[k: string]: unknown;
	}>;
	continue_url?: string;
}
/** EpCart (the fields host.js relies on; everything else passes through). */
export type EpCart = {
	id: string;
	continue_url?: string;
	[k: string]: unknown;
};
export type ColorScheme = "light" | "dark";
/** `UCP.openCart` options. */
export interface OpenCartOptions {
	/** The shop, e.g. `https://shop.example` (its REST API is `{shopOrigin}/api/ucp`). */
	shopOrigin: string;
	/** An existing cart: fetched to learn its `continue_url` and embedded binding. */
	cartId?: string;
	/** Open this `continue_url` directly (the caller vouches for the embedded binding). */
	continueUrl?: string;
	/** No cart yet: create one with these lines first (`POST /api/ucp/carts`). */
	lineItems?: Array<{
		item: {
			id: string;
		};
		quantity: number;
		customizations?: Array<{
			id: string;
			value: string;
		}>;
	}>;
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
export type UcpMode = "widget" | "embedded" | "host";
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
	"color-scheme"?: "light" | "dark";
}
/** `<ucp-product product-id="…">`: a product with its variant and customization picker. */
export interface UcpProductAttributes extends UcpElementAttributes {
	"product-id": string;
}
/** `<ucp-cart>`: the cart button and dialog; on the cart page (`continue_url`) `mode="page"` with `cart-id`. */
export interface UcpCartAttributes extends UcpElementAttributes {
	"cart-id"?: string;
	mode?: "page";
	/** Space-separated origins allowed to frame the cart page (embedded mode). */
	"allowed-hosts"?: string;
}
/** The custom elements (their API is their attributes and events). */
export interface UcpProductElement extends HTMLElement {
}
export interface UcpCartElement extends HTMLElement {
}
/** `detail` of every `ucp:*` event (all bubble and are composed). */
export interface UcpEventDetails {
	/** `<ucp-product>`: after a successful add to cart. */
	"ucp:cart:add": {
		variantId: string;
		quantity: number;
	};
	/** `<ucp-cart>`: the cart, the first time it is loaded. */
	"ucp:cart:load": Cart;
	/**
	 * `<ucp-cart>`: the full cart after every change (detail: the cart); `UCP.openCart`: the framed
	 * cart changed (detail: `{cart, kind}`, the cart as the framed page sent it: `EpCart`).
	 */
	"ucp:cart:change": Cart | {
		cart: EpCart;
		kind: "line_items" | "buyer" | "messages";
	};
	/** `UCP.openCart`: the handshake is done. */
	"ucp:cart:ready": {
		channel: "port";
		via: "frame" | "popup";
		delegate: string[];
	};
	/** `UCP.openCart`: the framed cart started (full cart). */
	"ucp:cart:start": {
		cart: EpCart;
	};
	/** `UCP.openCart`: the buyer proceeds to checkout (cancelable: `preventDefault()` keeps the page). */
	"ucp:cart:complete": {
		cart: EpCart;
		continue_url: string;
	};
	/** `UCP.openCart`: the cart failed (handshake refused, creation failed, frame error). */
	"ucp:cart:error": {
		error: EpErrorResponse;
	};
	/** `UCP.openCart`: the cart could not be framed; open `continue_url` instead. */
	"ucp:cart:fallback": {
		reason: "timeout" | "not_embeddable";
		continue_url: string;
	};
	/** `UCP.openCart`: the dialog was closed. */
	"ucp:cart:close": Record<string, never>;
}
export type UcpEventMap = {
	[K in keyof UcpEventDetails]: CustomEvent<UcpEventDetails[K]>;
};
declare global {
	interface Window {
		UCP: UcpGlobal;
	}
	interface HTMLElementTagNameMap {
		"ucp-product": UcpProductElement;
		"ucp-cart": UcpCartElement;
	}
	interface HTMLElementEventMap extends UcpEventMap {
	}
	interface DocumentEventMap extends UcpEventMap {
	}
	interface WindowEventMap extends UcpEventMap {
	}
}

export {};
