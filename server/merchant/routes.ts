/**
 * Merchant REST API 3.0 at `{platform_origin}/merchants/{merchant_id}/3.0/...` (the merchant's
 * `api_endpoint`). Every route needs a bearer token issued for that merchant: missing or invalid
 * token 401, token of another merchant 404 (the merchant is not revealed), missing scope 403 naming
 * it. Errors use one envelope: `{ "error": { "code", "message", "details"?, "required_scope"? } }`.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { API_PATH_VERSION } from '../version.ts';
import type { AppEnv } from '../http/env.ts';
import { readJson as readJsonBody } from '../http/body.ts';
import type { Shop } from '../formats/types.ts';
import { DomainError } from '../core/shared/errors.ts';
import { validate } from '../core/shared/validate.ts';
import { MAX_MERCHANT_STRING_LENGTH } from '../../src/wire/input.ts';
import { asDomainError, envelope } from './errors.ts';
import { findShopById } from '../core/shops/shops.ts';
import { StoredProduct } from '../formats/catalog-format.ts';
import { deleteProduct, upsertProducts } from '../core/catalog/catalog-store.ts';
import { writeProductBatch } from '../core/catalog/catalog-batch.ts';
import { createCustomer, findCustomer, listCustomers } from '../core/orders/customers.ts';
import { createOrder, findOrder, listOrders, updateOrderStatus } from '../core/orders/orders.ts';
import { getInventory, setInventory, setInventoryBySku } from '../core/products/inventory.ts';
import { listFeeds } from '../import/feeds.ts';
import { listDeliveries, redeliver } from '../core/orders/webhooks.ts';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, updateEndpoint } from '../core/orders/webhook-endpoints.ts';
import { ChannelKeyInput, issueChannelKey, listChannelKeys, revokeChannelKey } from '../core/access/channel-keys.ts';
import { allowInsecureProfiles } from '../http/authenticate.ts';
import { authenticateBearer, issuer } from '../oauth/bearer.ts';
import type { AccessTokenInfo } from '../oauth/model.ts';
import { merchantOpenApi } from './openapi.ts';

/** The merchant API's path version (server/version.ts: the one place that names versions). */
export const API_VERSION = API_PATH_VERSION;

export { ROUTE_SCOPES } from './route-scopes.ts';


type MerchantEnv = AppEnv & { Variables: AppEnv['Variables'] & { merchant: Shop; token: AccessTokenInfo } };



/** A merchant body: JSON (empty is malformed), the merchant text rule applied to all of it (400 `invalid_input`). */
const readJson = (c: Context) => readJsonBody(c, { text: { maxString: MAX_MERCHANT_STRING_LENGTH, code: 'invalid_input' } });

/** `limit` (1..250, default 50) and an opaque `cursor` from the previous page. */
function pageParams(c: Context): { limit: number; after: number } {
  const rawLimit = c.req.query('limit');
  const limit = rawLimit === undefined ? 50 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 250) throw new DomainError('malformed', 'invalid_parameter', 'limit must be an integer from 1 to 250.');
  const cursor = c.req.query('cursor');
  if (cursor === undefined || cursor === '') return { limit, after: 0 };
  // Only a cursor this API wrote round-trips exactly; base64url decoding alone skips stray characters.
  const m = /^p:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const after = m ? Number(m[1]) : -1;
  if (after < 0 || cursorOf(after) !== cursor) throw new DomainError('malformed', 'invalid_parameter', 'cursor is not one this API returned.');
  return { limit, after };
}

const cursorOf = (position: number | null) => (position === null ? null : Buffer.from(`p:${position}`).toString('base64url'));

/** Authenticates the bearer token, binds it to the merchant in the path and checks the scope. */
function guard(scope: string): MiddlewareHandler<MerchantEnv> {
  return async (c, next) => {
    const auth = await authenticateBearer(c as unknown as Context<AppEnv>);
    if (!auth.ok) return auth.response;
    const merchantId = c.req.param('merchantId') ?? '';
    const notFound = new DomainError('not_found', 'not_found', 'No such merchant for this access token.');
    if (auth.token.merchantId !== merchantId) return envelope(c, notFound);
    const shop = await findShopById(c.get('db'), merchantId);
    if (!shop) return envelope(c, notFound);
    if (!auth.token.scope.includes(scope)) {
      c.header('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${scope}", error_description="This call needs the ${scope} scope"`);
      return envelope(c, new DomainError('forbidden', 'insufficient_scope', `This call needs the ${scope} scope.`), { required_scope: scope });
    }
    c.set('merchant', shop);
    c.set('token', auth.token);
    await next();
  };
}

export function merchantRoutes() {
  const r = new Hono<MerchantEnv>();
  r.use('*', async (c, next) => {
    c.header('Cache-Control', 'no-store');
    try {
      await next();
    } catch (err) {
      c.res = envelope(c, asDomainError(err));
    }
  });
  r.onError((err, c) => envelope(c, asDomainError(err)));

  const v = `/${API_VERSION}`;

  // The OpenAPI 3.1 document of this API (public: no token; server/merchant/openapi.ts).
  r.get(`${v}/openapi.json`, (c) => c.json(merchantOpenApi(issuer(c.get('config'), c.get('origin')), c.req.param('merchantId') ?? '')));

  // One group of routes per resource, each below.
  productRoutes(r, v);
  inventoryRoutes(r, v);
  customerRoutes(r, v);
  orderRoutes(r, v);
  webhookRoutes(r, v);
  channelKeyRoutes(r, v);

  // Anything else under the merchant prefix: the same envelope.
  r.all('*', (c) => envelope(c, new DomainError('not_found', 'not_found', `Nothing at ${c.req.method} ${new URL(c.req.url).pathname}.`)));
  return r;
}

/** Products: list, read, create, replace, delete (written through catalog-store, so the UCP search sees them at once). */
function productRoutes(r: Hono<MerchantEnv>, v: string): void {
  // Products: the very catalog the UCP transport searches (written through catalog-store).
  r.get(`${v}/products`, guard('products_read'), async (c) => {
    const { limit, after } = pageParams(c);
    const rows = await c
      .get('db')
      .selectFrom('products')
      .select(['doc', 'position'])
      .where('shop_id', '=', c.get('merchant').id)
      .where('position', '>', after)
      .orderBy('position')
      .limit(limit + 1)
      .execute();
    const page = rows.slice(0, limit);
    const next = rows.length > limit ? Number(page[page.length - 1].position) : null;
    return c.json({ products: page.map((p) => p.doc), pagination: { limit, next_cursor: cursorOf(next) } });
  });

  const loadProduct = async (c: Context<MerchantEnv>, id: string) => {
    const row = await c.get('db').selectFrom('products').select('doc').where('shop_id', '=', c.get('merchant').id).where('id', '=', id).executeTakeFirst();
    return row ? (row.doc as StoredProduct) : null;
  };

  /** Variant ids are unique per merchant: refuse ones another product already uses. */
  const checkVariantIds = async (c: Context<MerchantEnv>, p: StoredProduct) => {
    const ids = p.variants.map((v) => v.id);
    const dup = ids.find((id, i) => ids.indexOf(id) !== i);
    if (dup) throw new DomainError('invalid', 'validation_failed', `Variant id ${dup} appears twice.`, [{ path: '$.variants', code: 'duplicate_variant_id', content: `Variant id ${dup} appears twice.` }]);
    const taken = await c
      .get('db')
      .selectFrom('variants')
      .select(['id', 'product_id'])
      .where('shop_id', '=', c.get('merchant').id)
      .where('id', 'in', ids)
      .where('product_id', '!=', p.id)
      .executeTakeFirst();
    if (taken) throw new DomainError('conflict', 'variant_id_taken', `Variant id ${taken.id} belongs to product ${taken.product_id}.`);
  };

  // The shop's feeds and their last results (ucp-storefront import URL [--every]: docs/import-feeds.md).
  r.get(`${v}/feeds`, guard('feeds_read'), async (c) => {
    const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
    const feeds = (await listFeeds(c.get('db'), c.get('merchant').id)).map((f) => ({
      url: f.url,
      format: f.format,
      every_seconds: f.interval_seconds,
      next_due: iso(f.next_due),
      last_run_at: iso(f.last_run_at),
      last_status: f.last_status,
      last_counts: f.last_counts,
      last_error: f.last_error,
    }));
    return c.json({ feeds });
  });

  r.get(`${v}/products/:id`, guard('products_read'), async (c) => {
    const p = await loadProduct(c, c.req.param('id'));
    if (!p) throw new DomainError('not_found', 'not_found', `No product ${c.req.param('id')}.`);
    return c.json(p);
  });

  r.post(`${v}/products`, guard('products_write'), async (c) => {
    const p = validate(StoredProduct, await readJson(c));
    if (await loadProduct(c, p.id)) throw new DomainError('conflict', 'product_exists', `Product ${p.id} already exists; use PUT to replace it.`);
    await checkVariantIds(c, p);
    await upsertProducts(c.get('db'), c.get('merchant'), [p]);
    c.header('Location', `${new URL(c.req.url).pathname}/${encodeURIComponent(p.id)}`);
    return c.json(p, 201);
  });

  // Many products at once (sync tools): each item answered on its own, the valid ones written together.
  r.post(`${v}/products/batch`, guard('products_write'), async (c) => c.json(await writeProductBatch(c.get('db'), c.get('merchant'), await readJson(c))));

  r.put(`${v}/products/:id`, guard('products_write'), async (c) => {
    const id = c.req.param('id');
    const body = await readJson(c);
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      const bodyId = (body as Record<string, unknown>).id;
      if (bodyId !== undefined && bodyId !== id) {
        throw new DomainError('invalid', 'validation_failed', 'The body id must match the path.', [{ path: '$.id', code: 'id_mismatch', content: `Expected ${id}.` }]);
      }
    }
    const p = validate(StoredProduct, { ...(body as object), id });
    if (!(await loadProduct(c, id))) throw new DomainError('not_found', 'not_found', `No product ${id}; create it with POST.`);
    await checkVariantIds(c, p);
    await upsertProducts(c.get('db'), c.get('merchant'), [p]);
    return c.json(p);
  });

  r.delete(`${v}/products/:id`, guard('products_write'), async (c) => {
    const ok = await deleteProduct(c.get('db'), c.get('merchant').id, c.req.param('id'));
    if (!ok) throw new DomainError('not_found', 'not_found', `No product ${c.req.param('id')}.`);
    return c.body(null, 204);
  });
}

/** Inventory: one variant's level; a change is what the next cart read checks against. */
function inventoryRoutes(r: Hono<MerchantEnv>, v: string): void {
  // Inventory: one variant's level; a change is what the next cart read checks against.
  r.get(`${v}/inventory/:variantId`, guard('inventories_read'), async (c) => {
    const level = await getInventory(c.get('db'), c.get('merchant').id, c.req.param('variantId'));
    if (!level) throw new DomainError('not_found', 'not_found', `No variant ${c.req.param('variantId')}.`);
    return c.json(level);
  });

  // The same change naming the variant by its SKU: {"sku": "…", "available": n} or {"sku": "…", "adjust": ±n}.
  r.put(`${v}/inventory`, guard('inventories_write'), async (c) => c.json(await setInventoryBySku(c.get('db'), c.get('merchant').id, await readJson(c))));

  r.put(`${v}/inventory/:variantId`, guard('inventories_write'), async (c) => {
    const level = await setInventory(c.get('db'), c.get('merchant').id, c.req.param('variantId'), await readJson(c));
    if (!level) throw new DomainError('not_found', 'not_found', `No variant ${c.req.param('variantId')}.`);
    return c.json(level);
  });
}

/** Customers. */
function customerRoutes(r: Hono<MerchantEnv>, v: string): void {
  // Customers
  r.get(`${v}/customers`, guard('customers_read'), async (c) => {
    const { limit, after } = pageParams(c);
    const { customers, next } = await listCustomers(c.get('db'), c.get('merchant').id, limit, after);
    return c.json({ customers, pagination: { limit, next_cursor: cursorOf(next) } });
  });

  r.get(`${v}/customers/:id`, guard('customers_read'), async (c) => {
    const cus = await findCustomer(c.get('db'), c.get('merchant').id, c.req.param('id'));
    if (!cus) throw new DomainError('not_found', 'not_found', `No customer ${c.req.param('id')}.`);
    return c.json(cus);
  });

  r.post(`${v}/customers`, guard('customers_write'), async (c) => {
    const cus = await createCustomer(c.get('db'), c.get('merchant').id, await readJson(c));
    c.header('Location', `${new URL(c.req.url).pathname}/${cus.id}`);
    return c.json(cus, 201);
  });
}

/** Orders (sales) and their status changes. */
function orderRoutes(r: Hono<MerchantEnv>, v: string): void {
  // Orders (sales)
  r.get(`${v}/orders`, guard('sales_read'), async (c) => {
    const { limit, after } = pageParams(c);
    const { orders, next } = await listOrders(c.get('db'), c.get('merchant').id, limit, after);
    return c.json({ orders, pagination: { limit, next_cursor: cursorOf(next) } });
  });

  r.get(`${v}/orders/:id`, guard('sales_read'), async (c) => {
    const o = await findOrder(c.get('db'), c.get('merchant').id, c.req.param('id'));
    if (!o) throw new DomainError('not_found', 'not_found', `No order ${c.req.param('id')}.`);
    return c.json(o);
  });

  r.post(`${v}/orders`, guard('sales_write'), async (c) => {
    const o = await createOrder(c.get('db'), c.get('merchant'), await readJson(c));
    c.header('Location', `${new URL(c.req.url).pathname}/${o.id}`);
    return c.json(o, 201);
  });

  // Status changes (the rule is in core/orders/orders.ts); each change emits order.updated.
  r.put(`${v}/orders/:id`, guard('sales_write'), async (c) => {
    const o = await updateOrderStatus(c.get('db'), c.get('merchant'), c.req.param('id'), await readJson(c));
    if (!o) throw new DomainError('not_found', 'not_found', `No order ${c.req.param('id')}.`);
    return c.json(o);
  });
}

/** Order webhooks: endpoints and the delivery log (docs/webhooks.md). */
function webhookRoutes(r: Hono<MerchantEnv>, v: string): void {
  // Order webhooks: endpoints and the delivery log (docs/webhooks.md).
  r.get(`${v}/webhooks`, guard('settings_read'), async (c) => {
    return c.json({ webhooks: await listEndpoints(c.get('db'), c.get('merchant').id) });
  });

  r.get(`${v}/webhooks/deliveries`, guard('settings_read'), async (c) => {
    const { limit, after } = pageParams(c);
    const status = c.req.query('status');
    if (status !== undefined && !['pending', 'delivered', 'failed'].includes(status)) throw new DomainError('malformed', 'invalid_parameter', 'status must be pending, delivered or failed.');
    const { deliveries, next } = await listDeliveries(c.get('db'), c.get('merchant').id, { limit, after, status });
    return c.json({ deliveries, pagination: { limit, next_cursor: cursorOf(next) } });
  });

  r.post(`${v}/webhooks`, guard('settings_write'), async (c) => {
    const w = await createEndpoint(c.get('db'), c.get('merchant'), await readJson(c), c.get('config').mode);
    c.header('Location', `${new URL(c.req.url).pathname}/${w.id}`);
    return c.json(w, 201);
  });

  r.get(`${v}/webhooks/:id`, guard('settings_read'), async (c) => {
    const w = await getEndpoint(c.get('db'), c.get('merchant').id, c.req.param('id'));
    if (!w) throw new DomainError('not_found', 'not_found', `No webhook ${c.req.param('id')}.`);
    return c.json(w);
  });

  r.put(`${v}/webhooks/:id`, guard('settings_write'), async (c) => {
    const w = await updateEndpoint(c.get('db'), c.get('merchant').id, c.req.param('id'), await readJson(c), c.get('config').mode);
    if (!w) throw new DomainError('not_found', 'not_found', `No webhook ${c.req.param('id')}.`);
    return c.json(w);
  });

  r.post(`${v}/webhooks/deliveries/:id/redeliver`, guard('settings_write'), async (c) => {
    const r = await redeliver(c.get('db'), c.get('merchant').id, c.req.param('id'));
    if ('delivery' in r) return c.json(r.delivery, 202);
    if (r.refused === 'not_found') throw new DomainError('not_found', 'not_found', `No webhook delivery ${c.req.param('id')}.`);
    if (r.refused === 'already_pending') throw new DomainError('conflict', 'already_pending', 'This delivery is still pending; it will be attempted again on its own.');
    throw new DomainError('conflict', 'endpoint_unavailable', 'The endpoint of this delivery was deleted or is disabled; enable it (PUT /3.0/webhooks/{id} {"active": true}) first.');
  });

  r.delete(`${v}/webhooks/:id`, guard('settings_write'), async (c) => {
    const ok = await deleteEndpoint(c.get('db'), c.get('merchant').id, c.req.param('id'));
    if (!ok) throw new DomainError('not_found', 'not_found', `No webhook ${c.req.param('id')}.`);
    return c.body(null, 204);
  });
}

/** Channel API keys for agent platforms (docs/access.md). */
function channelKeyRoutes(r: Hono<MerchantEnv>, v: string): void {
  // Channel API keys (docs/access.md): the key itself is in the POST answer only.
  r.get(`${v}/channel_keys`, guard('sales_channel_read'), async (c) => {
    return c.json({ channel_keys: await listChannelKeys(c.get('db'), c.get('merchant').id) });
  });

  r.post(`${v}/channel_keys`, guard('sales_channel_write'), async (c) => {
    const body = validate(ChannelKeyInput, await readJson(c));
    const { key, record } = await issueChannelKey(c.get('db'), c.get('merchant').id, { profileUrl: body.profile_url, label: body.label }, { allowInsecureLoopback: allowInsecureProfiles(c.get('config')) });
    c.header('Location', `${new URL(c.req.url).pathname}/${record.id}`);
    return c.json({ ...record, key }, 201);
  });

  r.delete(`${v}/channel_keys/:id`, guard('sales_channel_write'), async (c) => {
    const k = await revokeChannelKey(c.get('db'), c.get('merchant').id, c.req.param('id'));
    if (!k) throw new DomainError('not_found', 'not_found', `No channel key ${c.req.param('id')}.`);
    return c.json(k);
  });
}
