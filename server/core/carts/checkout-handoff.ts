/**
 * The cart's handoff to the shop's own checkout. UCP 2026-04-08 keeps checkout sessions out of our
 * interface (seed §4), so the cart leaves the protocol here: the shop's `settings.checkout` names a
 * URL template (a cart permalink such as Shopify's `/cart/{variant}:{qty},…`, or a page that takes a
 * form POST of the whole cart). Pure: the caller renders the cart and performs the answer.
 */
import type { Cart } from '../../../src/wire/cart.ts';
import type { CheckoutHandoff } from '../../formats/catalog-format.ts';
import { hasOutOfStockLine } from './carts.ts';

export type Handoff =
  | { kind: 'redirect'; url: string }
  | { kind: 'post'; url: string; fields: Record<string, string> }
  /** The shop has not connected a checkout: show the summary. */
  | { kind: 'summary' }
  /** Nothing to hand over: empty, or a line is out of stock. */
  | { kind: 'refused'; reason: 'empty' | 'out_of_stock' };

type CartBody = Omit<Cart, 'ucp'>;

const fill = (template: string, vars: Record<string, string>) => template.replace(/\{([a-z_]+)\}/g, (all, k: string) => (Object.hasOwn(vars, k) ? vars[k] : all));
const enc = (vars: Record<string, string>) => Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, encodeURIComponent(v)]));

/** The handoff of a rendered cart (`cart` as GET /api/ucp/carts/{id} returns it) under a shop's setting. */
export function checkoutHandoff(setting: CheckoutHandoff | undefined, cart: CartBody, origin: string, skus: ReadonlyMap<string, string> = new Map()): Handoff {
  if (!cart.line_items.length) return { kind: 'refused', reason: 'empty' };
  if (hasOutOfStockLine(cart.messages)) return { kind: 'refused', reason: 'out_of_stock' };
  if (!setting) return { kind: 'summary' };
  const language = String((cart.context as { language?: string } | undefined)?.language ?? '');
  const lines = cart.line_items
    .map((l) => fill(setting.line, enc({ variant_id: l.item.id, sku: skus.get(l.item.id) ?? l.item.id, quantity: String(l.quantity) })))
    .join(setting.separator);
  const target = fill(setting.url, { ...enc({ cart_id: cart.id, currency: cart.currency, language }), lines });
  const url = target.startsWith('/') ? `${origin}${target}` : target;
  if (setting.method === 'GET') return { kind: 'redirect', url };
  return { kind: 'post', url, fields: { cart_id: cart.id, cart: JSON.stringify(cart) } };
}
