/**
 * The storefront's own words (page chrome, the checkout handoff, shopper-facing failures) in
 * English and French, like the widget (src/views/i18n.ts) and the server's cart words
 * (server/core/cart-words.ts); other languages read English. Catalog texts come from the catalog.
 */
import { wordsIn } from '../core/cart-words.ts';
const en = {
  currency: 'Currency',
  language: 'Language',
  home: 'Home',
  shop_home: 'Back to the shop',
  not_found: 'Product not found',
  cart: 'Cart',
  all_products: 'All products',
  preferences: 'Shop preferences',
  description: 'Description',
  rating: 'Rated {0} out of {1}',
  reviews: '{0} reviews',
  gallery: 'Pictures of {0}',
  co_title: 'Checkout',
  co_go: 'Continue to checkout',
  co_going: 'Taking you to the shop’s checkout…',
  co_back: 'Back to your cart',
  co_gone: 'This cart is no longer available (carts are kept for 7 days). Your items were not ordered.',
  co_empty: 'Your cart is empty: there is nothing to check out yet.',
  co_stock: 'Some items in your cart are out of stock. Change them in your cart, then check out again.',
  co_none: 'This shop has not connected its online checkout yet. Here is what you chose; nothing has been ordered.',
  hp_title: 'Handed over to the shop’s checkout',
  hp_lead: 'This is where the shop’s own checkout takes over: payment, shipping and the order happen there. This demo shows what the cart handed over; nothing has been ordered.',
  hp_bad: 'Nothing was handed over: open your cart and choose Checkout.',
  qty: 'Quantity',
  item: 'Item',
  price: 'Unit price',
  line_total: 'Total',
  currency_is: 'Prices in {0}',
  subtotal: 'Subtotal',
  items_discount: 'Discounts',
  discount: 'Discount',
  tax: 'Estimated tax',
  total: 'Total',
};
export type StoreWord = keyof typeof en;

const fr: Record<StoreWord, string> = {
  currency: 'Devise',
  language: 'Langue',
  home: 'Accueil',
  shop_home: 'Retour à la boutique',
  not_found: 'Produit introuvable',
  cart: 'Panier',
  all_products: 'Tous les produits',
  preferences: 'Préférences de la boutique',
  description: 'Description',
  rating: 'Noté {0} sur {1}',
  reviews: '{0} avis',
  gallery: 'Photos de {0}',
  co_title: 'Paiement',
  co_go: 'Continuer vers le paiement',
  co_going: 'Redirection vers le paiement de la boutique…',
  co_back: 'Retour au panier',
  co_gone: 'Ce panier n’est plus disponible (les paniers sont gardés 7 jours). Rien n’a été commandé.',
  co_empty: 'Votre panier est vide\u00a0: rien à payer pour l’instant.',
  co_stock: 'Certains articles de votre panier sont en rupture de stock. Modifiez-les dans le panier, puis revenez au paiement.',
  co_none: 'Cette boutique n’a pas encore branché son paiement en ligne. Voici ce que vous avez choisi\u00a0; rien n’a été commandé.',
  hp_title: 'Transmis au paiement de la boutique',
  hp_lead: 'C’est ici que le paiement de la boutique prend le relais\u00a0: paiement, livraison et commande s’y déroulent. Cette démo montre ce que le panier a transmis\u00a0; rien n’a été commandé.',
  hp_bad: 'Rien n’a été transmis\u00a0: ouvrez votre panier et choisissez «\u00a0Passer au paiement\u00a0».',
  qty: 'Quantité',
  item: 'Article',
  price: 'Prix unitaire',
  line_total: 'Total',
  currency_is: 'Prix en {0}',
  subtotal: 'Sous-total',
  items_discount: 'Réductions',
  discount: 'Réduction',
  tax: 'Taxes estimées',
  total: 'Total',
};

export type StoreSay = (key: StoreWord, ...args: Array<string | number>) => string;

export function storeWords(language: string): StoreSay {
  return wordsIn({ en, fr }, language);
}
