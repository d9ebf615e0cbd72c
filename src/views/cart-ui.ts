/** `<ucp-cart>`'s view state and props, shared by the entry's cart view and the lazily loaded body. */
import { createRef } from 'preact';
import { signal } from '@preact/signals';
import type { Store } from '../state/store.ts';

/**
 * The view's own state, kept by the element (no hooks: the element re-renders the whole view in an
 * `effect`, so every signal read while rendering is a dependency, see src/host/elements.tsx).
 */
export const cartUi = () => ({
  code: signal(''),
  /** The dialog has been opened once (its body's chunk is loaded then, not on every page view). */
  opened: signal(false),
  /** The answer to the last code applied: the server's rejection, or accepted (worded while rendering). */
  codeMsg: signal<{ c: string; title?: string; warn?: string } | null>(null),
  dialog: createRef<HTMLDialogElement>(),
  opener: createRef<HTMLButtonElement>(),
});
export type CartUi = ReturnType<typeof cartUi>;

export interface CartProps {
  store: Store;
  ui: CartUi;
  uid: string;
  page?: boolean;
}
