/**
 * The MCP Apps view's own words (the product and cart views bring theirs: src/views/i18n.ts), in
 * English and French; the language is the host's `locale` (its primary subtag), English otherwise.
 */
const en = {
  results: 'Products',
  productTitle: 'Product',
  cartTitle: 'Cart',
  noResults: 'No products matched.',
  from: 'From {0}',
  rating: 'Rated {0} out of {1}',
  reviews: '{0} reviews',
  options: 'Choose options',
  view: 'View cart ({0})',
  back: 'Back to products',
  waiting: 'Waiting for the shop…',
  searching: 'Searching for “{0}”…',
  cancelled: 'The request was cancelled{0}.',
  notUcp: 'The shop’s answer could not be read (it is not a UCP response).',
  failed: 'The shop could not do this: {0}',
  checkoutFailed: 'Checkout could not be opened ({0}). Its address: {1}',
  onShop: 'On the shop’s site',
  badLink: 'This link is not a web address and was not opened.',
  inStock: 'In stock',
};
type Key = keyof typeof en;
const fr: Record<Key, string> = {
  results: 'Produits',
  productTitle: 'Produit',
  cartTitle: 'Panier',
  noResults: 'Aucun produit ne correspond.',
  from: 'À partir de {0}',
  rating: 'Noté {0} sur {1}',
  reviews: '{0} avis',
  options: 'Choisir les options',
  view: 'Voir le panier ({0})',
  back: 'Retour aux produits',
  waiting: 'En attente de la boutique…',
  searching: 'Recherche de «\u00a0{0}\u00a0»…',
  cancelled: 'La demande a été annulée{0}.',
  notUcp: 'La réponse de la boutique est illisible (ce n’est pas une réponse UCP).',
  failed: 'La boutique n’a pas pu le faire\u00a0: {0}',
  checkoutFailed: 'Impossible d’ouvrir le paiement ({0}). Son adresse\u00a0: {1}',
  onShop: 'Sur le site de la boutique',
  badLink: 'Ce lien n’est pas une adresse web\u00a0: il n’a pas été ouvert.',
  inStock: 'En stock',
};

export function say(lang: string, key: Key, ...args: Array<string | number>): string {
  const table = lang.toLowerCase().split('-')[0] === 'fr' ? fr : en;
  return table[key].replace(/\{(\d)\}/g, (_, i) => String(args[+i] ?? ''));
}
