/**
 * The host's cart dialog: an accessible modal in a shadow root on the agent's page, with the shop's
 * name, a close button and one status line (loading, fallbacks, failures). It knows nothing of the
 * protocol; openCart (host.ts) puts the frame in it and tells it what to say.
 */
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

export const h = <K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text = '') => {
  const el = document.createElement(tag);
  for (const k in attrs) el.setAttribute(k, attrs[k]);
  el.textContent = text;
  return el;
};


export interface CartDialog {
  dialog: HTMLDialogElement;
  /** The status line (hidden once the cart shows). */
  status: HTMLParagraphElement;
  /** Says something on the status line, with a link to the cart on the shop and an offer to open it in a popup. */
  /** `toStore`: the link goes to the store itself (there is no cart to open). */
  say(text: string, link?: string, popup?: () => void, toStore?: boolean): void;
  /** Close the modal and take it off the page, focus back where it was. */
  remove(): void;
}

export function cartDialog(mount: HTMLElement, shopHost: string, colorScheme: string | undefined, onClose: () => void): CartDialog {
  const returnFocus = document.activeElement as HTMLElement | null;
  const box = h('div', { 'data-ucp-cart': '' });
  const root = box.attachShadow({ mode: 'open' });
  const dialog = h('dialog', { 'aria-labelledby': 't' });
  if (colorScheme) dialog.style.colorScheme = colorScheme;
  const title = h('h2', { id: 't' }, `Cart · ${shopHost}`);
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
  closeBtn.onclick = onClose;
  dialog.addEventListener('close', onClose);

  return {
    dialog,
    status,
    say(text, link, popup, toStore) {
      status.replaceChildren(text);
      status.hidden = false;
      if (popup) {
        const b = h('button', { type: 'button' }, 'Open in a new window');
        b.onclick = popup;
        status.append(' ', b);
      }
      if (link) status.append(' ', h('a', { href: link, target: '_blank', rel: 'noopener' }, `${toStore ? 'Visit the store on' : 'Open the cart on'} ${new URL(link).host}`));
    },
    remove() {
      if (dialog.open) dialog.close();
      box.remove();
      returnFocus?.focus?.();
    },
  };
}
