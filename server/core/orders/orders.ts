/**
 * Orders created through the merchant API. The rule lives here, not in the route: every field is
 * validated, the customer must belong to the merchant, every variant must exist in the merchant's
 * catalog, be available and need no buyer customization; prices come from the catalog (never from
 * the request) and totals are integers in the shop currency's minor units.
 */
import { z } from 'zod';
import type { DB } from '../../db/index.ts';
import type { Shop } from '../../formats/types.ts';
import { InvalidRequest, type FieldIssue } from '../shared/errors.ts';
import { validate } from '../shared/validate.ts';
import { loadVariants } from '../catalog/catalog.ts';
import { isAvailable, unitsAvailable } from '../products/stock.ts';
import { findCustomer } from './customers.ts';
import { randomToken } from '../../lib/crypto.ts';
import { enqueueOrderEvent } from './webhooks.ts';

export const MAX_ORDER_ITEMS = 100;
export const MAX_QUANTITY = 999;

export const NewOrder = z.strictObject({
  customer_id: z.string().min(1).max(128),
  items: z
    .array(
      z.strictObject({
        variant_id: z.string().min(1).max(128),
        quantity: z.number().int().min(1).max(MAX_QUANTITY),
      }),
    )
    .min(1)
    .max(MAX_ORDER_ITEMS),
  note: z.string().max(1000).optional(),
});

export interface OrderItem {
  variant_id: string;
  product_id: string;
  title: string;
  sku: string | null;
  quantity: number;
  unit_price: number;
  total: number;
}

/**
 * Order statuses and the changes allowed between them (PUT /3.0/orders/{id}); `fulfilled` and
 * `cancelled` are final. Every change emits `order.updated` (docs/webhooks.md).
 */
export const ORDER_STATUSES = ['created', 'processing', 'fulfilled', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  created: ['processing', 'fulfilled', 'cancelled'],
  processing: ['fulfilled', 'cancelled'],
  fulfilled: [],
  cancelled: [],
};

export interface Order {
  id: string;
  status: OrderStatus;
  customer_id: string;
  currency: string;
  items: OrderItem[];
  totals: { subtotal: number; total: number };
  note?: string;
  created_at: string;
}

function titleOf(v: unknown, lang: string): string {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') {
    const rec = v as Record<string, string>;
    return rec[lang] ?? Object.values(rec)[0] ?? '';
  }
  return '';
}

/** Validates and prices an order; throws InvalidRequest('validation_failed') naming every problem. */
export async function createOrder(db: DB, shop: Shop, input: unknown): Promise<Order> {
  const req = validate(NewOrder, input);
  const issues: FieldIssue[] = [];
  const customer = await findCustomer(db, shop.id, req.customer_id);
  if (!customer) issues.push({ path: '$.customer_id', code: 'unknown_customer', content: `No customer ${req.customer_id} for this merchant.` });
  const variants = await loadVariants(db, shop, req.items.map((i) => i.variant_id));
  const lang = shop.settings.default_language;
  const items: OrderItem[] = [];
  req.items.forEach((item, i) => {
    const hit = variants.get(item.variant_id);
    const path = `$.items[${i}].variant_id`;
    if (!hit) return void issues.push({ path, code: 'unknown_variant', content: `No variant ${item.variant_id} in this merchant's catalog.` });
    if (!isAvailable(hit.variant)) return void issues.push({ path, code: 'unavailable', content: `Variant ${item.variant_id} is not available.` });
    const units = unitsAvailable(hit.variant);
    if (units !== null && units < item.quantity) {
      return void issues.push({ path: `$.items[${i}].quantity`, code: 'insufficient_inventory', content: `Only ${units} of ${item.variant_id} in stock.` });
    }
    if ((hit.variant.customizations ?? []).some((d) => d.required)) {
      return void issues.push({ path, code: 'customization_required', content: `Variant ${item.variant_id} needs buyer customizations; order it through a storefront cart.` });
    }
    const unit = hit.variant.price;
    items.push({
      variant_id: hit.variant.id,
      product_id: hit.product.id,
      title: titleOf(hit.variant.title ?? hit.product.title, lang),
      sku: hit.variant.sku ?? null,
      quantity: item.quantity,
      unit_price: unit,
      total: unit * item.quantity,
    });
  });
  if (issues.length) {
    throw new InvalidRequest('validation_failed', issues.map((i) => `${i.path}: ${i.content}`).join('; '), issues);
  }
  const subtotal = items.reduce((s, i) => s + i.total, 0);
  const order: Order = {
    id: `ord_${randomToken(12)}`,
    status: 'created',
    customer_id: req.customer_id,
    currency: shop.settings.currency,
    items,
    totals: { subtotal, total: subtotal },
    ...(req.note ? { note: req.note } : {}),
    created_at: new Date().toISOString(),
  };
  // The order and its webhook deliveries (order.created) commit together.
  await db.transaction().execute(async (tx) => {
    await tx
      .insertInto('orders')
      .values({
        shop_id: shop.id,
        id: order.id,
        customer_id: order.customer_id,
        status: order.status,
        currency: order.currency,
        items: JSON.stringify(order.items),
        subtotal,
        total: subtotal,
        created_at: order.created_at,
      })
      .execute();
    await enqueueOrderEvent(tx, shop, 'order.created', order);
  });
  return order;
}

export const OrderStatusChange = z.strictObject({ status: z.enum(ORDER_STATUSES) });

/**
 * Changes an order's status following ORDER_TRANSITIONS; null when there is no such order. The same
 * status again is a no-op (no event); a change that is not allowed throws InvalidRequest
 * (`invalid_transition`). A change emits `order.updated` in the same transaction.
 */
export async function updateOrderStatus(db: DB, shop: Shop, id: string, input: unknown): Promise<Order | null> {
  const req = validate(OrderStatusChange, input);
  return db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('orders').select([...COLS]).where('shop_id', '=', shop.id).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!row) return null;
    const order = toOrder(row);
    if (order.status === req.status) return order;
    if (!ORDER_TRANSITIONS[order.status].includes(req.status)) {
      const content = `An order that is ${order.status} cannot become ${req.status}.`;
      throw new InvalidRequest('validation_failed', `$.status: ${content}`, [{ path: '$.status', code: 'invalid_transition', content }]);
    }
    await tx.updateTable('orders').set({ status: req.status }).where('shop_id', '=', shop.id).where('id', '=', id).execute();
    const updated = { ...order, status: req.status };
    await enqueueOrderEvent(tx, shop, 'order.updated', updated);
    return updated;
  });
}

type Row = { id: string; status: string; customer_id: string; currency: string; items: unknown; subtotal: number; total: number; created_at: Date | string };
const toOrder = (r: Row): Order => ({
  id: r.id,
  status: r.status as OrderStatus,
  customer_id: r.customer_id,
  currency: r.currency,
  items: r.items as OrderItem[],
  totals: { subtotal: Number(r.subtotal), total: Number(r.total) },
  created_at: new Date(r.created_at).toISOString(),
});

const COLS = ['id', 'status', 'customer_id', 'currency', 'items', 'subtotal', 'total', 'created_at'] as const;

export async function findOrder(db: DB, shopId: string, id: string): Promise<Order | null> {
  const row = await db.selectFrom('orders').select([...COLS]).where('shop_id', '=', shopId).where('id', '=', id).executeTakeFirst();
  return row ? toOrder(row) : null;
}

export async function listOrders(db: DB, shopId: string, limit: number, after: number): Promise<{ orders: Order[]; next: number | null }> {
  const rows = await db
    .selectFrom('orders')
    .select([...COLS, 'position'])
    .where('shop_id', '=', shopId)
    .where('position', '>', after)
    .orderBy('position')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  return { orders: page.map(toOrder), next: rows.length > limit ? Number(page[page.length - 1].position) : null };
}
