/**
 * The OpenAPI 3.1 document of a shop's UCP REST transport, served at `{base_url}/openapi.json`
 * (`http://demo.localhost:8080/api/ucp/openapi.json`; docs/ucp.md "OpenAPI"). Request bodies come
 * from the wire schemas that validate them; success and error bodies are the components of
 * server/ucp/response-schemas.ts (official UCP schema ids in their descriptions). Each operation's
 * `security` is what this shop's access policy lets through (server/core/access/access-policy.ts). The
 * fixed part is built once; each answer sets `servers` and the security from the shop.
 */
import type { z } from 'zod';
import { GetProductRequest, LookupRequest, SearchRequest } from '../../src/wire/catalog.ts';
import { CreateCartRequest, UpdateCartRequest } from '../../src/wire/cart.ts';
import { UCP_VERSION, UCP_VERSIONS, type UcpVersion } from '../version.ts';
import { PACKAGE_VERSION } from '../version.ts';
import { REST_SCHEMA_URL, SPEC_URL } from '../core/shops/ucp-profile.ts';
import { accessPolicy, allows, isOperation, type OperationName } from '../core/access/access-policy.ts';
import type { Shop } from '../formats/types.ts';
import { componentSchemas, json, requestSchema, schemaRef, type JsonObject } from '../http/openapi-schema.ts';
import { registerUcpSchemas } from './response-schemas.ts';
import { UCP_SECURITY_SCHEMES } from './openapi-security.ts';
import { CART_TEXT } from './tool-text.ts';

const header = (name: string, description: string, required = false) => ({ name, in: 'header', required, description, schema: { type: 'string' } });
const PARAMS = {
  ucpAgent: { $ref: '#/components/parameters/UcpAgent' },
  idempotencyKey: { $ref: '#/components/parameters/IdempotencyKey' },
  acceptLanguage: { $ref: '#/components/parameters/AcceptLanguage' },
  sandboxFault: { $ref: '#/components/parameters/SandboxFault' },
  cartId: { name: 'id', in: 'path', required: true, description: 'The cart id returned by create_cart (cart_…).', schema: { type: 'string' } },
};

const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/E${s}` }]));
const ERROR_TEXT: Record<number, string> = {
  400: 'Malformed request: invalid JSON, a field that fails the schema (every bad field in `messages[].path`), an invalid `UCP-Agent` (`invalid_profile_url`), a bad signature.',
  401: 'A presented credential is not valid, or the anonymous tier may not call this operation (`WWW-Authenticate: Bearer realm=…`).',
  403: 'The caller\'s tier may not call this operation, or its key was issued for another profile.',
  409: 'The Idempotency-Key was already used with different parameters.',
  413: 'The body exceeds 1 MiB.',
  415: 'The body is not application/json.',
  422: 'The named platform profile is malformed or of another UCP version.',
  424: 'The named platform profile could not be fetched.',
  429: 'Too many requests: retry after `Retry-After` seconds.',
  503: 'Temporarily unavailable: retry after `Retry-After` seconds.',
};

type Success = [status: number, text: string, schema: JsonObject];
function operation(o: { id: OperationName; summary: string; description: string; body?: JsonObject; success: Success; also?: Success; write?: boolean; params?: unknown[]; errors: number[] }) {
  return {
    operationId: o.id,
    summary: o.summary,
    description: o.description,
    parameters: [PARAMS.ucpAgent, PARAMS.acceptLanguage, PARAMS.sandboxFault, ...(o.write ? [PARAMS.idempotencyKey] : []), ...(o.params ?? [])],
    ...(o.body ? { requestBody: { required: true, ...json(o.body) } } : {}),
    responses: {
      [String(o.success[0])]: json(o.success[2], o.success[1]),
      ...(o.also ? { [String(o.also[0])]: json(o.also[2], o.also[1]) } : {}),
      ...errors(...o.errors),
    },
  };
}

const CART = schemaRef('Cart');
const ERROR_RESPONSE = schemaRef('ErrorResponse');
// anyOf, not oneOf: a cart and an error_response share `ucp` and `continue_url` (Redocly's no-illogical-composition-keywords); `id` tells them apart.
const CART_OR_ERROR = { anyOf: [CART, ERROR_RESPONSE] };

const CATALOG_ERRORS = [400, 401, 403, 413, 415, 422, 424, 429, 503];
const CART_ERRORS = [400, 401, 403, 409, 413, 415, 422, 424, 429, 503];
const body = (schema: z.core.$ZodType, root: 'catalog' | 'cart') => requestSchema(schema, root);
const PUBLIC = { security: [] };

const DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'UCP shopping service (REST transport)',
    version: PACKAGE_VERSION,
    description:
      `The Universal Commerce Protocol ${UCP_VERSION} REST binding of this shop: catalog search, lookup and product detail, and carts. ` +
      `Generated from the schemas the server validates requests with and types its answers by. The protocol: ${SPEC_URL}; the official OpenAPI: ${REST_SCHEMA_URL}. ` +
      'Each operation\'s `security` lists what this shop accepts for it: `{}` (nothing) when anonymous callers may call it, a channel API key, or an HTTP message signature.',
  },
  paths: {
    '/': { get: { operationId: 'service_root', summary: 'Service root', description: 'The binding this endpoint serves (public).', ...PUBLIC, responses: { '200': json(schemaRef('ServiceRoot'), 'The service binding.'), ...errors(400) } } },
    '/openapi.json': { get: { operationId: 'openapi', summary: 'This document', description: 'The OpenAPI 3.1 document of this transport (public); `?version=2026-08-25` for that UCP version\'s (default 2026-04-08).', ...PUBLIC, parameters: [{ name: 'version', in: 'query', required: false, description: 'The UCP version of the document: 2026-04-08 (default) or 2026-08-25.', schema: { type: 'string', enum: [...UCP_VERSIONS] } }], responses: { '200': json({ type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } } }, 'OpenAPI 3.1.'), ...errors(400) } } },
    '/catalog/search': {
      post: operation({ id: 'search_catalog', summary: 'Search the catalog', description: 'Free text and/or filters; paginated with pagination.cursor.', body: body(SearchRequest, 'catalog'), success: [200, 'Products found.', schemaRef('SearchResponse')], errors: CATALOG_ERRORS }),
    },
    '/catalog/lookup': {
      post: operation({ id: 'lookup_catalog', summary: 'Look up products by id', description: 'Product or variant ids; unknown ids come back as messages.', body: body(LookupRequest, 'catalog'), success: [200, 'The products found.', schemaRef('LookupResponse')], errors: CATALOG_ERRORS }),
    },
    '/catalog/product': {
      post: operation({ id: 'get_product', summary: 'Get one product', description: 'A product (or the product of a variant id) with option availability; an unknown id is a 200 error_response.', body: body(GetProductRequest, 'catalog'), success: [200, 'The product, or an error_response with `not_found`.', { anyOf: [schemaRef('GetProductResponse'), ERROR_RESPONSE] }], errors: CATALOG_ERRORS }),
    },
    '/carts': {
      post: operation({ id: 'create_cart', summary: 'Create a cart', description: 'Lines of variant ids with quantities and customizations; business problems (unknown variant, customization errors) come back as a 200 error_response with messages.', body: body(CreateCartRequest, 'cart'), write: true, success: [201, 'The cart.', CART], also: [200, 'No cart could be made: an error_response whose messages name each line to fix.', ERROR_RESPONSE], errors: CART_ERRORS }),
    },
    '/carts/{id}': {
      get: operation({ id: 'get_cart', summary: 'Get a cart', description: CART_TEXT.get, params: [PARAMS.cartId], success: [200, 'The cart (after a cancel: no lines), or an error_response (`not_found` for an unknown or expired cart; line problems).', CART_OR_ERROR], errors: [400, 401, 403, 422, 424, 429, 503] }),
      put: operation({ id: 'update_cart', summary: 'Replace a cart\'s contents', description: 'Full replacement: lines left out are removed. Also refills a canceled cart.', params: [PARAMS.cartId], body: body(UpdateCartRequest, 'cart'), write: true, success: [200, 'The cart, or an error_response (`not_found`, line problems).', CART_OR_ERROR], errors: CART_ERRORS }),
    },
    '/carts/{id}/cancel': {
      post: operation({ id: 'cancel_cart', summary: 'Cancel a cart', description: `${CART_TEXT.cancel} The body is optional and ignored.`, params: [PARAMS.cartId], write: true, success: [200, 'The cart as it was before the cancel, or an error_response (`not_found` for an unknown or expired cart).', CART_OR_ERROR], errors: CART_ERRORS }),
    },
  },
  components: {
    parameters: {
      UcpAgent: header('UCP-Agent', 'RFC 8941 dictionary naming the calling platform\'s profile: `profile="https://…"`. Optional for anonymous callers; required with a channel key or a signature. While developing, `profile="http://agent.localhost:<port>/.well-known/ucp"`.'),
      IdempotencyKey: header('Idempotency-Key', 'A UUID per logical write; resend it only to retry the same request (a replay returns the first result).'),
      AcceptLanguage: header('Accept-Language', 'Fallback for `context.language`.'),
      SandboxFault: {
        ...header('UCP-Sandbox-Fault', 'Development servers only: answer as under this fault (`429`, `503` or `timeout`), to test retries. Ignored in production (the response then carries `UCP-Sandbox-Fault-Ignored`).'),
        schema: { type: 'string', enum: ['429', '503', 'timeout'] },
      },
    },
    schemas: componentSchemas(registerUcpSchemas),
    responses: Object.fromEntries(
      Object.entries(ERROR_TEXT).map(([s, text]) => [`E${s}`, json(schemaRef('ProtocolError'), text)]),
    ),
    securitySchemes: UCP_SECURITY_SCHEMES,
  },
} as const;

/**
 * The security requirement of an operation under the shop's policy: the alternatives it lets
 * through (`{}` = no credential). A channel key is what the token tier means; the shop's own pages
 * pass with a storefront token whatever the policy, so an operation no tier may call still lists it.
 */
function requirement(shop: Shop, op: OperationName): JsonObject[] {
  const policy = accessPolicy(shop);
  const token = [{ channelKey: [] }, { channelKeyHeader: [] }];
  const alternatives = [
    ...(allows(policy, 'anonymous', op) ? [{}] : []),
    ...(allows(policy, 'token', op) ? token : []),
    ...(allows(policy, 'signed', op) ? [{ signature: [], signatureInput: [] }] : []),
  ];
  return alternatives.length ? alternatives : token.slice(0, 1);
}

/**
 * The document at another UCP version (server/ucp/versions.ts lists what differs): its release's
 * URLs and words, and cart bodies without `id` (2026-08-25 names the cart by the path only). The
 * answers' optional 2026-08-25 fields (`policies`, `quantity_unit`, `unit_price`) are in the one
 * set of response schemas for both.
 */
const byVersion = new Map<string, typeof DOCUMENT>();
function documentAt(v: UcpVersion): typeof DOCUMENT {
  if (v === UCP_VERSION) return DOCUMENT;
  let d = byVersion.get(v);
  if (!d) {
    const text = JSON.stringify(DOCUMENT).replaceAll(`https://ucp.dev/${UCP_VERSION}/`, `https://ucp.dev/${v}/`).replaceAll(`Universal Commerce Protocol ${UCP_VERSION}`, `Universal Commerce Protocol ${v}`);
    const doc = JSON.parse(text) as typeof DOCUMENT & { paths: Record<string, Record<string, { requestBody?: { content: { 'application/json': { schema: JsonObject } } } }>> };
    const update = doc.paths['/carts/{id}'].put.requestBody!.content['application/json'].schema as { properties?: Record<string, unknown> };
    if (update.properties) delete update.properties.id;
    byVersion.set(v, (d = doc));
  }
  return d;
}

/** The document for `shop`, whose REST endpoint is `${origin}/api/ucp`, at a UCP version (default the seed's). */
export function ucpOpenApi(origin: string, shop: Shop, version: UcpVersion = UCP_VERSION): JsonObject {
  const document = documentAt(version);
  const paths = Object.fromEntries(
    Object.entries(document.paths).map(([path, item]) => [
      path,
      Object.fromEntries(Object.entries(item).map(([method, op]) => [method, isOperation(op.operationId) ? { ...op, security: requirement(shop, op.operationId) } : op])),
    ]),
  );
  return { ...document, paths, servers: [{ url: `${origin}/api/ucp`, description: 'This shop\'s UCP REST endpoint.' }] };
}


