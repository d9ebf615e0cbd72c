/**
 * The request inspector's memory (docs/sandbox.md "Request inspector"): per shop, a ring of its most
 * recent exchanges and the little state the hygiene notes need (notes.ts). Bounded whatever
 * traffic arrives: RING_SIZE exchanges per shop, each body cut to BODY_MAX_CHARS, MAX_SHOPS shops
 * (the least recently recorded one is dropped), MAX_KEYS idempotency keys and MAX_WAITS Retry-After
 * waits per shop. Worst case about MAX_SHOPS × RING_SIZE × 2 × BODY_MAX_CHARS characters (~32 MB).
 * One process's memory: under `start:cluster` each worker sees its own requests.
 */

export const RING_SIZE = 100;
export const BODY_MAX_CHARS = 8 * 1024;
export const MAX_SHOPS = 20;
export const MAX_KEYS = 500;
export const MAX_WAITS = 500;

/** Who sent it: an agent over REST or MCP, host.js on the shop's page (`webmcp` when it says so), the embedded cart. */
export type InspectorTransport = 'rest' | 'mcp' | 'webmcp' | 'page' | 'embedded';

export type NoteCode = 'idempotency_key_missing' | 'retry_too_soon' | 'idempotency_key_reused' | 'ucp_agent_missing' | 'ucp_agent_unsupported' | 'product_id_for_variant';

export interface Note {
  code: NoteCode;
  message: string;
}

export interface Exchange {
  /** Increasing across the process: `?since=<id>` follows from the last one seen. */
  id: number;
  at: string;
  transport: InspectorTransport;
  method: string;
  path: string;
  /** UCP operation(s): `search_catalog`, `create_cart`, …; MCP batches list each call. */
  operation: string;
  status: number;
  duration_ms: number;
  /** The platform profile the agent named (UCP-Agent or MCP meta), else null. */
  agent: string | null;
  idempotency_key: string | null;
  request: { headers: Record<string, string>; body: string | null; truncated: boolean };
  response: { headers: Record<string, string>; body: string | null; truncated: boolean };
  notes: Note[];
}

/** An idempotency key as first seen: what it was sent with. */
export interface KeyUse {
  fingerprint: string;
  exchange: number;
}

/** A Retry-After the agent was given, for the next request of the same operation. */
export interface Wait {
  until: number;
  seconds: number;
  status: number;
  at: number;
}

/** Insertion-ordered map held to `max` entries (oldest dropped). */
function boundedSet<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}

export class ShopLog {
  private readonly ring: Exchange[] = [];
  private head = 0;
  readonly keys = new Map<string, KeyUse>();
  readonly waits = new Map<string, Wait>();
  constructor(
    readonly shopId: string,
    readonly domain: string,
  ) {}

  add(e: Exchange): void {
    if (this.ring.length < RING_SIZE) this.ring.push(e);
    else this.ring[this.head] = e;
    this.head = (this.head + 1) % RING_SIZE;
  }

  /** Newest first: at most `limit`, only ids above `since`. */
  list(limit = RING_SIZE, since = 0): Exchange[] {
    const out: Exchange[] = [];
    for (let i = 1; i <= this.ring.length && out.length < limit; i++) {
      const e = this.ring[(this.head - i + this.ring.length * 2) % this.ring.length];
      if (e.id <= since) break; // ids grow with position: everything older is older still
      out.push(e);
    }
    return out;
  }

  rememberKey(key: string, use: KeyUse): void {
    boundedSet(this.keys, key, use, MAX_KEYS);
  }

  rememberWait(who: string, wait: Wait): void {
    boundedSet(this.waits, who, wait, MAX_WAITS);
  }
}

const shops = new Map<string, ShopLog>();
let lastId = 0;

export const nextExchangeId = () => ++lastId;

/** The shop's log, created on its first exchange; the least recently recorded shop beyond MAX_SHOPS is forgotten. */
export function logFor(shopId: string, domain: string): ShopLog {
  let log = shops.get(shopId);
  if (!log) log = new ShopLog(shopId, domain);
  boundedSet(shops, shopId, log, MAX_SHOPS);
  return log;
}

/** The shop's exchanges, newest first (empty when nothing was recorded). */
export function exchangesOf(shopId: string, opts: { limit?: number; since?: number } = {}): Exchange[] {
  return shops.get(shopId)?.list(opts.limit, opts.since) ?? [];
}

/** After a reset the server has forgotten its idempotency keys: so do the notes. The exchanges stay (a log). */
export function forgetKeys(shopId: string): void {
  shops.get(shopId)?.keys.clear();
}
