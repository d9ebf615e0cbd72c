/**
 * The server's own words in carts — totals labels and the messages about discount codes and lines
 * — in the cart's language. Catalog texts come localized from the catalog; these are ours. English
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
  variant_unavailable: "Variant '{0}' is not available.",
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
  variant_unavailable: 'La variante «\u00a0{0}\u00a0» n’est pas disponible.',
};

const tables: Record<string, Record<WordKey, string>> = { en, fr };

export type Say = (key: WordKey, ...args: Array<string | number>) => string;

/** The words of a language (BCP 47; its primary subtag picks the table, English otherwise). */
export function wordsFor(language: string): Say {
  const table = tables[language.toLowerCase().split('-')[0]] ?? en;
  return (key, ...args) => table[key].replace(/\{(\d)\}/g, (_, i) => String(args[+i] ?? ''));
}
