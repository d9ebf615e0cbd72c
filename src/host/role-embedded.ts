/**
 * The embedded role as loaded by host.js: its own lazily loaded chunk (`host-role-embedded-<hash>.js`),
 * imported by `startPage` (src/host/mode.ts) only on the cart page with `ep_version`/`ec_version` in
 * its URL. Joins the embedded session when framed by an allowed host (credential in memory only,
 * colour scheme applied at once), loads the cart, then sends `start` once the UI is up.
 * See docs/host-js.md "Build and delivery" and docs/embedded.md.
 */
import { detectEmbedded, startEmbedded } from '../embedded/embedded.ts';
import { epError } from '../wire/ep.ts';
import type { ErrorResponse } from '../wire/common.ts';
import type { Store } from '../state/store.ts';
import type { EmbeddedSession } from '../embedded/embedded.ts';

/** Checkout inside a frame goes to the host through `Store.handoff` (no navigation; the sandbox forbids it). */
export interface PageSession {
  session: EmbeddedSession;
}

/** `allowedOrigins`: the element's `allowed-hosts` (passed in so this chunk imports nothing from host.js). */
export async function startEmbeddedPage(el: HTMLElement, store: Store, allowedOrigins: string[]): Promise<PageSession | null> {
  const params = detectEmbedded(location);
  const session = params ? await startEmbedded(params, { allowedOrigins }).catch(() => null) : null;
  if (session) {
    if (session.credential) store.client.opts.auth = session.credential;
    // (startEmbedded has already applied it to the document.)
    if (session.colorScheme) el.setAttribute('color-scheme', session.colorScheme);
    // `complete` makes the host tear this frame down at once. Send it from a task of its own, after
    // the Checkout click has been fully handled: a frame removed while the browser still waits for it
    // to acknowledge that click loses the acknowledgement (in Chromium a CDP-driven click then never
    // completes; the e2e "complete can be cancelled" test hung on it now and then).
    store.handoff = (cart) => setTimeout(() => session.complete(cart));
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
      // No such cart (unknown, expired, another shop's): a session error the host tears down on,
      // handing the buyer to the store's home, since this page has no cart to hand over.
      const missing = !store.error.value.length || store.error.value.some((m) => m.code === 'not_found');
      const e = epError('not_found', 'Cart not found.', missing ? `${location.origin}/` : location.origin + location.pathname);
      session.error({ ...e, messages: store.error.value.length ? store.error.value : e.messages } as ErrorResponse);
    }
  }
  return session ? { session } : null;
}
