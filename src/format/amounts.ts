/**
 * The amounts a shopper reads in a cart, one rule for the widget's cart (src/views/cart-body.tsx),
 * the checkout handoff pages (server/storefront/checkout.ts) and docs/carts.md "What a line shows":
 *  - beside a line, its amount **before discounts** (unit price × quantity: the line's `subtotal`),
 *    so the lines add up to the Subtotal row below them;
 *  - discounts are rows of their own (Item discounts, Discount), shown negative, then tax, then the
 *    Total: Subtotal − discounts + tax = Total.
 * Showing a line after its share of an order-wide code made the lines add up to nothing on the page
 * (the share is an allocation, not a price), which is what shoppers saw as wrong arithmetic.
 */
interface Amount {
  type: string;
  amount: number;
}

/** What a line shows: its subtotal (unit price × quantity), before any discount. */
export function lineAmount(l: { item: { price: number }; quantity: number; totals: readonly Amount[] }): number {
  return l.totals.find((x) => x.type === 'subtotal')?.amount ?? l.item.price * l.quantity;
}

/** A totals row as read: discounts negative, whichever sign the cart carries them with. */
export const signedAmount = (x: Amount) => (x.type === 'discount' || x.type === 'items_discount' ? -Math.abs(x.amount) : x.amount);
