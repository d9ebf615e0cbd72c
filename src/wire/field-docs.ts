/**
 * What each request field means, in words a model (or a person reading `tools/list` or the OpenAPI
 * documents) can act on. Kept beside the wire schemas and applied to the JSON Schemas generated from
 * them (MCP tool `inputSchema`, OpenAPI request bodies) by `describeFields`, rather than with zod's
 * `describe` on each field: several fields share one schema object (a description registered on it
 * would show wherever it is reused), and the field definitions stay short. Server-side only: the
 * browser bundle never imports this file. test/mcp.test.ts fails when a tool input field has no
 * description here, so a new wire field comes with its words.
 *
 * Keys are field paths (`[]` = any array element); a field takes the longest key that ends its path,
 * so `context.language` serves every request that carries a `context`.
 */
import { LOOKUP_MAX_IDS, QUERY_MAX_LENGTH, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT } from './catalog.ts';
import { MAX_CUSTOMIZATIONS_PER_LINE, MAX_DISCOUNT_CODES, MAX_LINE_ITEMS, MAX_QUANTITY } from './cart.ts';

export const FIELD_DOCS: Readonly<Record<string, string>> = {
  // MCP call metadata (server/mcp/meta.ts).
  meta: 'UCP call metadata (a normal argument, not MCP _meta): {"ucp-agent": {"profile": "<URL>"}, "idempotency-key"?: "<uuid>"}.',
  'meta.ucp-agent': 'Who is calling: {"profile": "<URL of the calling platform\'s UCP profile>"}.',
  'meta.ucp-agent.profile':
    'URL of your platform profile (https; on a development server the demo agent\'s http://agent.localhost:<port>/.well-known/ucp works).',
  'meta.idempotency-key': 'A fresh UUID per logical write; resend the same key only to retry the same call (a replay returns the first result).',

  // Catalog requests.
  catalog: 'The catalog request (the REST request body of the twin operation).',
  query: `Free-text search (at most ${QUERY_MAX_LENGTH} characters). A search needs a non-empty query or filters.`,
  filters: 'Narrow the results: {categories?: [..], price?: {min?, max?}}.',
  'filters.categories': 'Category values a product must have one of (as in product.categories[].value).',
  'filters.price': 'Price bounds in minor units of the shop currency (e.g. 2500 = 25.00).',
  'filters.price.min': 'Lowest price, minor units.',
  'filters.price.max': 'Highest price, minor units.',
  limit: `Page size (default ${SEARCH_DEFAULT_LIMIT}, at most ${SEARCH_MAX_LIMIT}). Same as pagination.limit.`,
  cursor: 'The pagination.cursor of the previous page. Same as pagination.cursor.',
  pagination: 'Paging: {limit?, cursor?}; follow the response\'s pagination.cursor while has_next_page is true.',
  'pagination.limit': `Page size (default ${SEARCH_DEFAULT_LIMIT}, at most ${SEARCH_MAX_LIMIT}).`,
  'pagination.cursor': 'The pagination.cursor of the previous response.',
  ids: `Product or variant ids (1 to ${LOOKUP_MAX_IDS}); unknown ids come back as messages.`,
  'catalog.id': 'A product id (prod_…) or a variant id (var_…; its product is returned with that variant first).',
  selected: 'Option values to select, [{name, label}] (e.g. {"name": "Size", "label": "M"}); the matching variant comes first.',
  'selected[].name': 'Option name, as in product.options[].name.',
  'selected[].label': 'Option value label, as in product.options[].values[].label.',
  'selected[].id': 'Option value id, when the product publishes one.',
  preferences: 'Option names in priority order, used to pick the closest variant when selected matches none exactly.',
  signals: 'Free-form hints about the buyer\'s situation (open object; the shop may ignore them).',
  attribution: 'Attribution parameters as string pairs (e.g. {"utm_source": "agent"}).',

  // Context (every request).
  context: 'Localization hints: {language?, currency?, address_country?, ...}; titles and prices follow them.',
  'context.language': 'BCP 47 language for texts (e.g. "fr"); falls back to Accept-Language, then the shop language.',
  'context.currency': 'ISO 4217 currency for prices (e.g. "EUR"); converted from the shop currency.',
  'context.address_country': 'ISO 3166-1 alpha-2 country of the buyer (e.g. "FR").',
  'context.address_region': 'Region or state of the buyer.',
  'context.postal_code': 'Postal code of the buyer.',
  'context.intent': 'What the buyer is trying to do, in their words.',
  'context.eligibility': 'Eligibility claims (e.g. membership tiers) the shop may honour.',

  // Carts.
  cart: 'The cart request (the REST request body of the twin operation).',
  id: 'The cart id returned by create_cart (cart_…).',
  'cart.id': 'UCP 2026-04-08 only: optional, and when present it must equal the id argument. UCP 2026-08-25 agents leave it out (refused as unexpected_field).',
  line_items: `The cart's lines (at most ${MAX_LINE_ITEMS}); on update the full list: lines left out are removed.`,
  'line_items[].id': 'Update only: the id of an existing line to keep (from the cart\'s line_items[].id).',
  'line_items[].item': 'What to buy: {id: <variant id>}.',
  'line_items[].item.id': 'A variant id (var_…) from product.variants[].id — not a product id.',
  'line_items[].quantity': `How many, 1 to ${MAX_QUANTITY}.`,
  'line_items[].customizations': `Choices for a customizable variant, [{id, value}] (at most ${MAX_CUSTOMIZATIONS_PER_LINE}); definitions are in variant.metadata.customizations.`,
  'customizations[].id': 'The customization definition id (variant.metadata.customizations[].id); repeat it once per option for multi_select.',
  'customizations[].value': 'The text (type text) or an option id (single_select, multi_select).',
  'line_items[].parent_id': 'The id of the line this line belongs to (bundles).',
  'item.quantity_unit':
    'Optional (UCP 2026-08-25): the sale unit your quantity is counted in, as the variant publishes it (variants[].quantity_unit; absent there = by the piece, C62). A different unit is refused (quantity_unit_mismatch), never reinterpreted; leave it out to use the item\'s own unit.',
  'quantity_unit.unit': 'UN/CEFACT Rec 20 unit code (C62 piece, PK pack, PR pair, KGM kilogram…); compared with the item\'s together with scale.',
  'quantity_unit.display_text': 'Label of the unit (ignored when comparing units).',
  'quantity_unit.scale': 'One quantity step is 10^-scale of unit (0-15, default 0).',
  'quantity_unit.increment': 'Ordering granularity in steps (ignored when comparing units).',
  buyer: 'Buyer details the shop may use for the checkout handoff.',
  'buyer.first_name': 'Given name.',
  'buyer.last_name': 'Family name.',
  'buyer.email': 'Email address.',
  'buyer.phone_number': 'Phone number, E.164 preferred.',
  discounts: 'Discount codes: {codes: [..]}.',
  'discounts.codes': `Codes to apply (at most ${MAX_DISCOUNT_CODES}); replaces the codes sent before, [] clears them. Rejected codes come back as warning messages.`,
};

type JsonSchema = { [k: string]: unknown; properties?: Record<string, JsonSchema>; items?: JsonSchema; description?: string };

function docFor(path: string[], docs: Readonly<Record<string, string>>): string | undefined {
  for (let i = 0; i < path.length; i++) {
    const key = path.slice(i).join('.').replace(/\.\[\]/g, '[]');
    if (docs[key] !== undefined) return docs[key];
  }
  return undefined;
}

/** Sets `description` on every property (and nested property) that has none, in place; returns the schema. */
export function describeFields<T>(schema: T, docs: Readonly<Record<string, string>> = FIELD_DOCS, path: string[] = []): T {
  const s = schema as JsonSchema;
  if (!s || typeof s !== 'object') return schema;
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    const p = [...path, name];
    const doc = docFor(p, docs);
    if (doc && prop.description === undefined) prop.description = doc;
    describeFields(prop, docs, p);
  }
  if (s.items && typeof s.items === 'object') describeFields(s.items, docs, [...path, '[]']);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = s[key];
    if (Array.isArray(list)) for (const x of list) describeFields(x, docs, path);
  }
  return schema;
}
