/**
 * Mode selection (EMBEDDED.md §14.1): `ep_version`/`ec_version` in the URL ⇒ embedded (the cart
 * page inside an agent's frame, when the framing origin is allowed); an explicit `UCP.openCart()`
 * call ⇒ host; otherwise widget. Page mode wires the cart store to the embedded session.
 */
import { detectEmbedded, startEmbedded, type EmbeddedSession } from '../embedded/index.ts';
import { epError } from '../wire/ep.ts';
import type { Cart } from '../wire/cart.ts';
import type { ErrorResponse } from '../wire/common.ts';
import type { Store } from '../state/store.ts';

export type Mode = 'widget' | 'embedded' | 'host';

export function selectMode(loc: Pick<Location, 'search'>): Mode {
  const q = new URLSearchParams(loc.search);
  return q.has('ep_version') || q.has('ec_version') ? 'embedded' : 'widget';
}

export interface PageSession {
  session: EmbeddedSession;
  /** Checkout inside a frame: hand over to the host (no navigation; the sandbox forbids it). */
  checkout(cart: Cart): void;
}

/** `allowed-hosts` is a space-separated origin list (the same list as the page's frame-ancestors). */
export function allowedHosts(el: Element): string[] {
  return (el.getAttribute('allowed-hosts') ?? '').split(/\s+/).filter(Boolean);
}

/**
 * Starts the cart page: joins the embedded session when framed by an allowed host (credential in
 * memory only, colour scheme applied at once), loads the cart, then sends `start` once the UI is
 * up. Returns null for a plain page.
 */
export async function startPage(el: HTMLElement, store: Store): Promise<PageSession | null> {
  const params = selectMode(location) === 'embedded' ? detectEmbedded(location) : null;
  const session = params ? await startEmbedded(params, { allowedOrigins: allowedHosts(el) }).catch(() => null) : null;
  if (session) {
    if (session.credential) store.client.opts.auth = session.credential;
    // (startEmbedded has already applied it to the document.)
    if (session.colorScheme) el.setAttribute('color-scheme', session.colorScheme);
    store.observer = {
      changed(cart, messagesChanged) {
        session.lineItemsChanged(cart);
        if (messagesChanged) session.messagesChanged(cart);
      },
    };
  }
  await store.load();
  if (session) {
    const cart = store.cart.value;
    if (cart) requestAnimationFrame(() => session.start(cart));
    else {
      const e = epError('not_found', 'Cart not found.', location.origin + location.pathname);
      session.error({ ...e, messages: store.error.value.length ? store.error.value : e.messages } as ErrorResponse);
    }
  }
  return session ? { session, checkout: (cart) => session.complete(cart) } : null;
}
