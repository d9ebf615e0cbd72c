/**
 * The package's public entry (`ucp-storefront` and `ucp-storefront/client`): the agent client and
 * the wire types it speaks. Built to dist/lib by `npm run build:lib` (tsconfig.lib.json).
 */
export { createUcpClient, discoverEndpoints, selectVersion, type CallOptions, type Endpoints, type UcpClient, type UcpClientOptions } from './ucp-client.ts';
export { localhostFetch } from './localhost.ts';
export { retryAfterMs, type RetryOptions } from './retry.ts';
export type { Result } from './result.ts';
export type { Cart, CreateCartRequest, LineItem, LineItemInput, Total, UpdateCartRequest, AppliedDiscount, CustomizationEntry } from '../wire/cart.ts';
export type {
  CustomizationDef,
  GetProductRequest,
  GetProductResponse,
  LookupRequest,
  LookupResponse,
  Product,
  SearchRequest,
  SearchResponse,
  Variant,
} from '../wire/catalog.ts';
export type { Context, ErrorResponse, Measure, Message, Policy, Price, QuantityUnit, UcpMeta, UnitPrice } from '../wire/common.ts';
export { UCP_LATEST, UCP_VERSION, UCP_VERSIONS, type UcpVersion } from '../wire/version.ts';
