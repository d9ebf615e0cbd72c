/**
 * The server's own words in carts — totals labels and the messages about discount codes, lines and
 * customizations — in the cart's language. Catalog texts come localized from the catalog; these are ours. English
 * and French, like the demo catalog and the widget (src/views/i18n.ts); other languages read
 * English. Codes and paths never change with the language: agents act on those, people read these.
 */
const en = {
  discount: 'Discount',
  discounts: 'Discounts',
  tax: 'Estimated tax',
  code_repeated: "Code '{0}' is already applied.",
  code_invalid: "Code '{0}' is not a valid discount code.",
  code_expired: "Code '{0}' has expired.",
  code_not_yet: "Code '{0}' is not active yet.",
  code_min_subtotal: "Code '{0}' needs a subtotal of at least {1}.",
  variant_unknown: "No variant '{0}' in this shop.",
  product_not_variant: "'{0}' is a product id; a cart line takes a variant id. Its variants: {1}.",
  variant_unavailable: "Variant '{0}' is not available.",
  variant_discontinued: "Variant '{0}' is no longer sold.",
  stock_capped: 'Only {1} of {0} available: the quantity is {1} instead of {2}.',
  stock_none: '{0} is out of stock: remove it or choose another variant.',
  // Customizations ({0} is always the definition id, first and in straight quotes: host.js reads
  // it back from a missing-group message; {1} its label in the cart's language).
  cz_not_supported: 'This variant takes no customizations; remove them.',
  cz_unknown: "Unknown customization '{0}'. This variant accepts: {1}.",
  cz_once: "'{0}' ({1}) may be given only once.",
  cz_text_required: "'{0}' ({1}) is required: a text of up to {2} characters.",
  cz_too_long: "'{0}' ({1}) is at most {2} characters; got {3}.",
  cz_too_short: "'{0}' ({1}) needs at least {2} characters; got {3}.",
  cz_not_option: "'{2}' is not an option of '{0}' ({1}). Options: {3}.",
  cz_chosen_twice: "'{2}' is chosen twice for '{0}' ({1}).",
  cz_one_option: "'{0}' ({1}) takes exactly one option; got {2}.",
  cz_choose_one: "'{0}' ({1}) is required: choose one of {2}.",
  cz_choose_min: "'{0}' ({1}) is required: choose at least {2} of {3}.",
  cz_too_few: "'{0}' ({1}) needs at least {2} selections; got {3}.",
  cz_too_many: "'{0}' ({1}) allows at most {2} selections; got {3}.",
};
export type WordKey = keyof typeof en;

// French typography: « » with non-breaking spaces.
const fr: Record<WordKey, string> = {
  discount: 'Réduction',
  discounts: 'Réductions',
  tax: 'Taxes estimées',
  code_repeated: 'Le code «\u00a0{0}\u00a0» est déjà appliqué.',
  code_invalid: 'Le code «\u00a0{0}\u00a0» n’est pas un code de réduction valide.',
  code_expired: 'Le code «\u00a0{0}\u00a0» a expiré.',
  code_not_yet: 'Le code «\u00a0{0}\u00a0» n’est pas encore actif.',
  code_min_subtotal: 'Le code «\u00a0{0}\u00a0» demande un sous-total d’au moins {1}.',
  variant_unknown: 'Aucune variante «\u00a0{0}\u00a0» dans cette boutique.',
  product_not_variant: '«\u00a0{0}\u00a0» est un identifiant de produit\u00a0; une ligne de panier prend un identifiant de variante. Ses variantes\u00a0: {1}.',
  variant_unavailable: 'La variante «\u00a0{0}\u00a0» n’est pas disponible.',
  variant_discontinued: 'La variante «\u00a0{0}\u00a0» n’est plus vendue.',
  stock_capped: 'Seulement {1} disponible(s) pour {0}\u00a0: la quantité est {1} au lieu de {2}.',
  stock_none: '{0} est en rupture de stock\u00a0: retirez-le ou choisissez une autre variante.',
  cz_not_supported: 'Cette variante ne se personnalise pas\u00a0; retirez les personnalisations.',
  cz_unknown: "Personnalisation inconnue '{0}'. Cette variante accepte\u00a0: {1}.",
  cz_once: "'{0}' ({1}) ne peut être donné qu’une fois.",
  cz_text_required: "'{0}' ({1}) est obligatoire\u00a0: un texte de {2} caractères au plus.",
  cz_too_long: "'{0}' ({1}) a au plus {2} caractères\u00a0; reçu {3}.",
  cz_too_short: "'{0}' ({1}) demande au moins {2} caractères\u00a0; reçu {3}.",
  cz_not_option: "'{2}' n’est pas une option de '{0}' ({1}). Options\u00a0: {3}.",
  cz_chosen_twice: "'{2}' est choisi deux fois pour '{0}' ({1}).",
  cz_one_option: "'{0}' ({1}) prend exactement une option\u00a0; reçu {2}.",
  cz_choose_one: "'{0}' ({1}) est obligatoire\u00a0: choisissez parmi {2}.",
  cz_choose_min: "'{0}' ({1}) est obligatoire\u00a0: choisissez-en au moins {2} parmi {3}.",
  cz_too_few: "'{0}' ({1}) demande au moins {2} choix\u00a0; reçu {3}.",
  cz_too_many: "'{0}' ({1}) accepte au plus {2} choix\u00a0; reçu {3}.",
};

export type Say = (key: WordKey, ...args: Array<string | number>) => string;

/**
 * A `say` over word tables (English first): a language's primary subtag picks its table, English
 * otherwise; `{0}`… are filled with the arguments. Also used for the storefront's own words.
 */
export function wordsIn<K extends string>(tables: { en: Record<K, string> } & Record<string, Record<K, string>>, language: string) {
  const table = tables[language.toLowerCase().split('-')[0]] ?? tables.en;
  return (key: K, ...args: Array<string | number>) => table[key].replace(/\{(\d)\}/g, (_, i) => String(args[+i] ?? ''));
}

/** The server's cart words in a language (BCP 47). */
export function wordsFor(language: string): Say {
  return wordsIn({ en, fr }, language);
}
