/**
 * Asking the shopper before an agent's consequential step (begin_checkout, cancel_cart;
 * docs/webmcp.md "Confirmation"): a modal `<dialog>` in its own shadow root, styled with the
 * widget's sheet (passed in by the entry), worded in the page's language. "No" has the focus, so
 * Enter or Escape never agrees by accident; the agent's abort signal closes it as a "no".
 */
type Lang = 'en' | 'fr';

const WORDS = {
  en: {
    checkout: ['An assistant wants to take your cart to checkout', 'Go to checkout', 'Not now'],
    cancel: ['An assistant wants to empty and cancel your cart', 'Cancel my cart', 'Keep my cart'],
    items: (n: number, total: string) => `${n} item${n === 1 ? '' : 's'}, total ${total}.`,
    changed: (total: string, codes: string[]) => `An assistant updated your cart.${codes.length ? ` Code${codes.length > 1 ? 's' : ''} applied: ${codes.join(', ')}.` : ''} Total ${total}.`,
    canceled: 'An assistant canceled your cart.',
  },
  fr: {
    checkout: ['Un assistant veut passer au paiement avec votre panier', 'Passer au paiement', 'Pas maintenant'],
    cancel: ['Un assistant veut vider et annuler votre panier', 'Annuler mon panier', 'Garder mon panier'],
    items: (n: number, total: string) => `${n} article${n === 1 ? '' : 's'}, total ${total}.`,
    changed: (total: string, codes: string[]) => `Un assistant a modifié votre panier.${codes.length ? ` Code${codes.length > 1 ? 's' : ''} appliqué${codes.length > 1 ? 's' : ''} : ${codes.join(', ')}.` : ''} Total ${total}.`,
    canceled: 'Un assistant a annulé votre panier.',
  },
};

/** The words for a BCP 47 language (its primary subtag; English when not French), like the widget's. */
export const words = (lang: string) => WORDS[(lang.slice(0, 2).toLowerCase() === 'fr' ? 'fr' : 'en') as Lang];

/** Shows the question; resolves true only when the shopper chose "yes". */
export function askShopper(kind: 'checkout' | 'cancel', lang: string, detail: string, adoptStyles: (root: ShadowRoot) => void, signal?: AbortSignal): Promise<boolean> {
  const [question, yes, no] = words(lang)[kind];
  const host = document.createElement('div');
  host.lang = lang;
  const root = host.attachShadow({ mode: 'open' });
  adoptStyles(root);
  const dialog = document.createElement('dialog');
  dialog.setAttribute('aria-labelledby', 'q');
  dialog.setAttribute('aria-describedby', 'd');
  const h = Object.assign(document.createElement('h2'), { id: 'q', textContent: question });
  const p = Object.assign(document.createElement('p'), { id: 'd', textContent: detail });
  const form = Object.assign(document.createElement('form'), { method: 'dialog' });
  form.className = 'row';
  const button = (value: string, text: string, cls = '') => Object.assign(document.createElement('button'), { value, textContent: text, className: cls });
  form.append(button('no', no), button('yes', yes, 'pri'));
  dialog.append(h, p, form);
  root.append(dialog);
  document.body.append(host);
  return new Promise((resolve) => {
    const done = () => {
      host.remove();
      resolve(dialog.returnValue === 'yes');
    };
    dialog.addEventListener('close', done, { once: true });
    signal?.addEventListener('abort', () => dialog.close('no'), { once: true });
    if (signal?.aborted) return done();
    dialog.showModal();
  });
}
