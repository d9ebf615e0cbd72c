/**
 * The one place that lists what differs between the UCP versions a shop serves (issue 37; the
 * table is docs/ucp.md "Versions"). The domain core (server/core) and the wire schemas (src/wire)
 * exist once; each version is a mapping at the edge, applied by the transport-neutral operations
 * (catalog-operations.ts, cart-operations.ts) that REST and MCP both call:
 *
 *   request in   `cartRequestIn`: 2026-08-25 cart bodies carry no `id` (the REST path or MCP
 *                `arguments.id` names the cart); 2026-04-08 update bodies may, when it matches.
 *   response out `answerIn`: the `ucp` block names the version that answered (every `dev.ucp.*`
 *                entry at it); 2026-08-25 answers add the shop's `policies[]`; 2026-04-08 answers
 *                leave out the 2026-08-25 fields the core renders where the catalog has them
 *                (`variants[].quantity_unit`, `variants[].unit_price`, `line_items[].item.quantity_unit`),
 *                so they stay byte for byte what they were before 2026-08-25 existed.
 *   discovery    `profileAt`: `/.well-known/ucp` is the 2026-08-25 profile (signing keys as `keys[]`,
 *                `supported_versions` naming the 2026-04-08 leaf on the shop's own origin); the leaf
 *                is the 2026-04-08 profile served before, unchanged.
 *
 * Which version a request is in is decided once, by negotiation (server/http/authenticate.ts):
 * the `ucp.version` of the platform profile the caller names; no profile → 2026-04-08 (the seed).
 */
import { UCP_LATEST, UCP_VERSION, UCP_VERSIONS, type UcpVersion } from '../version.ts';
import type { Policy } from '../../src/wire/common.ts';
import type { Product, Variant } from '../../src/wire/catalog.ts';
import type { Shop } from '../formats/types.ts';
import { businessProfile, capabilitiesAt, leafProfilePath, OLDER_VERSIONS, retagRegistry } from '../core/shops/ucp-profile.ts';
import { InvalidRequest } from '../core/shared/errors.ts';
import { text } from '../core/shared/localize.ts';
import { rememberedJson, serializedOnce } from '../lib/json-fragments.ts';

export const isServedVersion = (v: unknown): v is UcpVersion => typeof v === 'string' && (UCP_VERSIONS as readonly string[]).includes(v);

// The published registry per version (entries retagged, leaf paths) lives with the profile in
// server/core/shops/ucp-profile.ts, where negotiation (server/http/authenticate.ts) reads it too.
export { capabilitiesAt, leafProfilePath, OLDER_VERSIONS };

const mapEntries = retagRegistry;

/**
 * The discovery profile at a version. The seed's version is the leaf served before (no
 * `supported_versions`, keys as `signing_keys`); the latest names the leaf and publishes keys as `keys[]`.
 */
export function profileAt(v: UcpVersion, shop: Shop, origin: string, signingKeys?: unknown[]) {
  const leaf = businessProfile(shop, origin, signingKeys);
  if (v === UCP_VERSION) return leaf;
  const { signing_keys: keys, ...rest } = leaf as typeof leaf & { signing_keys?: unknown[] };
  return {
    ...rest,
    ucp: {
      version: v,
      supported_versions: Object.fromEntries(Object.entries(OLDER_VERSIONS).map(([older, path]) => [older, `${origin}${path}`])),
      services: mapEntries(leaf.ucp.services as Record<string, Record<string, unknown>[]>, v),
      capabilities: capabilitiesAt(v),
      payment_handlers: leaf.ucp.payment_handlers,
    },
    ...(keys ? { keys } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Request in.

/**
 * A cart create/update body as the core reads it. 2026-08-25 sends no `id` in any cart body (the
 * cart is named by the path or `arguments.id`): one there is refused naming the field, so an agent
 * built against 2026-08-25 learns of it here rather than from a stricter shop. 2026-04-08 update
 * bodies may carry it (cart-operations.ts checks that it matches).
 */
export function cartRequestIn(v: UcpVersion, input: unknown): unknown {
  if (v === UCP_VERSION || typeof input !== 'object' || input === null || !Object.hasOwn(input, 'id')) return input;
  throw new InvalidRequest('invalid_request', `UCP ${v} cart requests do not carry \`id\` in the body: the cart is named by the request path (REST) or arguments.id (MCP).`, [
    { path: '$.id', code: 'unexpected_field', content: `Not part of a UCP ${v} cart request: leave it out.` },
  ]);
}

// ---------------------------------------------------------------------------------------------
// Response out.

type Body = { ucp?: Record<string, unknown>; [k: string]: unknown };

/** The `ucp` block at another version: its `version`, and each capability and service entry's. */
function ucpAt(ucp: Record<string, unknown>, v: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...ucp, version: v };
  if (ucp.capabilities) out.capabilities = mapEntries(ucp.capabilities as Record<string, Record<string, unknown>[]>, v);
  if (ucp.services) out.services = mapEntries(ucp.services as Record<string, Record<string, unknown>[]>, v);
  return out;
}

const policyCache = new WeakMap<Shop, Map<string, Policy[]>>();
/** The shop's policies in one language (absolute URLs), made once per shop object, language and origin. */
export function policiesOf(shop: Shop, language: string, origin: string): Policy[] | undefined {
  const stored = shop.settings.policies;
  if (!stored?.length) return undefined;
  let byKey = policyCache.get(shop);
  if (!byKey) policyCache.set(shop, (byKey = new Map()));
  const key = `${language} ${origin}`;
  let out = byKey.get(key);
  if (!out) {
    if (byKey.size >= 32) byKey.clear();
    out = serializedOnce(
      stored.map((p) => ({
        type: p.type,
        description: { plain: text(p.description, language, shop.settings.default_language) },
        ...(p.url ? { url: p.url.startsWith('/') ? `${origin}${p.url}` : p.url } : {}),
        ...(p.applies_to ? { applies_to: p.applies_to } : {}),
      })),
    );
    byKey.set(key, out);
  }
  return out;
}

const LATEST_ONLY_VARIANT_FIELDS = ['quantity_unit', 'unit_price'] as const;
const hasLatestFields = (v: Variant) => LATEST_ONLY_VARIANT_FIELDS.some((k) => v[k] !== undefined);

const seedProducts = new WeakMap<Product, Product>();
/**
 * A product as 2026-04-08 shows it: the same object when it has no 2026-08-25 fields (most), else a
 * copy without them, made once per rendered listing (and remembered as JSON like the listing).
 */
function seedProduct(p: Product): Product {
  if (!p.variants.some(hasLatestFields)) return p;
  let out = seedProducts.get(p);
  if (!out) {
    const variants = p.variants.map((v) => {
      if (!hasLatestFields(v)) return v;
      const { quantity_unit: _q, unit_price: _u, ...rest } = v;
      return rest;
    });
    out = { ...p, variants };
    if (rememberedJson(p) !== undefined) seedProducts.set(p, serializedOnce(out));
  }
  return out;
}

function seedBody(body: Body): Body {
  if (Array.isArray(body.products)) {
    const products = body.products as Product[];
    // Most listings have nothing of 2026-08-25: the body itself, with no array made on the way.
    let i = 0;
    while (i < products.length && seedProduct(products[i]) === products[i]) i++;
    return i === products.length ? body : { ...body, products: products.map(seedProduct) };
  }
  if (body.product) {
    const product = seedProduct(body.product as Product);
    return product === body.product ? body : { ...body, product };
  }
  if (Array.isArray(body.line_items) && (body.line_items as Array<{ item?: { quantity_unit?: unknown } }>).some((l) => l.item?.quantity_unit !== undefined)) {
    return {
      ...body,
      line_items: (body.line_items as Array<{ item: Record<string, unknown> }>).map((l) => {
        if (l.item.quantity_unit === undefined) return l;
        const { quantity_unit: _q, ...item } = l.item;
        return { ...l, item };
      }),
    };
  }
  return body;
}

export interface AnswerContext {
  shop: Shop;
  origin: string;
  /** The answer's language (for `policies[].description`); a function when finding it costs, called only if needed. */
  language: string | (() => string);
}

/**
 * A response body (catalog, cart, or a UCP error envelope) in the version that answers. 2026-04-08
 * returns the core's body itself whenever it has nothing of 2026-08-25 in it.
 */
export function answerIn<T extends object>(v: UcpVersion, body: T, ctx: AnswerContext): T {
  const b = body as Body;
  if (v === UCP_VERSION) return seedBody(b) as T;
  const out: Body = { ...b, ...(b.ucp ? { ucp: ucpAt(b.ucp, v) } : {}) };
  const isError = (b.ucp as { status?: string } | undefined)?.status === 'error';
  const policies = isError || !ctx.shop.settings.policies?.length ? undefined : policiesOf(ctx.shop, typeof ctx.language === 'string' ? ctx.language : ctx.language(), ctx.origin);
  if (policies) out.policies = policies;
  return out as T;
}
