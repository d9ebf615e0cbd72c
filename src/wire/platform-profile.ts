/**
 * The parts of a UCP platform profile (`discovery/profile_schema.json#/$defs/platform_profile`) the
 * server relies on when negotiating: `ucp.version`, `ucp.services`, `ucp.capabilities`,
 * `ucp.payment_handlers` and the top-level `signing_keys`. Open objects (extra members allowed),
 * as in the official schema; test/negotiation.test.ts checks it agrees with that schema
 * (Ajv) on valid and invalid samples.
 */
import * as z from 'zod/mini';

const VERSION = /^\d{4}-\d{2}-\d{2}$/;
/**
 * 2026-08-25's reverse-domain names (common/types/reverse_domain_name.json): 2026-04-08's, plus
 * interior hyphens and segments starting with a digit (`com.example-shop.x`, `com.2example.x`).
 * One pattern for both versions: it accepts every 2026-04-08 name, and a 2026-08-25 profile's.
 */
const REVERSE_DOMAIN = /^[a-z](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9_-]*[a-z0-9_])?)+$/;

const Version = z.string().check(z.regex(VERSION));
const ReverseDomain = z.string().check(z.regex(REVERSE_DOMAIN));
const Uri = z.string().check(
  z.refine((s) => {
    try {
      new URL(s);
      return true;
    } catch {
      return false;
    }
  }, 'must be an absolute URI'),
);

const Entity = {
  version: Version,
  spec: z.optional(Uri),
  schema: z.optional(Uri),
  id: z.optional(z.string()),
  config: z.optional(z.record(z.string(), z.unknown())),
};

export const PlatformService = z
  .looseObject({
    ...Entity,
    spec: Uri,
    transport: z.enum(['rest', 'mcp', 'a2a', 'embedded']),
    endpoint: z.optional(Uri),
  })
  .check(z.refine((s) => s.transport === 'a2a' || s.schema !== undefined, { message: 'rest, mcp and embedded bindings need `schema`', path: ['schema'] }));

export const PlatformCapability = z.looseObject({
  ...Entity,
  spec: Uri,
  schema: Uri,
  extends: z.optional(z.union([ReverseDomain, z.array(ReverseDomain).check(z.minLength(1))])),
});

export const PlatformPaymentHandler = z.looseObject({
  ...Entity,
  id: z.string(),
  spec: Uri,
  schema: Uri,
  available_instruments: z.optional(z.array(z.looseObject({ type: z.string() })).check(z.minLength(1))),
});

export const SigningKey = z.looseObject({
  kid: z.string(),
  kty: z.string(),
  crv: z.optional(z.string()),
  x: z.optional(z.string()),
  y: z.optional(z.string()),
  n: z.optional(z.string()),
  e: z.optional(z.string()),
  use: z.optional(z.enum(['sig', 'enc'])),
  alg: z.optional(z.string()),
});
export type SigningKey = z.infer<typeof SigningKey>;

export const PlatformProfile = z.looseObject({
  ucp: z.looseObject({
    version: Version,
    status: z.optional(z.enum(['success', 'error'])),
    services: z.record(ReverseDomain, z.array(PlatformService)),
    capabilities: z.optional(z.record(ReverseDomain, z.array(PlatformCapability))),
    payment_handlers: z.record(ReverseDomain, z.array(PlatformPaymentHandler)),
  }),
  signing_keys: z.optional(z.array(SigningKey)),
  /** UCP 2026-08-25: the profile's keys (`signing_keys` renamed); read for 2026-08-25 profiles only. */
  keys: z.optional(z.array(SigningKey)),
});
export type PlatformProfile = z.infer<typeof PlatformProfile>;
