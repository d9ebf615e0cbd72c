/**
 * Host role (the spec's "Host"): a third-party / agent page opens the shop's cart UI at
 * `continue_url?ep_version=…` in a sandboxed, credentialless iframe inside an accessible modal dialog,
 * answers the handshake (always offering the MessagePort upgrade) and re-emits every notification as
 * a DOM CustomEvent on the mount element. Falls back to a popup / plain link when the frame never says
 * `ready`. See docs/embedded.md.
 */
import { EP, EP_VERSION, epError, epSuccess, type EpErrorResponse } from '../wire/ep.ts';
import { errorParams, isAuthParams, isCartParams, isErrorParams, isReadyParams, type EpCart } from './guards.ts';
import { createPeer, type Methods, type Peer } from './rpc.ts';
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

const CSS = /* css */ `dialog{padding:0;border:0;border-radius:12px;width:min(480px,calc(100vw - 2rem));height:min(760px,calc(100vh - 2rem));box-shadow:0 10px 40px #0005;color:CanvasText;background:Canvas}
dialog[open]{display:flex;flex-direction:column}dialog::backdrop{background:#0006}
div.bar{display:flex;align-items:center;justify-content:space-between;padding:.5rem .75rem;border-bottom:1px solid #8884}
h2{font:600 1rem system-ui,sans-serif;margin:0}button{font:inherit;cursor:pointer}
iframe{flex:1;border:0;width:100%}p{font:1rem system-ui,sans-serif;margin:1rem}a{color:LinkText}`;

let sheet: CSSStyleSheet | undefined;
/**
 * Styles as a constructable stylesheet: an agent page with a strict CSP (`style-src 'self'`, as our
 * demo agent sends) refuses a <style> element, but not adopted sheets. Engines without them get the
 * element.
 */
function adoptCss(root: ShadowRoot) {
  try {
    if (!sheet) (sheet = new CSSStyleSheet()).replaceSync(CSS);
    root.adoptedStyleSheets = [sheet];
  } catch {
    root.append(h('style', {}, CSS));
  }
}

const h = <K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text = '') => {
  const el = document.createElement(tag);
  for (const k in attrs) el.setAttribute(k, attrs[k]);
  el.textContent = text;
  return el;
};

const embeddedBinding = (cart: { ucp?: { services?: Record<string, unknown> } }) => {
  const list = cart.ucp?.services?.['dev.ucp.shopping'];
  return Array.isArray(list) && list.some((b) => b?.transport === 'embedded' && Array.isArray(b?.config?.delegate));
};

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
  if (!res.ok || typeof cart?.continue_url !== 'string') {
    throw new Error(cart?.messages?.[0]?.content ?? cart?.content ?? `The shop answered ${res.status}.`);
  }
  return { url: cart.continue_url, embeddable: embeddedBinding(cart) };
}

export function openCart(opts: OpenCartOptions): CartHandle {
  const mount = opts.target ?? document.body;
  const returnFocus = document.activeElement as HTMLElement | null;
  const box = h('div', { 'data-ucp-cart': '' });
  const root = box.attachShadow({ mode: 'open' });
  const dialog = h('dialog', { 'aria-labelledby': 't' });
  if (opts.colorScheme) dialog.style.colorScheme = opts.colorScheme;
  const title = h('h2', { id: 't' }, `Cart · ${originOf(opts.shopOrigin).replace(/^https?:\/\//, '')}`);
  const closeBtn = h('button', { type: 'button', 'aria-label': 'Close cart' }, '✕');
  // A plain bar, not <header>: outside sectioning content a <header> is a banner landmark, and the
  // agent page has its own banner.
  const header = h('div', { class: 'bar' });
  const status = h('p', { role: 'status' }, 'Loading cart…');
  header.append(title, closeBtn);
  dialog.append(header, status);
  adoptCss(root);
  root.append(dialog);
  mount.append(box);
  dialog.showModal();

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

  const close = () => {
    if (closed) return;
    closed = true;
    detach();
    if (dialog.open) dialog.close();
    box.remove();
    returnFocus?.focus?.();
    emit(EVENTS.close, {});
  };
  closeBtn.onclick = close;
  dialog.addEventListener('close', close);

  const say = (text: string, link?: string, popupOffer = false) => {
    status.replaceChildren(text);
    status.hidden = false;
    if (popupOffer) {
      const b = h('button', { type: 'button' }, 'Open in a new window');
      b.onclick = () => openPopup();
      status.append(' ', b);
    }
    if (link) status.append(' ', h('a', { href: link, target: '_blank', rel: 'noopener' }, `Open the cart on ${new URL(link).host}`));
  };

  /** No `ready` in time (framing refused by CSP, page not EP-aware, …) or no embedded binding. */
  const fallback = (reason: 'timeout' | 'not_embeddable', popupOffer: boolean) => {
    detach();
    emit(EVENTS.fallback, { reason, continue_url: continueUrl });
    say(reason === 'not_embeddable' ? 'This cart opens on the store.' : 'The cart could not be shown here.', stripEp(continueUrl), popupOffer);
  };

  /** A same-origin http(s) hand-off URL from the page, else the one we loaded; never `javascript:` etc. */
  const handoff = (u?: string) => stripEp(u && originOf(u) === expectedOrigin ? u : continueUrl);

  const fail = (err: EpErrorResponse) => {
    emit(EVENTS.error, { error: err });
    detach();
    say(err.messages[0]?.content ?? 'The cart failed.', handoff(err.continue_url));
  };

  /** JSON-RPC handlers for one channel (frame or popup). */
  const connect = (via: 'frame' | 'popup') => {
    let stage: 'window' | 'port' | 'done' = 'window';
    const cartNote = (run: (cart: EpCart) => void) => ({
      params: isCartParams,
      run: ({ cart }: { cart: EpCart }) => {
        if (stage === 'done') run(cart); // nothing counts before the handshake finished
      },
    });
    const change = (kind: 'line_items' | 'buyer' | 'messages') => cartNote((cart) => emit(EVENTS.change, { cart, kind }));
    const requests: Methods = {
      [EP.ready]: {
        params: isReadyParams,
        run(p: { delegate: string[]; auth?: { type?: string } }, reply) {
          if (stage === 'done' || p.delegate.length) {
            // Out of order, or delegations we never asked for (ep_cart_delegate is empty).
            reply.after = () => fail(epError(stage === 'done' ? 'invalid_state_error' : 'not_supported_error', 'The cart handshake failed.', continueUrl));
            return epError(stage === 'done' ? 'invalid_state_error' : 'not_supported_error', 'Handshake refused.');
          }
          if (stage === 'window') {
            const mc = new MessageChannel();
            port = mc.port1;
            reply.transfer.push(mc.port2);
            reply.after = () => {
              // From now on the port only: the window channel is closed for this session.
              stage = 'port';
              window.removeEventListener('message', onMessage);
              peer!.send = (m, t = []) => mc.port1.postMessage(m, t);
              mc.port1.onmessage = (e) => peer?.receive(e.data);
            };
            return { ucp: epSuccess(), upgrade: { port: mc.port2 } };
          }
          stage = 'done';
          clearTimeout(timer);
          emit(EVENTS.ready, { channel: 'port', via, delegate: p.delegate });
          if (p.auth) {
            if (!opts.auth) {
              reply.after = () => fail(epError('not_supported_error', 'No credential is available for this cart.', continueUrl));
              return epError('not_supported_error', `No ${p.auth.type ?? ''} credential available.`);
            }
            return { ucp: epSuccess(), credential: opts.auth };
          }
          return { ucp: epSuccess() };
        },
      },
      [EP.auth]: {
        params: isAuthParams,
        run: () =>
          stage === 'done' && opts.auth
            ? { ucp: epSuccess(), credential: opts.auth }
            : epError('not_supported_error', 'No credential is available.', undefined, 'recoverable'),
      },
    };
    const notifications: Methods = {
      [EP.start]: cartNote((cart) => {
        status.hidden = true;
        emit(EVENTS.start, { cart });
      }),
      [EP.lineItems]: change('line_items'),
      [EP.buyer]: change('buyer'),
      [EP.messages]: change('messages'),
      [EP.complete]: cartNote((cart) => {
        const next = handoff(cart.continue_url);
        const go = emit(EVENTS.complete, { cart, continue_url: next }, true);
        close();
        if (go) location.assign(next);
      }),
      [EP.error]: {
        params: isErrorParams,
        // Accepted at any stage (e.g. version_unsupported before `ready`): tear down, hand off.
        run: (p) => fail(errorParams(p)!),
      },
    };
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
    if (!w) return say('The pop-up was blocked.', stripEp(continueUrl));
    popup = w;
    source = () => popup;
    say('The cart is open in another window.', stripEp(continueUrl));
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
      dialog.append(f);
      timer = setTimeout(() => fallback('timeout', true), opts.readyTimeout ?? 10_000);
    },
  ).catch((e: Error) => {
    if (closed) return;
    fail(epError('cart_unavailable', e.message || 'The cart could not be created.', undefined));
  });

  return { close };
}
