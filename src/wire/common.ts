/**
 * Wire shapes shared by the server, the browser client, the MCP tool definitions and the tests.
 * Written with `zod/mini` so host.js pays only for the schemas it imports (tree-shaken), while the
 * server gets the same objects for validation and JSON Schema generation.
 */
import * as z from 'zod/mini';

export { UCP_VERSION } from './version.ts';

/** `context` on catalog and cart calls: hints only, open for extension (types/context.json). */
export const ContextSchema = z.looseObject({
  language: z.optional(z.string().check(z.minLength(1), z.maxLength(35))),
  currency: z.optional(z.string().check(z.minLength(1), z.maxLength(8))),
  address_country: z.optional(z.string().check(z.maxLength(8))),
  address_region: z.optional(z.string().check(z.maxLength(64))),
  postal_code: z.optional(z.string().check(z.maxLength(32))),
  intent: z.optional(z.string().check(z.maxLength(1024))),
  eligibility: z.optional(z.array(z.string().check(z.maxLength(128))).check(z.maxLength(32))),
});
/** The type of `Context` (`ContextSchema`), written out so host.d.ts and the client's types need no zod; a compile-time check in src/wire/common.ts keeps them equal. */
export interface Context {
  language?: string;
  currency?: string;
  address_country?: string;
  address_region?: string;
  postal_code?: string;
  intent?: string;
  eligibility?: string[];
  [k: string]: unknown;
}

export const Signals = z.optional(z.record(z.string(), z.unknown()));
export const Attribution = z.optional(z.record(z.string(), z.string()));

export const Price = z.object({ amount: z.int(), currency: z.string() });
export type Price = z.infer<typeof Price>;

/** message.json: error / warning / info. */
export const MessageSchema = z.looseObject({
  type: z.enum(['error', 'warning', 'info']),
  code: z.optional(z.string()),
  content: z.string(),
  path: z.optional(z.string()),
  severity: z.optional(z.enum(['recoverable', 'requires_buyer_input', 'requires_buyer_review', 'unrecoverable'])),
  content_type: z.optional(z.enum(['plain', 'markdown'])),
});
/** The type of `MessageSchema`, written out like `Context`. */
export interface Message {
  type: 'error' | 'warning' | 'info';
  code?: string;
  content: string;
  path?: string;
  severity?: 'recoverable' | 'requires_buyer_input' | 'requires_buyer_review' | 'unrecoverable';
  content_type?: 'plain' | 'markdown';
  [k: string]: unknown;
}

/** Compile-time proof that a written-out type and its schema's inferred type are the same. */
export type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type Assert<T extends true> = T;
// Not exported, so not in the shipped declarations: under a consumer's exactOptionalPropertyTypes
// zod's inferred optionals (`?: T | undefined`) differ from the written `?: T`, and a shipped check
// would fail their compile (TS2344, issue 38). It is ours to hold, in this repository's compile.
type ContextMatchesSchema = Assert<SameType<Context, z.infer<typeof ContextSchema>>>;
type MessageMatchesSchema = Assert<SameType<Message, z.infer<typeof MessageSchema>>>;

/** A unit descriptor (UCP 2026-08-25 common/types/unit.json): machine identity is (`unit`, `scale` or 0). */
export interface UnitDescriptor {
  unit: string;
  display_text: string;
  scale?: number;
}
/** How an item is sold (2026-08-25 `quantity_unit`); absent on a response = by the piece (`C62`). */
export interface QuantityUnit extends UnitDescriptor {
  increment?: number;
}
/** common/types/measure.json: `value` steps of `10^-scale` `unit`. */
export interface Measure extends UnitDescriptor {
  value: number;
}
/** 2026-08-25 shopping/types/unit_price.json. */
export interface UnitPrice {
  amount: number;
  currency: string;
  measure: Measure;
  reference: Measure;
}
/** 2026-08-25 common/types/policy.json (returns, shipping, …). */
export interface Policy {
  type: string;
  description: { plain: string };
  url?: string;
  applies_to?: string[];
}

/** The `ucp` block every response carries. */
export interface UcpMeta {
  version: string;
  status?: 'success' | 'error';
  capabilities?: Record<string, Array<{ version: string }>>;
  services?: Record<string, unknown[]>;
}

/** types/error_response.json: a business outcome with no resource. */
export interface ErrorResponse {
  ucp: UcpMeta & { status: 'error' };
  messages: Message[];
  continue_url?: string;
}

/** Flat protocol error body (400/401/403/404/409/413/415/429/503). */
export interface ProtocolError {
  code: string;
  content: string;
  messages?: Message[];
  continue_url?: string;
}
