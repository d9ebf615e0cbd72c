/**
 * The catalog file format (`npm run seed -- FILE`), which is also how the database stores a
 * product. One JSON document per shop: the shop's settings, its products and its discount codes.
 * Documented in docs/catalog-format.md. Text that buyers read is localized: a plain string, or an
 * object of BCP 47 language -> text ({"en": "Mug", "fr": "Tasse"}).
 * Money is an integer in the shop currency's minor units (cents for USD).
 */
import { z } from 'zod';

export const Localized = z.union([z.string().min(1), z.record(z.string().min(2), z.string())]);
export type Localized = z.infer<typeof Localized>;

/**
 * The refusals of mistakes a sync tool or a hand-written file makes that zod alone would let by
 * (a dropped key, a rounded price, markup in plain text); each message says what to do instead.
 */
export const CATALOG_MESSAGES = {
  productPrice: 'price belongs on each variant, in minor units (variants[].price: 2550 for 25.50)',
  plainText: 'plain text expected; put HTML in description_html',
  minorUnits: 'an integer in minor units expected (2550 for 25.50), not a decimal',
} as const;

/** An HTML tag (`<p>`, `</b>`, `<br/>`, `<a href=…>`) or comment; a lone `<` (`size < 10`) is text. */
const HTML_TAG = /<\/?[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?>|<!--/i;
const PlainString = z.string().refine((t) => !HTML_TAG.test(t), CATALOG_MESSAGES.plainText);
/** Localized text buyers read as plain text (titles, `description`): HTML tags are refused. */
export const PlainLocalized = z.union([PlainString.min(1), z.record(z.string().min(2), PlainString)]);

const Id = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,127}$/, 'ids are 1-128 letters, digits, _ . : -');
/** Money: an integer in the shop currency's minor units; 25.5 is refused saying so. */
const Minor = z
  .number({ error: (i) => (i.input === undefined ? undefined : CATALOG_MESSAGES.minorUnits) })
  .int({ error: CATALOG_MESSAGES.minorUnits })
  .nonnegative();
/** The shop's own page for a product or variant (its storefront, or a feed's `link`): absolute http(s). */
const PageUrl = z.string().regex(/^https?:\/\/[^\s]+$/, 'an absolute http(s) URL');

const ChoiceOption = z.object({
  id: Id,
  label: Localized,
  /** Added to the line's unit price when chosen, in shop-currency minor units. */
  price_modifier: Minor.optional(),
});

/** A customization definition, read from `variant.metadata.customizations` by agents and host.js. */
export const CustomizationDef = z.discriminatedUnion('type', [
  z.object({
    id: Id,
    type: z.literal('text'),
    label: Localized,
    required: z.boolean().default(false),
    min_length: z.number().int().nonnegative().optional(),
    max_length: z.number().int().positive(),
    placeholder: Localized.optional(),
    price_modifier: Minor.optional(),
  }),
  z.object({
    id: Id,
    type: z.literal('single_select'),
    label: Localized,
    required: z.boolean().default(false),
    options: z.array(ChoiceOption).min(1),
  }),
  z.object({
    id: Id,
    type: z.literal('multi_select'),
    label: Localized,
    required: z.boolean().default(false),
    min_selections: z.number().int().nonnegative().optional(),
    max_selections: z.number().int().positive().optional(),
    options: z.array(ChoiceOption).min(1),
  }),
]);
export type CustomizationDef = z.infer<typeof CustomizationDef>;

export const StoredMedia = z.object({
  type: z.enum(['image', 'video', 'model_3d']),
  /** Absolute, or a path on the storefront (made absolute with the request origin). */
  url: z.string().min(1),
  alt_text: Localized.optional(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
});

/**
 * A unit descriptor (UCP 2026-08-25 `common/types/unit.json`): `unit` a UN/CEFACT Rec 20 code where
 * one fits (`C62` piece, `PR` pair, `KGM` kilogram, `MTR` metre), `display_text` the label buyers
 * read, `scale` the power of ten one step is (0.1 kg steps: `KGM`, scale 1).
 */
const Unit = {
  unit: z.string().min(1).max(16),
  display_text: Localized,
  scale: z.number().int().min(0).max(15).optional(),
};
/** How a variant is sold (UCP 2026-08-25 `quantity_unit`); absent = by the piece. `increment`: sold in multiples of this many steps. */
export const QuantityUnit = z.object({ ...Unit, increment: z.number().int().min(1).optional() });
export type QuantityUnit = z.infer<typeof QuantityUnit>;
const Measure = z.object({ ...Unit, value: z.number().int().min(1) });
/**
 * What one sale unit contains and per how much a unit price is shown (UCP `unit_price`: a 3-pack
 * of socks is `measure` 3 pairs, `reference` 1 pair). Both in the same `unit` (the spec forbids
 * converting units); the amount is computed from the price (server/core/products/products.ts).
 */
export const UnitPricing = z
  .object({ measure: z.object(Measure.shape), reference: z.object(Measure.shape) })
  .refine((u) => u.measure.unit === u.reference.unit, { message: 'measure.unit and reference.unit must be the same unit', path: ['reference', 'unit'] });
export type UnitPricing = z.infer<typeof UnitPricing>;

/**
 * A shop policy (UCP 2026-08-25 `common/types/policy.json`): returns, shipping, warranty. `type` is
 * reverse-DNS (`dev.ucp.shopping.policy.return`, or one in the shop's own domain), `applies_to`
 * JSONPaths relative to the response root (absent: the whole response).
 */
export const ShopPolicy = z.object({
  type: z.string().regex(/^[a-z][a-z0-9-]*(?:\.[a-z0-9](?:[a-z0-9_-]*[a-z0-9_])?)+$/, 'a reverse-DNS name such as dev.ucp.shopping.policy.return'),
  description: Localized,
  url: z.string().regex(/^(https?:\/\/[^\s]+|\/[^\s]*)$/, 'an http(s) URL or a path starting with /').optional(),
  applies_to: z.array(z.string().startsWith('$')).optional(),
});
export type ShopPolicy = z.infer<typeof ShopPolicy>;

export const StoredVariant = z.object({
  id: Id,
  sku: z.string().optional(),
  /** Defaults to the option labels joined with " / ", or the product title. */
  title: PlainLocalized.optional(),
  description: PlainLocalized.optional(),
  /** option name -> option value id, e.g. {"size": "m", "color": "blue"}. */
  options: z.record(z.string(), z.string()).default({}),
  price: Minor,
  list_price: Minor.optional(),
  /** Units on hand; omitted means inventory is not tracked (always available). */
  inventory: z.number().int().nonnegative().optional(),
  status: z.enum(['in_stock', 'backorder', 'preorder', 'out_of_stock', 'discontinued']).optional(),
  media: z.array(StoredMedia).optional(),
  barcodes: z.array(z.object({ type: z.string(), value: z.string() })).optional(),
  customizations: z.array(CustomizationDef).optional(),
  quantity_unit: QuantityUnit.optional(),
  unit_price: UnitPricing.optional(),
  /** The variant's own page on the shop's site, when it has one (a feed's `link`); else the product's `url`. */
  url: PageUrl.optional(),
});
export type StoredVariant = z.infer<typeof StoredVariant>;

export const StoredProduct = z.object({
  id: Id,
  handle: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  title: PlainLocalized,
  /** Plain text: what `description.plain` answers. HTML belongs in `description_html`. */
  description: PlainLocalized,
  /** Never here: prices are per variant (`variants[].price`). Named so it is refused, not dropped. */
  price: z.never({ error: CATALOG_MESSAGES.productPrice }).optional().describe(`Not allowed: ${CATALOG_MESSAGES.productPrice}.`),
  /** The description as the shop wrote it in HTML (an import's source), answered as UCP's `description.html`. */
  description_html: Localized.optional(),
  /**
   * `active` (default): searched and sold. `hidden`: not offered in search or browsing, but found by
   * id (lookup, product page) and sold, like a product reachable only by its link. `unavailable`:
   * not sold (draft, archived, unpublished, or gone from its import source): not in search, every
   * variant answers `discontinued`, carts holding it read with a message, new lines are refused.
   */
  status: z.enum(['active', 'hidden', 'unavailable']).optional(),
  /** The product's own page on the shop's site (docs/catalog-import.md); default: this server's storefront page. */
  url: PageUrl.optional(),
  /** Brand or vendor: searchable, answered in `metadata.brand`. */
  brand: z.string().min(1).max(200).optional(),
  /** The import source that brought the product (`ucp-storefront import`): re-importing it updates or retires the product. */
  source: z.string().min(1).max(2048).optional(),
  categories: z.array(z.string().min(1)).default([]),
  tags: z.array(z.string()).optional(),
  media: z.array(StoredMedia).optional(),
  options: z
    .array(
      z.object({
        name: z.string().min(1),
        label: Localized,
        values: z.array(z.object({ id: z.string().min(1), label: Localized })).min(1),
      }),
    )
    .optional(),
  variants: z.array(StoredVariant).min(1),
  rating: z.object({ value: z.number(), scale_max: z.number(), count: z.number().int().optional() }).optional(),
}).superRefine(variantOptionsDeclared);
export type StoredProduct = z.infer<typeof StoredProduct>;

/**
 * Each variant's `options` names an option the product declares (`options[].name`) and one of
 * that option's value ids: anything else would be a choice no buyer can make.
 */
function variantOptionsDeclared(
  p: { options?: Array<{ name: string; values: Array<{ id: string }> }>; variants: Array<{ options: Record<string, string> }> },
  ctx: z.RefinementCtx,
): void {
  // Also reached with other issues already found: read defensively.
  const declared = new Map((Array.isArray(p.options) ? p.options : []).map((o) => [o?.name, (o?.values ?? []).map((v) => v?.id)]));
  (Array.isArray(p.variants) ? p.variants : []).forEach((v, i) => {
    for (const [name, value] of Object.entries(v?.options ?? {})) {
      const values = declared.get(name);
      const path = ['variants', i, 'options', name];
      if (!values) {
        const names = [...declared.keys()];
        ctx.addIssue({ code: 'custom', path, message: `the product declares no option '${name}' (${names.length ? `its options: ${names.join(', ')}` : 'it declares no options'}); add it to options[] or remove it here` });
      } else if (!values.includes(value)) {
        ctx.addIssue({ code: 'custom', path, message: `option '${name}' has no value '${value}' (its values: ${values.join(', ')})` });
      }
    }
  });
}

export const StoredDiscount = z.object({
  code: z.string().min(1).max(64),
  title: Localized,
  kind: z.enum(['percentage', 'fixed_amount']),
  /** Percentage in basis points (1500 = 15%) or a fixed amount in shop-currency minor units. */
  value: z.number().int().positive(),
  min_subtotal: Minor.optional(),
  starts_at: z.string().datetime({ offset: true }).optional(),
  ends_at: z.string().datetime({ offset: true }).optional(),
});
export type StoredDiscount = z.infer<typeof StoredDiscount>;

/** One per-client budget: bursts of `burst` requests, refilled at `per_second`; `false` turns it off. */
const Budget = z.union([z.strictObject({ burst: z.number().int().min(1), per_second: z.number().positive() }), z.literal(false)]);
const BudgetPair = z.strictObject({ read: Budget.optional(), write: Budget.optional() });
/**
 * Where the cart hands over to the shop's own checkout (docs/carts.md "Checkout handoff"): a URL
 * template filled from the cart, reached by a redirect (GET) or a form POST of the whole cart.
 */
export const CheckoutHandoff = z.object({
  /** Absolute http(s) URL or a path on the storefront; `{cart_id}`, `{currency}`, `{language}`, `{lines}` are filled in. */
  url: z.string().regex(/^(https?:\/\/[^\s]+|\/[^\s]*)$/, 'an http(s) URL or a path starting with /'),
  method: z.enum(['GET', 'POST']).default('GET'),
  /** One line of `{lines}`: `{variant_id}`, `{sku}`, `{quantity}`. */
  line: z.string().default('{variant_id}:{quantity}'),
  separator: z.string().default(','),
});
export type CheckoutHandoff = z.infer<typeof CheckoutHandoff>;

export const ShopSettings = z.object({
  default_language: z.string().min(2).default('en'),
  languages: z.array(z.string().min(2)).min(1).default(['en']),
  /** ISO 4217 code of the shop's own prices. */
  currency: z.string().regex(/^[A-Z]{3}$/).default('USD'),
  /** Units of another currency per one unit of the shop currency (USD -> EUR 0.92). */
  rates: z.record(z.string().regex(/^[A-Z]{3}$/), z.number().positive()).default({}),
  /** Tax estimate in basis points by ISO 3166-1 country, or "US-CA" country-region; default for the rest. */
  tax: z
    .object({
      default_bps: z.number().int().nonnegative().default(0),
      by_country: z.record(z.string(), z.number().int().nonnegative()).default({}),
      by_region: z.record(z.string(), z.number().int().nonnegative()).default({}),
    })
    .default({ default_bps: 0, by_country: {}, by_region: {} }),
  mcp_enabled: z.boolean().default(false),
  /** Agent origins allowed to frame the embedded cart page (CSP frame-ancestors). */
  allowed_agent_origins: z.array(z.string()).default([]),
  order_webhooks_enabled: z.boolean().default(false),
  /**
   * Per-client budgets on the UCP REST and MCP transports (server/http/transport-limits.ts,
   * docs/security.md): `anonymous` per client address, `keyed` per channel key or signing platform.
   * Left out, a class keeps its default.
   */
  rate_limits: z.strictObject({ anonymous: BudgetPair.optional(), keyed: BudgetPair.optional() }).optional(),
  /** host.js registers the shop's tools with in-page agents (WebMCP, docs/webmcp.md) on its own pages. */
  webmcp_enabled: z.boolean().default(true),
  /** The shop's own site (`https://shop.example.com`): imported products link to their pages there (docs/catalog-import.md). */
  storefront_url: z.string().regex(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, 'an absolute http(s) URL').optional(),
  /** The shop's own checkout; without it the handoff shows the order summary and says checkout is not connected. */
  checkout: CheckoutHandoff.optional(),
  /** The shop's policies (returns, shipping), sent as `policies[]` to UCP 2026-08-25 agents (docs/catalog-format.md). */
  policies: z.array(ShopPolicy).max(20).optional(),
  /** Free-form per-feature settings later features add (access policy, webhook URLs, ...). */
  extra: z.record(z.string(), z.unknown()).default({}),
});
export type ShopSettings = z.infer<typeof ShopSettings>;

export const CatalogFile = z.object({
  shop: z.object({
    id: Id,
    domain: z.string().min(1),
    name: z.string().min(1),
    protocol_enabled: z.boolean().default(true),
    settings: ShopSettings.default(ShopSettings.parse({})),
  }),
  products: z.array(StoredProduct),
  discounts: z.array(StoredDiscount).default([]),
});
export type CatalogFile = z.infer<typeof CatalogFile>;
