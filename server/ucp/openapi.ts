/**
 * The OpenAPI 3.1 document of a shop's UCP REST transport, served at `{base_url}/openapi.json`
 * (`http://demo.localhost:8080/api/ucp/openapi.json`; docs/ucp.md "OpenAPI"). Request bodies come
 * from the wire schemas that validate them; success bodies reference the official UCP 2026-04-08
 * schemas by their ids; error bodies are our flat `{code, content}` envelope. Built once; each answer
 * only sets `servers` to the origin asked.
 */
import * as z from 'zod/mini';
import { GetProductRequest, LookupRequest, SearchRequest } from '../../src/wire/catalog.ts';
import { CreateCartRequest, UpdateCartRequest } from '../../src/wire/cart.ts';
import { UCP_VERSION, type ProtocolError } from '../../src/wire/common.ts';
import { PACKAGE_VERSION } from '../version.ts';
import { REST_SCHEMA_URL, SPEC_URL } from '../core/ucp-profile.ts';
import { json, requestSchema, type JsonObject } from '../http/openapi-schema.ts';

/** The flat protocol error (`ProtocolError` in src/wire/common.ts; the compiler keeps the two equal). */
const ProtocolErrorBody = z.object({
  code: z.string().check(z.describe('Machine-readable error code, e.g. invalid_request, invalid_profile_url.')),
  content: z.string().check(z.describe('What went wrong and what to send instead.')),
  messages: z.optional(z.array(z.looseObject({ type: z.enum(['error', 'warning', 'info']), code: z.optional(z.string()), path: z.optional(z.string()), content: z.string(), severity: z.optional(z.enum(['recoverable', 'requires_buyer_input', 'requires_buyer_review', 'unrecoverable'])) }))),
  continue_url: z.optional(z.string()),
});
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _protocolErrorIsTheWireType: Same<keyof z.infer<typeof ProtocolErrorBody>, keyof ProtocolError> = true;
void _protocolErrorIsTheWireType;

const UCP_SCHEMAS = 'https://ucp.dev/schemas/shopping';
/**
 * A success body: the official UCP schema by id. Not a `$ref` (validators and code generators would
 * have to fetch ucp.dev); the id is in the description and `required` names the top-level members.
 */
const ref = (id: string, required: string[] = ['ucp']) => ({ type: 'object', required, description: `UCP ${UCP_VERSION}: ${id}` });

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
  400: 'Malformed request: invalid JSON, a field that fails the schema (every bad field in `messages[].path`), an invalid `UCP-Agent` (`invalid_profile_url`).',
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

function operation(o: { id: string; summary: string; description: string; body?: JsonObject; success: [number, string, JsonObject]; also?: [number, string, JsonObject]; write?: boolean; params?: unknown[]; errors: number[] }) {
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

const CART = ref(`${UCP_SCHEMAS}/cart.json`, ['ucp', 'id', 'line_items', 'totals']);
const ERROR_RESPONSE = ref(`${UCP_SCHEMAS}/types/error_response.json`, ['ucp', 'messages']);
const CART_OR_ERROR = { oneOf: [CART, ERROR_RESPONSE] };

const CATALOG_ERRORS = [400, 401, 403, 413, 415, 422, 424, 429, 503];
const CART_ERRORS = [400, 401, 403, 409, 413, 415, 422, 424, 429, 503];
const body = (schema: z.core.$ZodType, root: 'catalog' | 'cart') => requestSchema(schema, root);

const DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'UCP shopping service (REST transport)',
    version: PACKAGE_VERSION,
    description:
      `The Universal Commerce Protocol ${UCP_VERSION} REST binding of this shop: catalog search, lookup and product detail, and carts. ` +
      `Generated from the request schemas the server validates with. The protocol: ${SPEC_URL}; the official OpenAPI: ${REST_SCHEMA_URL}.`,
  },
  paths: {
    '/': { get: { operationId: 'service_root', summary: 'Service root', description: 'The binding this endpoint serves (public).', responses: { '200': json({ type: 'object', required: ['ucp', 'transport', 'endpoint'] }, 'The service binding.') } } },
    '/openapi.json': { get: { operationId: 'openapi', summary: 'This document', description: 'The OpenAPI 3.1 document of this transport (public).', responses: { '200': json({ type: 'object', required: ['openapi'] }, 'OpenAPI 3.1.') } } },
    '/catalog/search': {
      post: operation({ id: 'search_catalog', summary: 'Search the catalog', description: 'Free text and/or filters; paginated with pagination.cursor.', body: body(SearchRequest, 'catalog'), success: [200, 'Products found.', ref(`${UCP_SCHEMAS}/catalog_search.json#/$defs/search_response`, ['ucp', 'products'])], errors: CATALOG_ERRORS }),
    },
    '/catalog/lookup': {
      post: operation({ id: 'lookup_catalog', summary: 'Look up products by id', description: 'Product or variant ids; unknown ids come back as messages.', body: body(LookupRequest, 'catalog'), success: [200, 'The products found.', ref(`${UCP_SCHEMAS}/catalog_lookup.json#/$defs/lookup_response`, ['ucp', 'products'])], errors: CATALOG_ERRORS }),
    },
    '/catalog/product': {
      post: operation({ id: 'get_product', summary: 'Get one product', description: 'A product (or the product of a variant id) with option availability; an unknown id is a 200 error_response.', body: body(GetProductRequest, 'catalog'), success: [200, 'The product, or an error_response with `not_found`.', { oneOf: [ref(`${UCP_SCHEMAS}/catalog_lookup.json#/$defs/get_product_response`, ['ucp', 'product']), ERROR_RESPONSE] }], errors: CATALOG_ERRORS }),
    },
    '/carts': {
      post: operation({ id: 'create_cart', summary: 'Create a cart', description: 'Lines of variant ids with quantities and customizations; business problems (unknown variant, customization errors) come back as a 200 error_response with messages.', body: body(CreateCartRequest, 'cart'), write: true, success: [201, 'The cart.', CART], also: [200, 'No cart could be made: an error_response whose messages name each line to fix.', ERROR_RESPONSE], errors: CART_ERRORS }),
    },
    '/carts/{id}': {
      get: operation({ id: 'get_cart', summary: 'Get a cart', description: 'An expired or canceled cart is a 200 error_response with `not_found`.', params: [PARAMS.cartId], success: [200, 'The cart, or an error_response (`not_found`, line problems).', CART_OR_ERROR], errors: [400, 401, 403, 422, 424, 429, 503] }),
      put: operation({ id: 'update_cart', summary: 'Replace a cart\'s contents', description: 'Full replacement: lines left out are removed.', params: [PARAMS.cartId], body: body(UpdateCartRequest, 'cart'), write: true, success: [200, 'The cart, or an error_response (`not_found`, line problems).', CART_OR_ERROR], errors: CART_ERRORS }),
    },
    '/carts/{id}/cancel': {
      post: operation({ id: 'cancel_cart', summary: 'Cancel a cart', description: 'Returns the cart as it was before cancelation. The body is optional and ignored.', params: [PARAMS.cartId], write: true, success: [200, 'The cart before cancelation, or an error_response (`not_found`).', CART_OR_ERROR], errors: CART_ERRORS }),
    },
  },
  components: {
    parameters: {
      UcpAgent: header('UCP-Agent', 'RFC 8941 dictionary naming the calling platform\'s profile: `profile="https://…"`. Optional for anonymous callers; while developing, `profile="http://agent.localhost:<port>/.well-known/ucp"`.'),
      IdempotencyKey: header('Idempotency-Key', 'A UUID per logical write; resend it only to retry the same request (a replay returns the first result).'),
      AcceptLanguage: header('Accept-Language', 'Fallback for `context.language`.'),
      SandboxFault: {
        ...header('UCP-Sandbox-Fault', 'Development servers only: answer as under this fault (`429`, `503` or `timeout`), to test retries. Ignored in production (the response then carries `UCP-Sandbox-Fault-Ignored`).'),
        schema: { type: 'string', enum: ['429', '503', 'timeout'] },
      },
    },
    schemas: { ProtocolError: requestSchema(ProtocolErrorBody) },
    responses: Object.fromEntries(
      Object.entries(ERROR_TEXT).map(([s, text]) => [`E${s}`, json({ $ref: '#/components/schemas/ProtocolError' }, text)]),
    ),
  },
} as const;

/** The document for a shop whose REST endpoint is `${origin}/api/ucp`. */
export function ucpOpenApi(origin: string): JsonObject {
  return { ...DOCUMENT, servers: [{ url: `${origin}/api/ucp`, description: 'This shop\'s UCP REST endpoint.' }] };
}
