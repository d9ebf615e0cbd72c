/** @jsxRuntime classic */
/** @jsx h */
/** @jsxFrag Fragment */
/**
 * `<ucp-cart>`'s UI. Widget mode: a cart button opening a modal `<dialog>` (focus moves in, is
 * trapped by the modal, and returns to the button on close). Page mode (the cart page at
 * `continue_url`, framed or not): the same body inline. The body (lines, codes, totals, checkout:
 * src/views/cart-body.tsx) is a lazily loaded chunk, imported when the dialog first opens or the
 * cart page renders; the button, the dialog and the live region are here, in the entry.
 */
import { h, Fragment } from 'preact';
import { t } from './i18n.ts';
import { cartBody, loadCartBody } from './lazy.ts';
import type { CartProps } from './cart-ui.ts';

export { cartUi, type CartUi, type CartProps } from './cart-ui.ts';

/** Keeps Tab inside the modal dialog (the modal makes the page inert, but Tab could leave to the browser). */
function trap(e: KeyboardEvent) {
  if (e.key !== 'Tab') return;
  const d = e.currentTarget as HTMLElement;
  const all = [...d.querySelectorAll<HTMLElement>('a[href],button:not(:disabled),input:not(:disabled),select')];
  const active = (d.getRootNode() as ShadowRoot).activeElement;
  const edge = e.shiftKey ? all[0] : all[all.length - 1];
  if (active === edge || !d.contains(active)) {
    e.preventDefault();
    (e.shiftKey ? all[all.length - 1] : all[0])?.focus();
  }
}

/** The cart's body once its chunk has loaded; until then "Loading…". */
function Body(props: CartProps) {
  const b = cartBody.value;
  if (!b) loadCartBody().catch(() => {});
  return b ? <b.CartBody {...props} /> : <p class="m">{t(props.store.lang.value, 'loading')}</p>;
}

export function CartView(props: CartProps) {
  const { store, uid, page, ui } = props;
  const lang = store.lang.value;
  const { dialog, opener } = ui;
  const count = store.cart.value?.line_items.reduce((n, l) => n + l.quantity, 0) ?? 0;
  const live = (
    <div class="sr" aria-live="polite" aria-atomic="true">
      {store.announcement.value}
    </div>
  );
  if (page) {
    return (
      <section class="card" aria-labelledby={`${uid}-h`}>
        <h2 id={`${uid}-h`}>{t(lang, 'yourCart')}</h2>
        <Body {...props} />
        {live}
      </section>
    );
  }
  return (
    <>
      <button
        type="button"
        ref={opener}
        part="button open"
        aria-haspopup="dialog"
        onClick={() => {
          ui.opened.value = true;
          dialog.current?.showModal();
          store.reload();
        }}
      >
        {t(lang, 'cart')} ({count})
      </button>
      <dialog ref={dialog} part="dialog" aria-labelledby={`${uid}-h`} onClose={() => opener.current?.focus()} onKeyDown={trap}>
        <div class="hd">
          <h2 id={`${uid}-h`}>{t(lang, 'yourCart')}</h2>
          <button type="button" part="close" onClick={() => dialog.current?.close()}>
            {t(lang, 'close')}
          </button>
        </div>
        {ui.opened.value ? <Body {...props} /> : null}
      </dialog>
      {live}
    </>
  );
}
