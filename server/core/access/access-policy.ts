/**
 * Which access tier may call which UCP operation, per shop (docs/access.md). The policy lives in
 * `settings.extra.access`:
 *
 *   { "anonymous": ["search_catalog", "lookup_catalog", "get_product"],
 *     "signed": "*",
 *     "token": "*" }
 *
 * Each tier maps to `"*"` (every operation), a list of operation names, or `[]` / `false` (none).
 * A tier left out gets the default below. The default (no `access` setting at all) opens every
 * operation to every tier, so a shop without a policy behaves as before access tiers existed; the
 * demo shop states its policy explicitly, and `strict.localhost` shows a stricter one.
 */
import type { Shop } from '../../formats/types.ts';

export const OPERATIONS = ['search_catalog', 'lookup_catalog', 'get_product', 'create_cart', 'get_cart', 'update_cart', 'cancel_cart'] as const;
export type OperationName = (typeof OPERATIONS)[number];

/** The operations that change a cart (write budgets, idempotency, the inspector's notes). */
export const WRITE_OPERATIONS: ReadonlySet<string> = new Set<OperationName>(['create_cart', 'update_cart', 'cancel_cart']);

export const TIERS = ['token', 'signed', 'anonymous'] as const;
export type Tier = (typeof TIERS)[number];

export type AccessPolicy = Record<Tier, ReadonlySet<OperationName>>;

const ALL: ReadonlySet<OperationName> = new Set(OPERATIONS);

export const DEFAULT_POLICY: AccessPolicy = { token: ALL, signed: ALL, anonymous: ALL };

/** The capability an operation needs (negotiation's "required capability"). */
export const OPERATION_CAPABILITY: Record<OperationName, string> = {
  search_catalog: 'dev.ucp.shopping.catalog.search',
  lookup_catalog: 'dev.ucp.shopping.catalog.lookup',
  get_product: 'dev.ucp.shopping.catalog.lookup',
  create_cart: 'dev.ucp.shopping.cart',
  get_cart: 'dev.ucp.shopping.cart',
  update_cart: 'dev.ucp.shopping.cart',
  cancel_cart: 'dev.ucp.shopping.cart',
};

export function isOperation(name: string): name is OperationName {
  return (OPERATIONS as readonly string[]).includes(name);
}

function tierSet(value: unknown, fallback: ReadonlySet<OperationName>): ReadonlySet<OperationName> {
  if (value === undefined) return fallback;
  if (value === '*' || value === true) return ALL;
  if (value === false || value === null) return new Set();
  if (Array.isArray(value)) return new Set(value.filter((v): v is OperationName => typeof v === 'string' && isOperation(v)));
  // Anything else is a configuration mistake: fail closed for that tier.
  return new Set();
}

/** The shop's policy (settings.extra.access), tiers left out taking the default. */
export function accessPolicy(shop: Shop): AccessPolicy {
  const raw = shop.settings.extra?.access;
  if (raw === undefined || raw === null || typeof raw !== 'object' || Array.isArray(raw)) return DEFAULT_POLICY;
  const r = raw as Record<string, unknown>;
  return { token: tierSet(r.token, ALL), signed: tierSet(r.signed, ALL), anonymous: tierSet(r.anonymous, ALL) };
}

export function allows(policy: AccessPolicy, tier: Tier, op: OperationName): boolean {
  return policy[tier].has(op);
}

/** Validates a policy value (for tooling and tests): unknown tiers or operations are reported. */
export function policyProblems(raw: unknown): string[] {
  if (raw === undefined) return [];
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return ['access must be an object keyed by tier'];
  const problems: string[] = [];
  for (const [tier, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!(TIERS as readonly string[]).includes(tier)) problems.push(`unknown tier ${tier}`);
    if (v === '*' || typeof v === 'boolean') continue;
    if (!Array.isArray(v)) problems.push(`${tier}: expected "*", a boolean or a list of operations`);
    else for (const op of v) if (typeof op !== 'string' || !isOperation(op)) problems.push(`${tier}: unknown operation ${String(op)}`);
  }
  return problems;
}
