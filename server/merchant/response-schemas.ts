/**
 * The merchant API's answers as zod schemas, for the OpenAPI document's `components.schemas`
 * (server/merchant/openapi.ts). Each is held equal at compile time to the type the core returns
 * (`same` below), so the document says what the handlers in server/merchant/routes.ts send.
 */
import { z } from 'zod';
import { StoredProduct } from '../formats/catalog-format.ts';
import type { Customer } from '../core/orders/customers.ts';
import { ORDER_STATUSES, type Order } from '../core/orders/orders.ts';
import type { InventoryLevel } from '../core/products/inventory.ts';
import type { BatchItemResult } from '../core/catalog/catalog-batch.ts';
import type { DeliveryLogEntry } from '../core/orders/webhooks.ts';
import { WEBHOOK_EVENTS, type WebhookEndpoint } from '../core/orders/webhook-endpoints.ts';
import type { ChannelKey } from '../core/access/channel-keys.ts';
import { schemaRef, matches, type ComponentRegistry } from '../http/openapi-schema.ts';

const iso = () => z.string().describe('ISO 8601 time (UTC).');

const CustomerSchema = z.object({ id: z.string(), email: z.string(), first_name: z.string().nullable(), last_name: z.string().nullable(), created_at: iso() });
const OrderSchema = z.object({
  id: z.string(),
  status: z.enum(ORDER_STATUSES),
  customer_id: z.string(),
  currency: z.string(),
  items: z.array(z.object({ variant_id: z.string(), product_id: z.string(), title: z.string(), sku: z.string().nullable(), quantity: z.int(), unit_price: z.int(), total: z.int() })),
  totals: z.object({ subtotal: z.int(), total: z.int() }).describe('Minor units of `currency`.'),
  note: z.string().optional(),
  created_at: iso(),
});
const InventoryLevelSchema = z.object({
  variant_id: z.string(),
  product_id: z.string(),
  sku: z.string().nullable(),
  tracked: z.boolean().describe('False when the variant\'s inventory is not tracked (always available).'),
  on_hand: z.int().nullable().describe('Units on hand (null when not tracked).'),
  available: z.int().nullable().describe('Units a cart may take now; null = no limit.'),
  status: z.string().describe('The UCP availability status the catalog shows.'),
});
const BatchItemSchema = z.object({
  index: z.int().describe('The item\'s position in `products`.'),
  id: z.string().nullable().describe('The item\'s `id`, when it has a string one.'),
  status: z.enum(['created', 'updated', 'unchanged', 'error']).describe('`unchanged`: equal to what is stored, not written.'),
  errors: z.array(z.object({ path: z.string(), code: z.string(), message: z.string() })).optional().describe('Why the item was not written (status `error`), one entry per field.'),
});
const WebhookSchema = z.object({ id: z.string(), url: z.string(), events: z.array(z.enum(WEBHOOK_EVENTS)), active: z.boolean(), created_at: iso() });
const DeliverySchema = z.object({
  id: z.string(),
  endpoint_id: z.string(),
  url: z.string(),
  event: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.int(),
  next_attempt_at: z.string().nullable(),
  last_status: z.int().nullable(),
  last_error: z.string().nullable(),
  kid: z.string().nullable(),
  created_at: iso(),
  delivered_at: z.string().nullable(),
  payload: z.unknown().describe('The signed body sent (docs/webhooks.md).'),
});
const ChannelKeySchema = z.object({
  id: z.string(),
  shop_id: z.string(),
  prefix: z.string().describe('First characters of the key, for telling keys apart.'),
  label: z.string().nullable(),
  profile_url: z.string(),
  created_at: iso(),
  revoked_at: z.string().nullable(),
});
const Counts = z.object({ created: z.int(), updated: z.int(), unchanged: z.int(), unavailable: z.int(), variants: z.int(), skipped: z.int() });
const FeedSchema = z.object({
  url: z.string(),
  format: z.string().nullable().describe('The format it was last read as (shopify, woocommerce, google, jsonld, ucp).'),
  every_seconds: z.int().nullable().describe('How often the server imports it again; null: imported by hand only.'),
  next_due: iso().nullable(),
  last_run_at: iso().nullable(),
  last_status: z.enum(['imported', 'unchanged', 'failed']).nullable().describe('unchanged: the feed answered 304 Not Modified; nothing was written.'),
  last_counts: Counts.nullable(),
  last_error: z.string().nullable(),
});
const IssuedChannelKeySchema = ChannelKeySchema.extend({ key: z.string().describe('The key itself (`ucp_sk_…`): shown in this answer only; store it now.') });

const Pagination = z.object({ limit: z.int(), next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last.') });
const page = <K extends string>(key: K, item: z.ZodType) => z.object({ [key]: z.array(item), pagination: Pagination } as Record<K, z.ZodType>);

const ErrorEnvelope = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.object({ path: z.string(), code: z.string(), message: z.string() })).optional().describe('One per invalid field (422).'),
    required_scope: z.string().optional().describe('The scope this call needs (403).'),
  }),
});

void [
  matches<typeof CustomerSchema, Customer>(true),
  matches<typeof OrderSchema, Order>(true),
  matches<typeof InventoryLevelSchema, InventoryLevel>(true),
  matches<typeof BatchItemSchema, BatchItemResult>(true),
  matches<typeof WebhookSchema, WebhookEndpoint>(true),
  matches<typeof DeliverySchema, DeliveryLogEntry>(true),
  matches<typeof ChannelKeySchema, ChannelKey>(true),
];

export function registerMerchantSchemas(r: ComponentRegistry) {
  r.add(StoredProduct, { id: 'Product', description: 'A product as stored (the catalog file format, docs/catalog-format.md): what the UCP catalog of the shop serves.' });
  r.add(CustomerSchema, { id: 'Customer' });
  r.add(OrderSchema, { id: 'Order' });
  r.add(InventoryLevelSchema, { id: 'InventoryLevel', description: 'One variant\'s stock.' });
  r.add(WebhookSchema, { id: 'Webhook', description: 'An order webhook endpoint.' });
  r.add(DeliverySchema, { id: 'WebhookDelivery', description: 'One webhook delivery and its attempts.' });
  r.add(ChannelKeySchema, { id: 'ChannelKey', description: 'A channel API key record (never the key itself).' });
  r.add(IssuedChannelKeySchema, { id: 'IssuedChannelKey', description: 'A channel API key just issued, with the key.' });
  r.add(Pagination, { id: 'Pagination' });
  r.add(page('products', StoredProduct), { id: 'ProductPage' });
  r.add(z.object({ results: z.array(BatchItemSchema) }), { id: 'ProductBatchResult', description: 'One result per item of the batch, in order.' });
  r.add(page('customers', CustomerSchema), { id: 'CustomerPage' });
  r.add(page('orders', OrderSchema), { id: 'OrderPage' });
  r.add(page('deliveries', DeliverySchema), { id: 'WebhookDeliveryPage' });
  r.add(z.object({ webhooks: z.array(WebhookSchema) }), { id: 'WebhookList' });
  r.add(z.object({ channel_keys: z.array(ChannelKeySchema) }), { id: 'ChannelKeyList' });
  r.add(z.object({ feeds: z.array(FeedSchema) }), { id: 'FeedList', description: 'The shop\'s feeds imported by URL (`ucp-storefront import URL`), each with its schedule and last result.' });
  r.add(ErrorEnvelope, { id: 'Error', description: 'Every merchant API error: `{error: {code, message, details?, required_scope?}}`.' });
}

/** The success body of each route (`METHOD path` as in ROUTE_SCOPES); a 204 has none. */
export const SUCCESS_BODIES: Readonly<Record<string, ReturnType<typeof schemaRef>>> = {
  'GET /3.0/products': schemaRef('ProductPage'),
  'GET /3.0/products/{id}': schemaRef('Product'),
  'POST /3.0/products': schemaRef('Product'),
  'PUT /3.0/products/{id}': schemaRef('Product'),
  'POST /3.0/products/batch': schemaRef('ProductBatchResult'),
  'GET /3.0/customers': schemaRef('CustomerPage'),
  'GET /3.0/customers/{id}': schemaRef('Customer'),
  'POST /3.0/customers': schemaRef('Customer'),
  'GET /3.0/orders': schemaRef('OrderPage'),
  'GET /3.0/orders/{id}': schemaRef('Order'),
  'POST /3.0/orders': schemaRef('Order'),
  'PUT /3.0/orders/{id}': schemaRef('Order'),
  'GET /3.0/webhooks': schemaRef('WebhookList'),
  'POST /3.0/webhooks': schemaRef('Webhook'),
  'GET /3.0/webhooks/{id}': schemaRef('Webhook'),
  'PUT /3.0/webhooks/{id}': schemaRef('Webhook'),
  'GET /3.0/webhooks/deliveries': schemaRef('WebhookDeliveryPage'),
  'POST /3.0/webhooks/deliveries/{id}/redeliver': schemaRef('WebhookDelivery'),
  'GET /3.0/feeds': schemaRef('FeedList'),
  'GET /3.0/inventory/{variantId}': schemaRef('InventoryLevel'),
  'PUT /3.0/inventory/{variantId}': schemaRef('InventoryLevel'),
  'PUT /3.0/inventory': schemaRef('InventoryLevel'),
  'GET /3.0/channel_keys': schemaRef('ChannelKeyList'),
  'POST /3.0/channel_keys': schemaRef('IssuedChannelKey'),
  'DELETE /3.0/channel_keys/{id}': schemaRef('ChannelKey'),
};
