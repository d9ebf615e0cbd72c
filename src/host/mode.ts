/**
 * Mode selection (EMBEDDED.md §14.1): `ep_version`/`ec_version` in the URL ⇒ embedded (the cart
 * page inside an agent's frame, when the framing origin is allowed); an explicit `UCP.openCart()`
 * call ⇒ host; otherwise widget. The embedded role is a separate chunk of host.js
 * (src/host/role-embedded.ts), fetched here only in embedded mode.
 */
import type { PageSession } from './role-embedded.ts';
import type { Store } from '../state/store.ts';

export type Mode = 'widget' | 'embedded' | 'host';

export function selectMode(loc: Pick<Location, 'search'>): Mode {
  const q = new URLSearchParams(loc.search);
  return q.has('ep_version') || q.has('ec_version') ? 'embedded' : 'widget';
}

// PageSession is declared by the embedded role (role-embedded.ts), which is the module that makes one.
export type { PageSession };

/** `allowed-hosts` is a space-separated origin list (the same list as the page's frame-ancestors). */
export function allowedHosts(el: Element): string[] {
  return (el.getAttribute('allowed-hosts') ?? '').split(/\s+/).filter(Boolean);
}

/**
 * Starts the cart page. In embedded mode this loads the embedded role (its own chunk) and joins the
 * session (see role-embedded.ts); otherwise, or when that chunk cannot be loaded, the cart page runs
 * as a plain page. Returns null for a plain page.
 */
export async function startPage(el: HTMLElement, store: Store): Promise<PageSession | null> {
  if (selectMode(location) === 'embedded') {
    const role = await import('./role-embedded.ts').catch(() => null);
    if (role) return role.startEmbeddedPage(el, store, allowedHosts(el));
  }
  await store.load();
  return null;
}
