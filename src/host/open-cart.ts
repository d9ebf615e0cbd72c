/**
 * `UCP.openCart` in host.js: a synchronous front for the host role, which lives in its own chunk
 * (`host-role-host-<hash>.js`, next to host.js, resolved against host.js's own URL) and is fetched on
 * the first call only, so storefront pages never download it. The handle can be closed before the
 * chunk has arrived (nothing opens then). If the chunk cannot be loaded, `ucp:cart:error` is
 * dispatched on the target like any other failure to open the cart.
 */
import type { CartHandle, OpenCartOptions } from '../embedded/host.ts';
import { UCP_VERSION } from '../wire/version.ts';

type HostRole = typeof import('./role-host.ts');
/** The host role, fetched on the first call (a failed load is retried on the next one). */
let role: Promise<HostRole> | undefined;

export function openCart(opts: OpenCartOptions): CartHandle {
  let handle: CartHandle | undefined;
  let closed = false;
  (role ??= import('./role-host.ts').catch((e) => {
    role = undefined;
    throw e;
  })).then(
    (m) => {
      if (!closed) handle = m.openCart(opts);
    },
    () => {
      if (closed) return;
      const error = {
        ucp: { version: UCP_VERSION, status: 'error' },
        messages: [{ type: 'error', code: 'cart_unavailable', content: 'The cart could not be opened (host.js failed to load its cart module).', severity: 'recoverable' }],
      };
      (opts.target ?? document.body).dispatchEvent(new CustomEvent('ucp:cart:error', { detail: { error }, bubbles: true, composed: true }));
    },
  );
  return {
    close() {
      closed = true;
      handle?.close();
    },
  };
}
