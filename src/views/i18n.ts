/**
 * The widget's own words (catalog and cart texts come localized from the server), in English and
 * French. The language is the store's `lang` (the element's `lang` attribute, else the page's
 * `<html lang>`, tracked live; src/host/elements.tsx); its primary subtag picks the table
 * (`fr-CA` → `fr`), and a language without a table, or a key missing from one, falls back to English.
 * `c_*`: customization errors, chosen by the server message's stable `code` (fieldText in customize.tsx).
 */
const en = {
  add: 'Add to cart',
  variant: 'Variant',
  qty: 'Quantity',
  required: 'required',
  chars: 'characters',
  choose: 'Choose {0} to {1}',
  added: 'Added {0} to the cart.',
  cart: 'Cart',
  yourCart: 'Your cart',
  close: 'Close',
  empty: 'Your cart is empty.',
  dec: 'Decrease quantity of {0}',
  inc: 'Increase quantity of {0}',
  qtyOf: 'Quantity of {0}',
  remove: 'Remove {0}',
  removed: 'Removed {0}.',
  code: 'Discount code',
  apply: 'Apply',
  applied: 'Code {0} applied: {1}.',
  checkout: 'Checkout',
  total: 'Total {0}',
  loading: 'Loading…',
  subtotal: 'Subtotal',
  discount: 'Discount',
  items_discount: 'Item discounts',
  tax: 'Tax',
  fee: 'Fees',
  fulfillment: 'Shipping',
  unavailable: 'unavailable',
  out_of_stock: 'Out of stock',
  discontinued: 'No longer available',
  preorder: 'Pre-order: ships when released',
  backorder: 'Backorder: ships when back in stock',
  only: 'Only {0} left: {0} added.',
  fix: 'Please correct the highlighted fields.',
  c_required: 'This field is required.',
  c_pick: 'Please choose an option.',
  c_too_long: 'At most {0} characters.',
  c_too_short: 'At least {0} characters.',
  c_too_few: 'Choose at least {0}.',
  c_too_many: 'Choose at most {0}.',
  c_invalid: 'Please check this choice.',
  e_network: 'The store could not be reached.',
  e_http: 'The store sent an unexpected answer.',
  e_unavailable: 'Not available right now. Please try again.',
  retry: 'Try again',
  said: '{0}: {1}.',
};
type Key = keyof typeof en;

// French typography: a non-breaking space (\u00a0) before ':'. "pour {0}" rather than "de {0}"
// because a product title may start with a vowel ("d'…"); "choix" is the same in the plural.
const fr: Record<Key, string> = {
  add: 'Ajouter au panier',
  variant: 'Variante',
  qty: 'Quantité',
  required: 'obligatoire',
  chars: 'caractères',
  choose: 'De {0} à {1} choix',
  added: 'Ajouté au panier\u00a0: {0}.',
  cart: 'Panier',
  yourCart: 'Votre panier',
  close: 'Fermer',
  empty: 'Votre panier est vide.',
  dec: 'Diminuer la quantité pour {0}',
  inc: 'Augmenter la quantité pour {0}',
  qtyOf: 'Quantité pour {0}',
  remove: 'Retirer {0}',
  removed: 'Retiré du panier\u00a0: {0}.',
  code: 'Code de réduction',
  apply: 'Appliquer',
  applied: 'Code {0} appliqué\u00a0: {1}.',
  checkout: 'Passer au paiement',
  total: 'Total {0}',
  loading: 'Chargement…',
  subtotal: 'Sous-total',
  discount: 'Réduction',
  items_discount: 'Réductions sur les articles',
  tax: 'Taxes',
  fee: 'Frais',
  fulfillment: 'Livraison',
  unavailable: 'indisponible',
  out_of_stock: 'En rupture de stock',
  discontinued: 'N’est plus disponible',
  preorder: 'Précommande\u00a0: expédié à la sortie',
  backorder: 'Sur commande\u00a0: expédié dès le réassort',
  only: 'Plus que {0} en stock\u00a0: {0} ajouté(s).',
  fix: 'Veuillez corriger les champs signalés.',
  c_required: 'Ce champ est obligatoire.',
  c_pick: 'Veuillez choisir une option.',
  c_too_long: '{0} caractères au maximum.',
  c_too_short: '{0} caractères au minimum.',
  c_too_few: 'Au moins {0} choix.',
  c_too_many: 'Au plus {0} choix.',
  c_invalid: 'Veuillez vérifier ce choix.',
  e_network: 'La boutique est injoignable.',
  e_http: 'La boutique a envoyé une réponse inattendue.',
  e_unavailable: 'Indisponible pour le moment. Réessayez.',
  retry: 'Réessayer',
  said: '{0}\u00a0: {1}.',
};

/**
 * Tables by primary language subtag. To add a language: a `Record<Key, string>` table like `fr`
 * (complete, so the type checker finds missing keys) and an entry here. Each costs ≈0.4 KB gzip of
 * host.js's 15 KB budget (`fr`: 368 B; docs/host-js.md "Languages"), so only when a shop needs it.
 */
const tables: Record<string, Partial<Record<Key, string>>> = { fr };

const table = (lang: string) => tables[lang.toLowerCase().split('-')[0]];

export function t(lang: string, key: Key | string, ...args: Array<string | number>): string {
  const s = table(lang)?.[key as Key] ?? en[key as Key] ?? key;
  return s.replace(/\{(\d)\}/g, (_, i) => String(args[+i] ?? ''));
}

/**
 * `t` only when `lang` has a table with `key` (never the English fallback): for labels the server
 * also sends, in English only today (cart totals' `display_text`, server/core/carts/carts.ts), so a
 * French page shows the widget's French and an English one keeps the server's wording.
 */
export const own = (lang: string, key: string) => (table(lang)?.[key as Key] ? t(lang, key) : undefined);

/**
 * A message's text for the page: the server's `content` (already in the cart's language), except
 * the client's own transport failures (src/client/api.ts: network, unexpected answers, and flat
 * protocol errors such as access refusals, whose `content` is for developers), worded here for shoppers.
 */
export function messageText(lang: string, m: { code?: string; content: string }): string {
  const key = CLIENT_CODES[m.code as keyof typeof CLIENT_CODES];
  return key ? t(lang, key) : m.content;
}

/** The client's own codes and their words: network, odd answers, refused or failing requests. */
const CLIENT_CODES = { network_error: 'e_network', invalid_response: 'e_http', unavailable: 'e_unavailable' } as const;

/** Failures a retry can fix: exactly the client's own ones. */
export const retryable = (ms: Array<{ code?: string }>) => ms.some((m) => (m.code as string) in CLIENT_CODES);
