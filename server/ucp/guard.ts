/** Protocol URLs exist only on a storefront domain whose shop has the protocol enabled. */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { protocolError } from '../http/errors.ts';
import type { Shop } from '../formats/types.ts';

export const requireProtocol: MiddlewareHandler<AppEnv> = async (c, next) => {
  const shop = c.get('shop');
  if (!shop || !shop.protocolEnabled) return protocolError(c, 404, 'not_found', 'This domain does not offer the Universal Commerce Protocol.');
  await next();
};

/** The shop of a request that passed `requireProtocol`. */
export function shopOf(c: { get(key: 'shop'): Shop | null }): Shop {
  const shop = c.get('shop');
  if (!shop) throw new Error('requireProtocol must run first');
  return shop;
}
