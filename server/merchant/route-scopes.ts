/**
 * Which OAuth scope each merchant API route needs: the routes are guarded with it
 * (server/merchant/routes.ts), the OpenAPI document lists it (server/merchant/openapi.ts), and
 * test/merchant.test.ts walks it. Its own module so neither of those imports the other.
 */
export const ROUTE_SCOPES: ReadonlyArray<{ method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string; scope: string }> = [
  { method: 'GET', path: '/3.0/products', scope: 'products_read' },
  { method: 'GET', path: '/3.0/products/{id}', scope: 'products_read' },
  { method: 'POST', path: '/3.0/products', scope: 'products_write' },
  { method: 'PUT', path: '/3.0/products/{id}', scope: 'products_write' },
  { method: 'DELETE', path: '/3.0/products/{id}', scope: 'products_write' },
  // Sync tools: many products in one call, each answered on its own (docs/oauth.md "Batch").
  { method: 'POST', path: '/3.0/products/batch', scope: 'products_write' },
  { method: 'GET', path: '/3.0/customers', scope: 'customers_read' },
  { method: 'GET', path: '/3.0/customers/{id}', scope: 'customers_read' },
  { method: 'POST', path: '/3.0/customers', scope: 'customers_write' },
  { method: 'GET', path: '/3.0/orders', scope: 'sales_read' },
  { method: 'GET', path: '/3.0/orders/{id}', scope: 'sales_read' },
  { method: 'POST', path: '/3.0/orders', scope: 'sales_write' },
  { method: 'PUT', path: '/3.0/orders/{id}', scope: 'sales_write' },
  // Order webhooks (docs/webhooks.md): store settings.
  { method: 'GET', path: '/3.0/webhooks', scope: 'settings_read' },
  { method: 'POST', path: '/3.0/webhooks', scope: 'settings_write' },
  { method: 'GET', path: '/3.0/webhooks/{id}', scope: 'settings_read' },
  { method: 'PUT', path: '/3.0/webhooks/{id}', scope: 'settings_write' },
  { method: 'DELETE', path: '/3.0/webhooks/{id}', scope: 'settings_write' },
  { method: 'GET', path: '/3.0/webhooks/deliveries', scope: 'settings_read' },
  { method: 'POST', path: '/3.0/webhooks/deliveries/{id}/redeliver', scope: 'settings_write' },
  // Inventory levels (docs/carts.md "Stock").
  { method: 'GET', path: '/3.0/inventory/{variantId}', scope: 'inventories_read' },
  { method: 'PUT', path: '/3.0/inventory/{variantId}', scope: 'inventories_write' },
  // The same change with the variant named by its SKU in the body.
  { method: 'PUT', path: '/3.0/inventory', scope: 'inventories_write' },
  { method: 'GET', path: '/3.0/feeds', scope: 'feeds_read' },
  // Channel API keys for agent platforms (docs/access.md).
  { method: 'GET', path: '/3.0/channel_keys', scope: 'sales_channel_read' },
  { method: 'POST', path: '/3.0/channel_keys', scope: 'sales_channel_write' },
  { method: 'DELETE', path: '/3.0/channel_keys/{id}', scope: 'sales_channel_write' },
];

