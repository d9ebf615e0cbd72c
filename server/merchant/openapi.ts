/**
 * The OpenAPI 3.1 document of the merchant REST API, served at `{merchant_api_url}/3.0/openapi.json`
 * (`http://localhost:8080/merchants/shop_demo/3.0/openapi.json`; docs/oauth.md "OpenAPI"). The
 * operations and their scopes are the scope table the routes are guarded with (ROUTE_SCOPES); the
 * request bodies are the zod schemas the core validates them with; success bodies and the error
 * envelope are the components of server/merchant/response-schemas.ts. Built once; each answer only
 * sets `servers` and the OAuth URLs.
 */
import type { z } from 'zod';
import { ROUTE_SCOPES } from './route-scopes.ts';
import { StoredProduct } from '../formats/catalog-format.ts';
import { NewCustomer } from '../core/orders/customers.ts';
import { NewOrder, OrderStatusChange } from '../core/orders/orders.ts';
import { WEBHOOK_BODIES } from '../core/orders/webhook-endpoints.ts';
import { ChannelKeyInput } from '../core/access/channel-keys.ts';
import { InventoryChange, InventoryChangeBySku } from '../core/products/inventory.ts';
import { ProductBatch } from '../core/catalog/catalog-batch.ts';
import { SCOPES } from '../core/accounts/scopes.ts';
import { PACKAGE_VERSION } from '../version.ts';
import { componentSchemas, json, requestSchema, schemaRef, type JsonObject } from '../http/openapi-schema.ts';
import { registerMerchantSchemas, SUCCESS_BODIES } from './response-schemas.ts';

const BODIES: Record<string, z.core.$ZodType> = {
  'POST /3.0/products': StoredProduct,
  'PUT /3.0/products/{id}': StoredProduct,
  'POST /3.0/products/batch': ProductBatch,
  'POST /3.0/customers': NewCustomer,
  'POST /3.0/orders': NewOrder,
  'PUT /3.0/orders/{id}': OrderStatusChange,
  'POST /3.0/webhooks': WEBHOOK_BODIES.create,
  'PUT /3.0/webhooks/{id}': WEBHOOK_BODIES.update,
  'POST /3.0/channel_keys': ChannelKeyInput,
  'PUT /3.0/inventory/{variantId}': InventoryChange,
  'PUT /3.0/inventory': InventoryChangeBySku,
};

const SUCCESS: Record<string, [number, string]> = { GET: [200, 'The resource or the page of resources.'], POST: [201, 'Created (`Location` names it).'], PUT: [200, 'The updated resource.'], DELETE: [204, 'Deleted.'] };
const SPECIAL: Record<string, [number, string]> = {
  'DELETE /3.0/channel_keys/{id}': [200, 'The revoked key record (`revoked_at` set).'],
  'POST /3.0/webhooks/deliveries/{id}/redeliver': [202, 'The delivery, queued again.'],
  'POST /3.0/products/batch': [200, 'One result per item, in order: created, updated, unchanged (not written) or error (with its errors); the valid items are written in one transaction. More than 500 items: 413.'],
  'PUT /3.0/inventory': [200, 'The variant\'s level after the change. An unknown SKU is 404, a SKU several variants share 409 naming them.'],
};

const errorRefs = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/E${s}` }]));
const ERROR_TEXT: Record<number, string> = {
  400: 'A malformed parameter (`limit`, `cursor`) or body (invalid JSON).',
  401: 'Missing, invalid or expired access token.',
  403: 'The token lacks the scope this call needs (`required_scope`).',
  404: 'No such resource, or the token is for another merchant.',
  409: 'Conflicts with the current state (e.g. a product id that exists).',
  413: 'The body exceeds 1 MiB.',
  415: 'The body is not application/json.',
  422: 'The body fails validation: `details[]` names each field.',
  503: 'Temporarily unavailable: retry after `Retry-After` seconds.',
};

function operations() {
  const paths: Record<string, Record<string, unknown>> = {
    '/3.0/openapi.json': {
      get: { operationId: 'openapi', summary: 'This document', description: 'The OpenAPI 3.1 document of the merchant API (public, no token).', security: [], responses: { '200': json({ type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } } }, 'OpenAPI 3.1.'), ...errorRefs(404) } },
    },
  };
  for (const r of ROUTE_SCOPES) {
    const key = `${r.method} ${r.path}`;
    const body = BODIES[key];
    const [status, text] = SPECIAL[key] ?? SUCCESS[r.method];
    // A new route must say what it answers (server/merchant/response-schemas.ts), or the document fails to build.
    if (status !== 204 && !SUCCESS_BODIES[key]) throw new Error(`No success body for ${key} in SUCCESS_BODIES`);
    const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (SUCCESS_BODIES[key]?.$ref.endsWith('Page')) {
      params.push({ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 250, default: 50 } as never } as never);
      params.push({ name: 'cursor', in: 'query', required: false, schema: { type: 'string' } } as never);
    }
    if (key === 'GET /3.0/webhooks/deliveries') params.push({ name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['pending', 'delivered', 'failed'] } } as never);
    (paths[r.path] ??= {})[r.method.toLowerCase()] = {
      operationId: `${r.method.toLowerCase()}_${r.path.replace(/^\/3\.0\//, '').replace(/[{}]/g, '').replace(/\//g, '_')}`,
      summary: `${r.method} ${r.path}`,
      description: `Needs the \`${r.scope}\` scope (${SCOPES[r.scope] ?? r.scope}).`,
      security: [{ oauth2: [r.scope] }],
      ...(params.length ? { parameters: params } : {}),
      ...(body ? { requestBody: { required: true, ...json(requestSchema(body)) } } : {}),
      responses: {
        [String(status)]: status === 204 ? { description: text } : json(SUCCESS_BODIES[key], text),
        ...errorRefs(401, 403, 404, 503, ...(body ? [400, 409, 413, 415, 422] : r.method === 'GET' ? [400] : [409])),
      },
    };
  }
  return paths;
}

// Built on first use (the document is only asked for now and then).
const build = () => ({
  openapi: '3.1.0',
  info: {
    title: 'Merchant API 3.0',
    version: PACKAGE_VERSION,
    description: 'Products, customers, orders, order webhooks and channel API keys of one merchant. Every call but this document needs an OAuth 2.0 access token issued for that merchant by the account service.',
  },
  paths: operations(),
  components: {
    schemas: componentSchemas(registerMerchantSchemas),
    responses: Object.fromEntries(Object.entries(ERROR_TEXT).map(([s, text]) => [`E${s}`, json(schemaRef('Error'), text)])),
    securitySchemes: {
      oauth2: {
        type: 'oauth2',
        description:
          'OAuth 2.0 authorization code grant at the platform\'s account service (metadata: `/.well-known/oauth-authorization-server`); PKCE (S256) required for public apps, ' +
          'refresh tokens rotate. Send `Authorization: Bearer <access token>`; the token is bound to one merchant (another merchant\'s id is 404) and to its scopes (a missing one is 403 naming it). ' +
          'There is no client-credentials grant: a token always acts for a merchant who signed in.',
        flows: { authorizationCode: { authorizationUrl: '/oauth2/authorize', tokenUrl: '/oauth2/access_token', refreshUrl: '/oauth2/access_token', scopes: SCOPES } },
      },
    },
  },
});
let built: ReturnType<typeof build> | undefined;

/** The document for a merchant whose API endpoint is `${origin}/merchants/${merchantId}`. */
export function merchantOpenApi(origin: string, merchantId: string): JsonObject {
  const DOCUMENT = (built ??= build());
  const flows = { authorizationCode: { ...DOCUMENT.components.securitySchemes.oauth2.flows.authorizationCode, authorizationUrl: `${origin}/oauth2/authorize`, tokenUrl: `${origin}/oauth2/access_token`, refreshUrl: `${origin}/oauth2/access_token` } };
  return {
    ...DOCUMENT,
    servers: [{ url: `${origin}/merchants/${encodeURIComponent(merchantId)}`, description: 'This merchant\'s API endpoint.' }],
    components: { ...DOCUMENT.components, securitySchemes: { oauth2: { ...DOCUMENT.components.securitySchemes.oauth2, flows } } },
  };
}
