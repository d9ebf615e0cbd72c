/**
 * The storefront's own access to its UCP transport. A shop's pages are first-party: the widget on
 * them must work whatever the shop's policy for outside agents says (strict.localhost lets anonymous
 * callers only search). Each page carries a short-lived token bound to its shop
 * (`<meta name="ucp-storefront-token">`), which host.js sends as `Authorization: Bearer` to its own
 * origin. Like Shopify's public Storefront API token it is not a secret from the page's readers: it
 * grants what the shop's own pages do (every catalog and cart operation), for 24 hours, and is
 * useless to anyone after that. HMAC-SHA256 with a key derived from KEY_ENCRYPTION_SECRET, so every
 * process of a deployment verifies what any of them issued. docs/access.md "The storefront's own access".
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { derivedKey } from './signing-keys.ts';

export const STOREFRONT_TOKEN_PREFIX = 'sft_';
export const STOREFRONT_TOKEN_TTL_S = 24 * 60 * 60;

const mac = (shopId: string, exp: number) => createHmac('sha256', derivedKey('ucp-storefront/storefront-tokens', 'hmac v1')).update(`${shopId}\n${exp}`).digest('base64url');

export function issueStorefrontToken(shopId: string, nowS = Math.floor(Date.now() / 1000)): string {
  const exp = nowS + STOREFRONT_TOKEN_TTL_S;
  return `${STOREFRONT_TOKEN_PREFIX}${exp.toString(36)}.${mac(shopId, exp)}`;
}

export function isStorefrontToken(key: string): boolean {
  return key.startsWith(STOREFRONT_TOKEN_PREFIX);
}

/** 'ok', 'expired' (re-load the page for a new one) or 'invalid' (not issued for this shop). */
export function checkStorefrontToken(shopId: string, token: string, nowS = Math.floor(Date.now() / 1000)): 'ok' | 'expired' | 'invalid' {
  const m = /^sft_([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return 'invalid';
  const exp = parseInt(m[1], 36);
  const want = Buffer.from(mac(shopId, exp));
  const got = Buffer.from(m[2]);
  if (got.length !== want.length || !timingSafeEqual(got, want)) return 'invalid';
  return exp > nowS ? 'ok' : 'expired';
}
