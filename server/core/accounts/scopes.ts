/**
 * The OAuth scopes of the account service (seed §5.2), each with the plain words the consent page
 * shows. `_read` grants read access, `_write` write access; `profile` is basic profile information.
 * Write scopes do not imply the matching read scope: request both when an app needs both.
 */
const AREAS: Array<[prefix: string, words: string]> = [
  ['analytics', 'analytics and reports'],
  ['catalog', 'the catalog'],
  ['checkouts', 'checkouts'],
  ['customers', 'customers'],
  ['discounts', 'discounts and coupon codes'],
  ['domains', 'domains'],
  ['emails', 'e-mail templates'],
  ['feeds', 'product feeds'],
  ['files', 'files'],
  ['inventories', 'inventory levels'],
  ['marketing', 'marketing campaigns'],
  ['media', 'media (images and videos)'],
  ['payment_methods', 'payment methods'],
  ['pos', 'point of sale'],
  ['products', 'products'],
  ['sales_channel', 'sales channels'],
  ['sales', 'sales data and orders'],
  ['settings', 'store settings'],
  ['shipping_methods', 'shipping methods'],
  ['staff', 'staff accounts'],
  ['themes', 'themes'],
  ['themes_extend', 'theme extensions'],
  ['success_agent', 'the success agent'],
];

export const SCOPES: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries([
    ...AREAS.flatMap(([p, w]) => [
      [`${p}_read`, `See ${w}`],
      [`${p}_write`, `Create, change and delete ${w}`],
    ]),
    ['profile', 'See your basic profile information (name and login)'],
  ]),
);

export const SCOPE_NAMES: readonly string[] = Object.keys(SCOPES);

export function isKnownScope(s: string): boolean {
  return Object.prototype.hasOwnProperty.call(SCOPES, s);
}

/**
 * Parses a space-separated `scope` value (RFC 6749 §3.3). Returns the de-duplicated list, or the
 * unknown names. An empty or missing value is an error too (the account service has no default scope).
 */
export function parseScope(value: string | undefined | null): { ok: true; scopes: string[] } | { ok: false; unknown: string[] } {
  const parts = (value ?? '').split(' ').filter(Boolean);
  if (!parts.length) return { ok: false, unknown: [] };
  const unknown = parts.filter((p) => !isKnownScope(p));
  if (unknown.length) return { ok: false, unknown };
  return { ok: true, scopes: [...new Set(parts)] };
}
