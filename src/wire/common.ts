/**
 * Wire shapes shared by the server, the browser client, the MCP tool definitions and the tests.
 * Written with `zod/mini` so host.js pays only for the schemas it imports (tree-shaken), while the
 * server gets the same objects for validation and JSON Schema generation.
 */
import * as z from 'zod/mini';

export const UCP_VERSION = '2026-04-08';

/** `context` on catalog and cart calls: hints only, open for extension (types/context.json). */
export const Context = z.looseObject({
  language: z.optional(z.string().check(z.minLength(1), z.maxLength(35))),
  currency: z.optional(z.string().check(z.minLength(1), z.maxLength(8))),
  address_country: z.optional(z.string().check(z.maxLength(8))),
  address_region: z.optional(z.string().check(z.maxLength(64))),
  postal_code: z.optional(z.string().check(z.maxLength(32))),
  intent: z.optional(z.string().check(z.maxLength(1024))),
  eligibility: z.optional(z.array(z.string().check(z.maxLength(128))).check(z.maxLength(32))),
});
export type Context = z.infer<typeof Context>;

export const Signals = z.optional(z.record(z.string(), z.unknown()));
export const Attribution = z.optional(z.record(z.string(), z.string()));

export const Price = z.object({ amount: z.int(), currency: z.string() });
export type Price = z.infer<typeof Price>;

/** message.json: error / warning / info. */
export const Message = z.looseObject({
  type: z.enum(['error', 'warning', 'info']),
  code: z.optional(z.string()),
  content: z.string(),
  path: z.optional(z.string()),
  severity: z.optional(z.enum(['recoverable', 'requires_buyer_input', 'requires_buyer_review', 'unrecoverable'])),
  content_type: z.optional(z.enum(['plain', 'markdown'])),
});
export type Message = z.infer<typeof Message>;

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
