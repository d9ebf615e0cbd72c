/**
 * What this business publishes about itself: the discovery profile and the `ucp` block of each
 * response. One place, so discovery and responses never disagree about names or versions.
 */
import { UCP_LATEST, UCP_VERSION, UCP_VERSIONS, type UcpVersion } from '../../version.ts';
import type { Shop } from '../../formats/types.ts';

const SITE = `https://ucp.dev/${UCP_VERSION}`;
export const SPEC_URL = `${SITE}/specification/overview`;
export const REST_SCHEMA_URL = `${SITE}/services/shopping/rest.openapi.json`;
export const MCP_SCHEMA_URL = `${SITE}/services/shopping/mcp.openrpc.json`;
export const EMBEDDED_SCHEMA_URL = `${SITE}/services/shopping/embedded.openrpc.json`;

export const CAP = {
  search: 'dev.ucp.shopping.catalog.search',
  lookup: 'dev.ucp.shopping.catalog.lookup',
  cart: 'dev.ucp.shopping.cart',
  discount: 'dev.ucp.shopping.discount',
} as const;

interface CapabilityEntry {
  version: string;
  spec: string;
  schema: string;
  extends?: string[];
}

/** Every capability this server implements, as published in discovery. */
export const CAPABILITIES: Record<string, CapabilityEntry[]> = {
  [CAP.search]: [{ version: UCP_VERSION, spec: `${SITE}/specification/catalog/search`, schema: `${SITE}/schemas/shopping/catalog_search.json` }],
  [CAP.lookup]: [{ version: UCP_VERSION, spec: `${SITE}/specification/catalog/lookup`, schema: `${SITE}/schemas/shopping/catalog_lookup.json` }],
  [CAP.cart]: [{ version: UCP_VERSION, spec: `${SITE}/specification/cart`, schema: `${SITE}/schemas/shopping/cart.json` }],
  [CAP.discount]: [
    { version: UCP_VERSION, spec: `${SITE}/specification/discount`, schema: `${SITE}/schemas/shopping/discount.json`, extends: [CAP.cart] },
  ],
};

/**
 * The versions (issue 37; what else differs is listed in server/ucp/versions.ts): the registry
 * above is the seed's; at another version every `dev.ucp.*` entry declares that version and its
 * ucp.dev URLs are that release's. Older versions are served through leaf profiles on the shop's
 * own origin (`/.well-known/ucp/<version>`); negotiation (server/http/authenticate.ts) accepts the
 * latest and those.
 */
export const leafProfilePath = (v: UcpVersion) => `/.well-known/ucp/${v}`;
/** Where the shop publishes its profile at version `v`: the latest at `/.well-known/ucp`, an older one at its leaf. */
export const shopProfilePath = (v: UcpVersion) => (v === UCP_LATEST ? '/.well-known/ucp' : leafProfilePath(v));
export const OLDER_VERSIONS: Readonly<Record<string, string>> = Object.fromEntries(UCP_VERSIONS.filter((v) => v !== UCP_LATEST).map((v) => [v, leafProfilePath(v)]));

/** A published entry (capability, binding) at another version: its `version`, and its ucp.dev URLs under that release. */
export function retagEntry<T extends Record<string, unknown>>(entry: T, v: string): T {
  const out: Record<string, unknown> = { ...entry, version: v };
  for (const k of ['spec', 'schema'] as const) {
    if (typeof entry[k] === 'string') out[k] = (entry[k] as string).replace(`https://ucp.dev/${UCP_VERSION}/`, `https://ucp.dev/${v}/`);
  }
  return out as T;
}

/** Every entry of a registry (capabilities, services) at version `v`. */
export const retagRegistry = <T extends Record<string, unknown>>(registry: Record<string, T[]>, v: string): Record<string, T[]> =>
  Object.fromEntries(Object.entries(registry).map(([name, entries]) => [name, entries.map((e) => retagEntry(e, v))]));

const registries = new Map<string, Record<string, CapabilityEntry[]>>();
/** The business's capability registry at one version. */
export function capabilitiesAt(v: UcpVersion): Record<string, CapabilityEntry[]> {
  if (v === UCP_VERSION) return CAPABILITIES;
  let r = registries.get(v);
  if (!r) registries.set(v, (r = retagRegistry(CAPABILITIES as Record<string, Array<CapabilityEntry & Record<string, unknown>>>, v)));
  return r;
}

/** Capabilities relevant to each operation family (DIGEST §1.1 "Every response"). */
export const RELEVANT: Record<'search' | 'lookup' | 'cart', string[]> = {
  search: [CAP.search],
  lookup: [CAP.lookup],
  cart: [CAP.cart, CAP.discount],
};

export type Operation = keyof typeof RELEVANT;

/**
 * The `ucp` block for a response. `negotiated` is the capability set agreed with the calling
 * platform (all of ours until UCP-Agent negotiation narrows it).
 */
export function responseMeta(op: Operation, negotiated: Iterable<string> = Object.keys(CAPABILITIES)) {
  const allowed = new Set(negotiated);
  const capabilities: Record<string, Array<{ version: string }>> = {};
  for (const name of RELEVANT[op]) if (allowed.has(name)) capabilities[name] = [{ version: UCP_VERSION }];
  return { version: UCP_VERSION, capabilities };
}

export function businessProfile(shop: Shop, origin: string, signingKeys?: unknown[]) {
  const bindings: Array<Record<string, unknown>> = [
    { version: UCP_VERSION, transport: 'rest', endpoint: `${origin}/api/ucp`, spec: SPEC_URL, schema: REST_SCHEMA_URL },
  ];
  if (shop.settings.mcp_enabled) {
    bindings.push({ version: UCP_VERSION, transport: 'mcp', endpoint: `${origin}/mcp`, spec: SPEC_URL, schema: MCP_SCHEMA_URL });
  }
  bindings.push({ version: UCP_VERSION, transport: 'embedded', spec: SPEC_URL, schema: EMBEDDED_SCHEMA_URL });
  return {
    ucp: {
      version: UCP_VERSION,
      services: { 'dev.ucp.shopping': bindings },
      capabilities: CAPABILITIES,
      // Checkout is not offered yet, so no payment handlers (the field itself is required).
      payment_handlers: {},
    },
    ...(shop.settings.order_webhooks_enabled && signingKeys?.length ? { signing_keys: signingKeys } : {}),
  };
}

/**
 * The demo agent (`agent.localhost`, server/storefront/index.ts) publishes a platform profile, so an
 * agent builder has a profile URL to name on their first call (docs/access.md "Zero setup"). It is a
 * valid 2026-04-08 `platform_profile` naming every capability and transport this server offers, so
 * negotiation with it keeps everything.
 */
export const DEMO_AGENT_HOSTNAME = 'agent.localhost';

/**
 * `http://agent.localhost:PORT/.well-known/ucp` for the port (or `host:port` origin) a client
 * reached us on: the seed's version. Another version's demo agent profile is at that version's
 * leaf path (`/.well-known/ucp/2026-08-25`), for a builder whose agent targets it.
 */
export function demoAgentProfileUrl(originOrPort: string | number, v: UcpVersion = UCP_VERSION): string {
  let port = String(originOrPort);
  if (!/^\d+$/.test(port)) {
    const u = new URL(port);
    port = u.port || (u.protocol === 'https:' ? '443' : '80');
  }
  const suffix = port === '80' ? '' : `:${port}`;
  return `http://${DEMO_AGENT_HOSTNAME}${suffix}${v === UCP_VERSION ? '/.well-known/ucp' : leafProfilePath(v)}`;
}

export function demoPlatformProfile(v: UcpVersion = UCP_VERSION) {
  const binding = (transport: string, schema: string) => ({ version: UCP_VERSION, transport, spec: SPEC_URL, schema });
  const services = { 'dev.ucp.shopping': [binding('rest', REST_SCHEMA_URL), binding('mcp', MCP_SCHEMA_URL), binding('embedded', EMBEDDED_SCHEMA_URL)] };
  return {
    ucp: {
      version: v,
      services: v === UCP_VERSION ? services : retagRegistry(services, v),
      capabilities: capabilitiesAt(v),
      payment_handlers: {},
    },
  };
}
