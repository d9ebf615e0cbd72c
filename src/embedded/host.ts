/**
 * Host role (the spec's "Host"): a third-party / agent page opens the shop's cart UI at
 * `continue_url?ep_version=…` in a sandboxed, credentialless iframe inside an accessible modal dialog,
 * answers the handshake (always offering the MessagePort upgrade) and re-emits every notification as
 * a DOM CustomEvent on the mount element. Falls back to a popup / plain link when the frame never says
 * `ready`. See docs/embedded.md.
 */
import { EP_VERSION, epError, isErrorResponse, type EpErrorResponse } from '../wire/ep.ts';
import { createPeer } from './rpc.ts';
import { cartDialog, h, type CartDialog } from './cart-dialog.ts';
import { hostMethods, type HandshakeSteps } from './host-handshake.ts';
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

type Emit = <K extends keyof UcpEventDetails>(type: K, detail: UcpEventDetails[K], cancelable?: boolean) => boolean;

/** What one channel needs from the dialog that opens it: the cart, its deadline, and where the handshake's steps go. */
interface ChannelOwner extends Omit<HandshakeSteps, 'upgraded'> {
  auth: OpenCartOptions['auth'];
  continueUrl: string;
  /** The origin the channel's window must speak from. */
  origin: string;
  /** How long the window has to say `ready`, and what then. */
  wait: number;
  timeout(): void;
}

/**
 * One channel to the cart (the frame's window or a popup, `win`): the handshake's methods
 * (host-handshake.ts) over that window's messages until the port upgrade takes over, and the
 * deadline for its `ready`. Returns how to drop it: the channel closed and its window taken away
 * (`dispose`: the frame removed, the popup closed); the dialog stays.
 */
function connect(win: () => Window | null, dispose: () => void, o: ChannelOwner): () => void {
  let port: MessagePort | undefined;
  const onMessage = (e: MessageEvent) => {
    const s = win();
    if (s && e.source === s && e.origin === o.origin) peer.receive(e.data);
  };
  const [requests, notifications] = hostMethods(o.auth, o.continueUrl, {
    upgraded(mc) {
      port = mc.port1;
      window.removeEventListener('message', onMessage);
      peer.send = (m, t = []) => mc.port1.postMessage(m, t);
      mc.port1.onmessage = (e) => peer.receive(e.data);
    },
    ready(delegate) {
      clearTimeout(timer);
      o.ready(delegate);
    },
    fail: o.fail,
    cart: o.cart,
  });
  const peer = createPeer((m, transfer = []) => {
    const w = win();
    w?.postMessage(m, { targetOrigin: o.origin, transfer });
  }, requests, notifications);
  window.addEventListener('message', onMessage);
  const timer = setTimeout(o.timeout, o.wait);
  return () => {
    clearTimeout(timer);
    window.removeEventListener('message', onMessage);
    peer.close();
    port?.close();
    dispose();
  };
}

/**
 * What the cart says once the handshake is done, as DOM events on the mount element; `complete`
 * closes the dialog and goes on to `continue_url` unless a listener prevents it.
 */
const cartEvents = (emit: Emit, ui: CartDialog, handoff: (u?: string) => string, close: () => void): HandshakeSteps['cart'] => (kind, cart) => {
  if (kind === 'start') {
    ui.status.hidden = true;
    emit(EVENTS.start, { cart });
  } else if (kind === 'complete') {
    const next = handoff(cart.continue_url);
    const go = emit(EVENTS.complete, { cart, continue_url: next }, true);
    close();
    if (go) location.assign(next);
  } else emit(EVENTS.change, { cart, kind });
};

/** The frame the cart page loads in: sandboxed, credentialless, with no permissions. */
function cartFrame(): HTMLIFrameElement {
  const f = h('iframe', {
    title: 'Shopping cart',
    sandbox: 'allow-scripts allow-forms allow-same-origin',
    credentialless: '',
    allow: '',
  });
  (f as HTMLIFrameElement & { credentialless?: boolean }).credentialless = true;
  return f;
}

/**
 * Opens the shop's cart in a dialog on this page: resolves the cart, frames it (or offers a popup
 * or a link when it cannot be framed), opens one channel at a time to it (connect) and re-emits
 * what the cart says as DOM events on the mount element.
 */
export function openCart(opts: OpenCartOptions): CartHandle {
  const mount = opts.target ?? document.body;
  const emit: Emit = (type, detail, cancelable = false) => mount.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true, cancelable }));

  let closed = false;
  /** Drops the open channel and takes its window away (the frame, or the popup), if any. */
  let drop: (() => void) | undefined;
  let continueUrl = '';
  let expectedOrigin = '';

  const close = () => {
    if (closed) return;
    closed = true;
    detach();
    ui.remove();
    emit(EVENTS.close, {});
  };
  const ui = cartDialog(mount, originOf(opts.shopOrigin).replace(/^https?:\/\//, ''), opts.colorScheme, close);

  /** Drop the current channel (frame or popup) but keep the dialog. */
  const detach = () => {
    drop?.();
    drop = undefined;
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

  /** A channel through `win` (see connect), falling back (with or without the popup offer) when it says no `ready` in `wait` ms. */
  const open = (via: 'frame' | 'popup', win: () => Window | null, dispose: () => void, wait: number) => {
    const ready = (delegate: string[]) => emit(EVENTS.ready, { channel: 'port', via, delegate });
    const timeout = () => fallback('timeout', via === 'frame');
    drop = connect(win, dispose, { auth: opts.auth, continueUrl, origin: expectedOrigin, wait, timeout, ready, fail, cart: cartEvents(emit, ui, handoff, close) });
  };

  const frameUrl = () => embedUrl(continueUrl, { version: EP_VERSION, colorScheme: opts.colorScheme, auth: opts.auth });

  const openPopup = () => {
    detach();
    const w = window.open(frameUrl(), 'ucp_cart', 'popup,width=480,height=760');
    if (!w) return ui.say('The pop-up was blocked.', stripEp(continueUrl));
    ui.say('The cart is open in another window.', stripEp(continueUrl));
    // The buyer may need a moment with a new window: never less than 10 s here.
    open('popup', () => w, () => w.close(), Math.max(opts.readyTimeout ?? 0, 10_000));
  };

  resolveCart(opts).then(
    ({ url, embeddable }) => {
      if (closed) return;
      continueUrl = url;
      expectedOrigin = originOf(url);
      if (!expectedOrigin || !isTrustworthy(expectedOrigin)) throw new Error('The cart URL is not a secure origin.');
      if (!embeddable) return fallback('not_embeddable', false);
      const f = cartFrame();
      open('frame', () => f.contentWindow, () => f.remove(), opts.readyTimeout ?? 10_000);
      f.src = frameUrl();
      ui.dialog.append(f);
    },
  ).catch((e: Error | CartRefused) => {
    if (closed) return;
    // A refusal links the shop's answer (its home), which the frame never loaded.
    if ('response' in e) expectedOrigin = originOf(e.response.continue_url ?? '');
    fail('response' in e ? e.response : epError('cart_unavailable', e.message || 'The cart could not be created.', undefined));
  });

  return { close };
}
