/**
 * Per-client budgets on the UCP transports (REST and MCP alike; docs/security.md "Budgets"): one
 * token bucket per client and class of operation, so no client can spend another's. The client is
 * the caller's address when anonymous, the channel key when keyed, the platform profile when
 * signed; the class is `read` (search, lookup, product, get cart) or `write` (create, update,
 * cancel). Buckets live in the deployment-wide store (memory on the embedded database, a table on
 * PostgreSQL, shared by every process: bucketStoreFor). A shop may change any budget in
 * `settings.rate_limits`.
 */
import type { DB } from '../db/index.ts';
import type { Shop } from '../formats/types.ts';
import { WRITE_OPERATIONS, type OperationName, type Tier } from '../core/access/access-policy.ts';
import { bucketStoreFor } from './db-bucket-store.ts';
import type { BucketPolicy } from './rate-limit.ts';

export type OperationClass = 'read' | 'write';
export type ClientClass = 'anonymous' | 'keyed';
type Budgets = Record<ClientClass, Record<OperationClass, BucketPolicy | null>>;

/**
 * Sized for a real shop: a person (or an agent acting for one) reads a few pages a second and
 * writes a cart a few times a minute; 10 writes a second from one anonymous address, sustained,
 * is already generous, hundreds is not honest traffic. Keyed platforms serve many shoppers at once.
 */
export const DEFAULT_TRANSPORT_LIMITS: Budgets = {
  anonymous: { read: { capacity: 200, refillPerSecond: 50 }, write: { capacity: 60, refillPerSecond: 10 } },
  keyed: { read: { capacity: 2000, refillPerSecond: 500 }, write: { capacity: 1000, refillPerSecond: 200 } },
};


export function operationClass(op: OperationName): OperationClass {
  return WRITE_OPERATIONS.has(op) ? 'write' : 'read';
}

const cache = new WeakMap<Shop['settings'], Budgets>();

/** The shop's budgets: its `settings.rate_limits` over the defaults (`false` = no limit). */
export function transportLimits(shop: Shop): Budgets {
  const settings = shop.settings;
  let b = cache.get(settings);
  if (!b) {
    const own = settings.rate_limits ?? {};
    const pick = (who: ClientClass, what: OperationClass): BucketPolicy | null => {
      const v = own[who]?.[what];
      if (v === false) return null;
      return v ? { capacity: v.burst, refillPerSecond: v.per_second } : DEFAULT_TRANSPORT_LIMITS[who][what];
    };
    b = {
      anonymous: { read: pick('anonymous', 'read'), write: pick('anonymous', 'write') },
      keyed: { read: pick('keyed', 'read'), write: pick('keyed', 'write') },
    };
    cache.set(settings, b);
  }
  return b;
}

/** Who a request is, for its budget. */
export interface BudgetClient {
  tier: Tier;
  /** Anonymous: the client address; token: the channel key id; signed: the profile URL. */
  id: string;
}

/** Takes one token; the whole seconds until the next one when refused, else 0. */
export async function spendTransportBudget(db: DB, shop: Shop, op: OperationName, client: BudgetClient): Promise<number> {
  const who: ClientClass = client.tier === 'anonymous' ? 'anonymous' : 'keyed';
  const what = operationClass(op);
  const policy = transportLimits(shop)[who][what];
  if (!policy) return 0;
  const r = await bucketStoreFor(db).take(`ucp:${shop.id}:${what}:${client.tier}:${client.id}`, policy, Date.now(), 1);
  return r.allowed ? 0 : Math.max(1, Math.ceil(r.retryAfterMs / 1000));
}
