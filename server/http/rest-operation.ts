/**
 * Which UCP operation a REST request is, from its method and its path relative to the REST
 * endpoint (`/carts/{id}`): read by the access middleware (server/ucp/access.ts) and the request
 * inspector (./inspector/record.ts).
 */
import type { OperationName } from '../core/access/access-policy.ts';

/** The UCP operation of a REST request (path relative to the REST endpoint), if it is one. */
export function restOperation(method: string, path: string): OperationName | undefined {
  const m = method.toUpperCase();
  if (m === 'POST') {
    if (path === '/catalog/search') return 'search_catalog';
    if (path === '/catalog/lookup') return 'lookup_catalog';
    if (path === '/catalog/product') return 'get_product';
    if (path === '/carts') return 'create_cart';
    if (/^\/carts\/[^/]+\/cancel$/.test(path)) return 'cancel_cart';
  }
  if (/^\/carts\/[^/]+$/.test(path)) {
    if (m === 'GET') return 'get_cart';
    if (m === 'PUT') return 'update_cart';
  }
  return undefined;
}
