/**
 * Build-time stand-in for src/embedded/index.ts (the embedded-protocol module), used by
 * vite.config.ts only while that file does not exist. Same interface; never embedded.
 */
import type { Cart } from '../wire/cart.ts';
import type { ErrorResponse } from '../wire/common.ts';

export type EmbeddedParams = Record<string, string>;
export interface EmbeddedSession {
  credential?: string;
  colorScheme?: 'light' | 'dark';
  start(cart: Cart): void;
  lineItemsChanged(cart: Cart): void;
  messagesChanged(cart: Cart): void;
  buyerChanged(cart: Cart): void;
  complete(cart: Cart): void;
  error(errorResponse: ErrorResponse): void;
}
export function detectEmbedded(_loc: Location): EmbeddedParams | null {
  return null;
}
export async function startEmbedded(_p: EmbeddedParams, _o: { allowedOrigins: string[] }): Promise<EmbeddedSession | null> {
  return null;
}
export function openCart(opts: { shopOrigin: string; cartId?: string; continueUrl?: string }): { close(): void } {
  if (opts.continueUrl) location.assign(opts.continueUrl);
  return { close() {} };
}
