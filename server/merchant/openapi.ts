/**
 * The OpenAPI 3.1 document of the merchant REST API, served at `{merchant_api_url}/3.0/openapi.json`
 * (`http://localhost:8080/merchants/shop_demo/3.0/openapi.json`; docs/oauth.md "OpenAPI"). The
 * operations and their scopes are the scope table the routes are guarded with (ROUTE_SCOPES); the
 * request bodies are the zod schemas the core validates them with; errors are the merchant envelope.
 * Built once; each answer only sets `servers`.
 */
import { z } from 'zod';
import { ROUTE_SCOPES } from './route-scopes.ts';
import { StoredProduct } from '../formats/catalog-format.ts';
import { NewCustomer } from '../core/customers.ts';
import { NewOrder, OrderStatusChange } from '../core/orders.ts';
import { WEBHOOK_BODIES } from '../core/webhook-endpoints.ts';
import { SCOPES } from '../core/scopes.ts';
import { PACKAGE_VERSION } from '../version.ts';
import { json, requestSchema, type JsonObject } from '../http/openapi-schema.ts';

/**
 * `POST /3.0/channel_keys` reads two fields by hand (server/merchant/routes.ts); this is their shape.
 * Gap: the route has no schema of its own yet, so this one is not the validator (docs/oauth.md).
 */
const ChannelKeyBody = z.object({
  profile_url: z.string().describe('The platform profile URL the key acts for (https; loopback http in development).'),
  label: z.string().optional().describe('A name to recognise the key by.'),
});

const BODIES: Record<string, z.core.$ZodType> = {
  'POST /3.0/products': StoredProduct,
  'PUT /3.0/products/{id}': StoredProduct,
  'POST /3.0/customers': NewCustomer,
  'POST /3.0/orders': NewOrder,
  'PUT /3.0/orders/{id}': OrderStatusChange,
  'POST /3.0/webhooks': WEBHOOK_BODIES.create,
  'PUT /3.0/webhooks/{id}': WEBHOOK_BODIES.update,
  'POST /3.0/channel_keys': ChannelKeyBody,
};

const SUCCESS: Record<string, [number, string]> = { GET: [200, 'The resource or the page of resources.'], POST: [201, 'Created (`Location` names it).'], PUT: [200, 'The updated resource.'], DELETE: [204, 'Deleted.'] };
const SPECIAL: Record<string, [number, string]> = {
  'DELETE /3.0/channel_keys/{id}': [200, 'The revoked key record (`revoked_at` set).'],
  'POST /3.0/webhooks/deliveries/{id}/redeliver': [202, 'The delivery, queued again.'],
};

const ErrorEnvelope = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.object({ path: z.string(), code: z.string(), message: z.string() })).optional(),
    required_scope: z.string().optional(),
  }),
});

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
      get: { operationId: 'openapi', summary: 'This document', description: 'The OpenAPI 3.1 document of the merchant API (public, no token).', security: [], responses: { '200': json({ type: 'object', required: ['openapi'] }, 'OpenAPI 3.1.') } },
    },
  };
  for (const r of ROUTE_SCOPES) {
    const key = `${r.method} ${r.path}`;
    const body = BODIES[key];
    const [status, text] = SPECIAL[key] ?? SUCCESS[r.method];
    const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (r.method === 'GET' && !r.path.includes('{')) {
      params.push({ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 250, default: 50 } as never } as never);
      params.push({ name: 'cursor', in: 'query', required: false, schema: { type: 'string' } } as never);
    }
    (paths[r.path] ??= {})[r.method.toLowerCase()] = {
      operationId: `${r.method.toLowerCase()}_${r.path.replace(/^\/3\.0\//, '').replace(/[{}]/g, '').replace(/\//g, '_')}`,
      summary: `${r.method} ${r.path}`,
      description: `Needs the \`${r.scope}\` scope (${SCOPES[r.scope] ?? r.scope}).`,
      security: [{ oauth2: [r.scope] }],
      ...(params.length ? { parameters: params } : {}),
      ...(body ? { requestBody: { required: true, ...json(requestSchema(body)) } } : {}),
      responses: {
        [String(status)]: status === 204 ? { description: text } : json({ type: 'object' }, text),
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
    schemas: { Error: requestSchema(ErrorEnvelope) },
    responses: Object.fromEntries(Object.entries(ERROR_TEXT).map(([s, text]) => [`E${s}`, json({ $ref: '#/components/schemas/Error' }, text)])),
    securitySchemes: {
      oauth2: {
        type: 'oauth2',
        description: 'Authorization code (with PKCE for public apps) at the platform\'s account service; send `Authorization: Bearer <access token>`.',
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
