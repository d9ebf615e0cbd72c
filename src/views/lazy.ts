/**
 * Lazily loaded parts of the widget, in the entry (docs/host-js.md "Size budget"): the
 * customization picker (src/views/customize.tsx, `host-customize-<hash>.js`, which also holds the
 * option picker of products with several options, src/views/options.tsx) and the cart's body
 * (src/views/cart-body.tsx, `host-cart-body-<hash>.js`). Every storefront page view pays the entry;
 * most products have no customizations, and most page views never open the cart.
 *
 * Each chunk exports `make(kit)` (src/views/kit.ts): chunks never import the entry.
 */
import { signal, type Signal } from '@preact/signals';
import { kit, type Kit } from './kit.ts';
import type { PickerKit } from './customize.tsx';
import type { CartBodyKit } from './cart-body.tsx';

/**
 * A part loaded once, on the first `load()`: `part.value` is null until then (views read it while
 * rendering, so they re-render when it arrives). A failed load (network, integrity) is retried by
 * the next `load()`.
 */
function lazy<P>(importer: () => Promise<{ make(k: Kit): P }>): [Signal<P | null>, () => Promise<P>] {
  const part = signal<P | null>(null);
  let loading: Promise<P> | undefined;
  const load = () =>
    (loading ??= importer().then(
      (m) => (part.value = m.make(kit)),
      (e) => {
        loading = undefined;
        throw e;
      },
    ));
  return [part, load];
}

export const [picker, loadPicker] = lazy<PickerKit>(() => import('./customize.tsx'));
export const [cartBody, loadCartBody] = lazy<CartBodyKit>(() => import('./cart-body.tsx'));
