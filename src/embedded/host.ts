/**
 * Host role (the spec's "Host"): a third-party / agent page opens the shop's cart UI at
 * `continue_url?ep_version=…` in a sandboxed, credentialless iframe inside an accessible modal dialog,
 * answers the handshake (always offering the MessagePort upgrade) and re-emits every notification as
 * a DOM CustomEvent on the mount element. Falls back to a popup / plain link when the frame never says
 * `ready`. See docs/embedded.md.
 */
import { EP_VERSION, epError, isErrorResponse, type EpErrorResponse } from '../wire/ep.ts';
import { createPeer, type Peer } from './rpc.ts';
import { cartDialog, h } from './cart-dialog.ts';
import { hostMethods } from './host-handshake.ts';
import { embedUrl, isTrustworthy, originOf, stripEp } from './origins.ts';
import type { CartHandle, OpenCartOptions, UcpEventDetails } from '../host/types.ts';

export type { CartHandle, OpenCartOptions };

// The options and the handle are public API: declared with the other public types (src/host/types.ts).

/** Events dispatched on the mount element (bubbling, composed). */
export const EVENTS = {
  ready: 'ucp:cart:ready',
  start: 'ucp:cart:start',
  change: 'ucp:cart:change',
  complete: 'ucp:cart:complete',
  error: 'ucp:cart:error',
  fallback: 'ucp:cart:fallback',
  close: 'ucp:cart:close',
} as const;

const embeddedBinding = (cart: { ucp?: { services?: Record<string, unknown> } }) => {
  const list = cart.ucp?.services?.['dev.ucp.shopping'];
  return Array.isArray(list) && list.some((b) => b?.transport === 'embedded' && Array.isArray(b?.config?.delegate));
};

/** The shop answered a UCP error_response (an unknown or expired cart id): the host's error, not a fallback. */
type CartRefused = Error & { response: EpErrorResponse };
const refused = (response: EpErrorResponse): CartRefused => Object.assign(new Error(response.messages[0]?.content ?? 'The cart could not be opened.'), { response });

/** Words for the shopper in the dialog: a missing cart says so (the server's `content` is for developers). */
const shopperWords = (err: EpErrorResponse) =>
  err.messages[0]?.code === 'not_found' ? 'Cart not found. It may have expired; the store has what you need.' : (err.messages[0]?.content ?? 'The cart failed.');

/** Get the cart's `continue_url` (creating or fetching the cart); null when it may not be embedded. */
async function resolveCart(o: OpenCartOptions): Promise<{ url: string; embeddable: boolean }> {
  if (o.continueUrl) return { url: o.continueUrl, embeddable: true };
  const api = `${o.shopOrigin.replace(/\/$/, '')}/api/ucp/carts`;
  const res = await fetch(o.cartId ? `${api}/${encodeURIComponent(o.cartId)}` : api, {
    method: o.cartId ? 'GET' : 'POST',
    credentials: 'omit',
    headers: o.cartId ? {} : { 'Content-Type': 'application/json' },
    body: o.cartId ? undefined : JSON.stringify({ line_items: o.lineItems ?? [] }),
  });
  const cart = await res.json().catch(() => null);
  // A 200 error_response (no such cart here) carries the shop home as continue_url: not a cart to frame.
  if (res.ok && isErrorResponse(cart) && Array.isArray(cart.messages)) throw refused(cart);
  if (!res.ok || typeof cart?.continue_url !== 'string') {
    throw new Error(cart?.messages?.[0]?.content ?? cart?.content ?? `The shop answered ${res.status}.`);
  }
  return { url: cart.continue_url, embeddable: embeddedBinding(cart) };
}

/**
 * Opens the shop's cart in a dialog on this page: resolves the cart, frames it (or offers a popup
 * or a link when it cannot be framed), wires one channel to the handshake (host-handshake.ts) and
 * re-emits what the cart says as DOM events on the mount element.
 */
export function openCart(opts: OpenCartOptions): CartHandle {
  const mount = opts.target ?? document.body;
  const emit = <K extends keyof UcpEventDetails>(type: K, detail: UcpEventDetails[K], cancelable = false) =>
    mount.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true, cancelable }));

  let closed = false;
  let peer: Peer | undefined;
  let port: MessagePort | undefined;
  let frame: HTMLIFrameElement | undefined;
  let popup: Window | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let continueUrl = '';
  let expectedOrigin = '';
  /** The window we expect EP traffic from (the frame's, or the popup). */
  let source: () => Window | null = () => null;

  const close = () => {
    if (closed) return;
    closed = true;
    detach();
    ui.remove();
    emit(EVENTS.close, {});
  };
  const ui = cartDialog(mount, originOf(opts.shopOrigin).replace(/^https?:\/\//, ''), opts.colorScheme, close);

  const onMessage = (e: MessageEvent) => {
    const s = source();
    if (s && e.source === s && e.origin === expectedOrigin) peer?.receive(e.data);
  };

  /** Drop the current channel (frame or popup) but keep the dialog. */
  const detach = () => {
    clearTimeout(timer);
    window.removeEventListener('message', onMessage);
    peer?.close();
    port?.close();
    peer = port = undefined;
    frame?.remove();
    frame = undefined;
    popup?.close();
    popup = null;
  };

  /** No `ready` in time (framing refused by CSP, page not EP-aware, …) or no embedded binding. */
  const fallback = (reason: 'timeout' | 'not_embeddable', popupOffer: boolean) => {
    detach();
    emit(EVENTS.fallback, { reason, continue_url: continueUrl });
    ui.say(reason === 'not_embeddable' ? 'This cart opens on the store.' : 'The cart could not be shown here.', stripEp(continueUrl), popupOffer ? openPopup : undefined);
  };

  /** A same-origin http(s) hand-off URL from the page, else the one we loaded; never `javascript:` etc. */
  const handoff = (u?: string) => stripEp(u && originOf(u) === expectedOrigin ? u : continueUrl);

  const fail = (err: EpErrorResponse) => {
    emit(EVENTS.error, { error: err });
    detach();
    ui.say(shopperWords(err), handoff(err.continue_url), undefined, err.messages[0]?.code === 'not_found');
  };

  /** One channel (frame or popup): the handshake's methods, sent to the window until the port takes over. */
  const connect = (via: 'frame' | 'popup') => {
    const [requests, notifications] = hostMethods(opts.auth, continueUrl, {
      upgraded(mc) {
        port = mc.port1;
        window.removeEventListener('message', onMessage);
        peer!.send = (m, t = []) => mc.port1.postMessage(m, t);
        mc.port1.onmessage = (e) => peer?.receive(e.data);
      },
      ready(delegate) {
        clearTimeout(timer);
        emit(EVENTS.ready, { channel: 'port', via, delegate });
      },
      fail,
      cart(kind, cart) {
        if (kind === 'start') {
          ui.status.hidden = true;
          emit(EVENTS.start, { cart });
        } else if (kind === 'complete') {
          const next = handoff(cart.continue_url);
          const go = emit(EVENTS.complete, { cart, continue_url: next }, true);
          close();
          if (go) location.assign(next);
        } else emit(EVENTS.change, { cart, kind });
      },
    });
    peer = createPeer((m, transfer = []) => {
      const w = source();
      w?.postMessage(m, { targetOrigin: expectedOrigin, transfer });
    }, requests, notifications);
    window.addEventListener('message', onMessage);
  };

  const frameUrl = () => embedUrl(continueUrl, { version: EP_VERSION, colorScheme: opts.colorScheme, auth: opts.auth });

  const openPopup = () => {
    detach();
    const w = window.open(frameUrl(), 'ucp_cart', 'popup,width=480,height=760');
    if (!w) return ui.say('The pop-up was blocked.', stripEp(continueUrl));
    popup = w;
    source = () => popup;
    ui.say('The cart is open in another window.', stripEp(continueUrl));
    connect('popup');
    // The buyer may need a moment with a new window: never less than 10 s here.
    timer = setTimeout(() => fallback('timeout', false), Math.max(opts.readyTimeout ?? 0, 10_000));
  };

  resolveCart(opts).then(
    ({ url, embeddable }) => {
      if (closed) return;
      continueUrl = url;
      expectedOrigin = originOf(url);
      if (!expectedOrigin || !isTrustworthy(expectedOrigin)) throw new Error('The cart URL is not a secure origin.');
      if (!embeddable) return fallback('not_embeddable', false);
      const f = (frame = h('iframe', {
        title: 'Shopping cart',
        sandbox: 'allow-scripts allow-forms allow-same-origin',
        credentialless: '',
        allow: '',
      }));
      (f as HTMLIFrameElement & { credentialless?: boolean }).credentialless = true;
      source = () => f.contentWindow;
      connect('frame');
      f.src = frameUrl();
      ui.dialog.append(f);
      timer = setTimeout(() => fallback('timeout', true), opts.readyTimeout ?? 10_000);
    },
  ).catch((e: Error | CartRefused) => {
    if (closed) return;
    if ('response' in e) {
      // Link the shop's answer (its home), which the frame never loaded.
      expectedOrigin = originOf(e.response.continue_url ?? '');
      return fail(e.response);
    }
    fail(epError('cart_unavailable', e.message || 'The cart could not be created.', undefined));
  });

  return { close };
}
