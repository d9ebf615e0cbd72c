/** The widget's own words (catalog and cart texts come localized from the server). */
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
  fix: 'Please correct the highlighted fields.',
};
type Key = keyof typeof en;
/**
 * Further languages: add a `Partial<typeof en>` table here (each costs ≈0.4 KB gzip of the 15 KB
 * budget, so only when a shop needs it); texts from the server are already localized.
 */
const tables: Record<string, Partial<Record<Key, string>>> = {};

export function t(lang: string, key: Key | string, ...args: Array<string | number>): string {
  const s = tables[lang.slice(0, 2)]?.[key as Key] ?? en[key as Key] ?? key;
  return s.replace(/\{(\d)\}/g, (_, i) => String(args[+i] ?? ''));
}
