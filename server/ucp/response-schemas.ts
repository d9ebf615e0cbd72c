/**
 * The UCP REST response bodies as zod schemas, for the OpenAPI document's `components.schemas`
 * (server/ucp/openapi.ts). The wire types in src/wire are written-out interfaces (host.js and the
 * client need no zod for them); each schema here is held equal to its interface at compile time
 * (`Same` below), so the document cannot drift from what the server's code returns.
 * Request-side schemas (Context, Message) are the very objects src/wire validates with.
 */
import { z } from 'zod';
import { ContextSchema, MessageSchema, type ErrorResponse, type ProtocolError, type UcpMeta } from '../../src/wire/common.ts';
import type { CustomizationDef, GetProductResponse, LookupResponse, Product, SearchResponse, Variant } from '../../src/wire/catalog.ts';
import type { AppliedDiscount, Cart, LineItem, Total } from '../../src/wire/cart.ts';
import { matches, type ComponentRegistry } from '../http/openapi-schema.ts';
import { UCP_VERSION } from '../version.ts';

const UCP_SCHEMAS = 'https://ucp.dev/schemas/shopping';
/** The official UCP schema a component corresponds to, named in its description (not `$id`: see docs/ucp.md "OpenAPI"). */
const official = (text: string, id: string) => `${text} UCP ${UCP_VERSION}: ${UCP_SCHEMAS}/${id}`;

const Price = z.object({ amount: z.int().describe('Minor units of `currency` (2500 = 25.00 USD).'), currency: z.string().describe('ISO 4217 code.') });
const Range = z.object({ min: Price, max: Price });

const UcpMetaSchema = z.object({
  version: z.string().describe(`The UCP version of this answer (${UCP_VERSION}).`),
  status: z.enum(['success', 'error']).optional(),
  capabilities: z.record(z.string(), z.array(z.object({ version: z.string() }))).optional().describe('The negotiated capabilities relevant to this answer.'),
  services: z.record(z.string(), z.array(z.unknown())).optional(),
});

const TextCustomization = z.object({
  id: z.string(),
  type: z.literal('text'),
  label: z.string(),
  required: z.boolean(),
  min_length: z.int().optional(),
  max_length: z.int(),
  placeholder: z.string().optional(),
  price_modifier: Price.optional(),
});
const SelectCustomization = z.object({
  id: z.string(),
  type: z.enum(['single_select', 'multi_select']),
  label: z.string(),
  required: z.boolean(),
  min_selections: z.int().optional(),
  max_selections: z.int().optional(),
  options: z.array(z.object({ id: z.string(), label: z.string(), price_modifier: Price.optional() })),
});
const CustomizationDefSchema = z.union([TextCustomization, SelectCustomization]);

const Media = { type: z.string(), url: z.string(), alt_text: z.string().optional() };
const SelectedOption = z.object({ name: z.string(), label: z.string(), id: z.string().optional() });

// UCP 2026-08-25 fields (server/ucp/versions.ts): in answers to 2026-08-25 agents only.
const UnitFields = { unit: z.string().describe('UN/CEFACT Rec 20 code (C62 piece, PK pack, PR pair, …).'), display_text: z.string(), scale: z.int().optional().describe('One step is 10^-scale of `unit` (default 0).') };
const QuantityUnitSchema = z.object({ ...UnitFields, increment: z.int().optional() }).describe('UCP 2026-08-25 only: the sale basis `quantity` counts in; absent = by the piece.');
const MeasureSchema = z.object({ ...UnitFields, value: z.int() });
const UnitPriceSchema = z.object({ amount: z.int(), currency: z.string(), measure: MeasureSchema, reference: MeasureSchema }).describe('UCP 2026-08-25 only: the price per `reference` of what one sale unit contains (`measure`).');
const PolicySchema = z.object({ type: z.string().describe('Reverse-DNS policy type (dev.ucp.shopping.policy.return, …).'), description: z.object({ plain: z.string() }), url: z.string().optional(), applies_to: z.array(z.string()).optional() });
const policies = z.array(PolicySchema).optional().describe('UCP 2026-08-25 only: the shop\'s policies (returns, shipping).');

const VariantSchema = z.object({
  id: z.string().describe('The variant id (var_…): what a cart line\'s `item.id` takes.'),
  sku: z.string().optional(),
  title: z.string(),
  description: z.object({ plain: z.string(), html: z.string().optional().describe('The description as the shop wrote it in HTML, where it did (an imported catalog): sanitize before rendering.') }),
  url: z.string().optional().describe('The variant\'s page on the shop\'s own site, where the catalog has one.'),
  price: Price,
  list_price: Price.optional(),
  availability: z.object({ available: z.boolean(), status: z.string().describe('in_stock, limited_availability, backorder, pre_order, out_of_stock or discontinued.') }),
  options: z.array(SelectedOption).optional(),
  media: z.array(z.object(Media)).optional(),
  barcodes: z.array(z.object({ type: z.string(), value: z.string() })).optional(),
  metadata: z.object({ customizations: z.array(CustomizationDefSchema).optional(), quantity_available: z.int().optional() }).optional(),
  inputs: z.array(z.object({ id: z.string(), match: z.enum(['exact', 'featured']) })).optional().describe('Lookup only: which requested ids resolved to this variant.'),
  quantity_unit: QuantityUnitSchema.optional(),
  unit_price: UnitPriceSchema.optional(),
});

const ProductSchema = z.object({
  id: z.string().describe('The product id (prod_…); carts take a variant id, not this.'),
  handle: z.string(),
  title: z.string(),
  description: z.object({ plain: z.string(), html: z.string().optional().describe('The description as the shop wrote it in HTML, where it did (an imported catalog): sanitize before rendering.') }),
  url: z.string().describe('The product\'s page: the shop\'s own site where the catalog names it (an import), else this server\'s storefront page.'),
  categories: z.array(z.object({ value: z.string() })),
  price_range: Range,
  list_price_range: Range.optional(),
  media: z.array(z.object({ ...Media, width: z.number().optional(), height: z.number().optional() })).optional(),
  options: z.array(z.object({ name: z.string(), values: z.array(z.object({ id: z.string().optional(), label: z.string(), available: z.boolean().optional(), exists: z.boolean().optional() })) })).optional(),
  variants: z.array(VariantSchema),
  tags: z.array(z.string()).optional(),
  rating: z.object({ value: z.number(), scale_max: z.number(), count: z.number().optional() }).optional(),
  selected: z.array(SelectedOption).optional(),
  metadata: z.object({ brand: z.string().optional() }).optional(),
});

const messages = z.array(MessageSchema).optional();
const SearchResponseSchema = z.object({
  ucp: UcpMetaSchema,
  products: z.array(ProductSchema),
  pagination: z.object({ has_next_page: z.boolean(), cursor: z.string().optional().describe('Send as pagination.cursor for the next page.'), total_count: z.int().optional() }),
  messages,
  policies,
});
const LookupResponseSchema = z.object({ ucp: UcpMetaSchema, products: z.array(ProductSchema), messages, policies });
const GetProductResponseSchema = z.object({ ucp: UcpMetaSchema, product: ProductSchema, messages, policies });

const TotalSchema = z.object({
  type: z.string().describe('subtotal, items_discount, discount, tax, fee, fulfillment or total (open for extension).'),
  amount: z.int().describe('Minor units of the cart currency; discounts are negative.'),
  display_text: z.string().optional(),
});
const LineItemSchema = z.object({
  id: z.string(),
  item: z.object({ id: z.string(), title: z.string(), price: z.int(), image_url: z.string().optional(), quantity_unit: QuantityUnitSchema.optional() }),
  quantity: z.int(),
  customizations: z.array(z.looseObject({ id: z.string(), value: z.string(), display_text: z.string().optional() })).optional(),
  totals: z.array(TotalSchema),
  parent_id: z.string().optional(),
});
const AppliedDiscountSchema = z.object({
  code: z.string().optional(),
  title: z.string(),
  amount: z.int(),
  automatic: z.boolean().optional(),
  method: z.enum(['each', 'across']).optional(),
  priority: z.int().optional(),
  allocations: z.array(z.object({ path: z.string(), amount: z.int() })).optional(),
});
const CartSchema = z.object({
  ucp: UcpMetaSchema,
  id: z.string(),
  currency: z.string(),
  line_items: z.array(LineItemSchema).describe('Empty after a cancel: the cart stays, with no lines.'),
  totals: z.array(TotalSchema),
  context: z.optional(ContextSchema),
  buyer: z.record(z.string(), z.unknown()).optional(),
  discounts: z.object({ codes: z.array(z.string()), applied: z.array(AppliedDiscountSchema) }).optional(),
  messages,
  continue_url: z.string().describe('Where the buyer continues to checkout on the shop.'),
  expires_at: z.string(),
  policies,
});
const ErrorResponseSchema = z.object({
  ucp: UcpMetaSchema.extend({ status: z.literal('error') }),
  messages: z.array(MessageSchema),
  continue_url: z.string().optional(),
});
const ProtocolErrorSchema = z.object({
  code: z.string().describe('Machine-readable error code, e.g. invalid_request, invalid_profile_url.'),
  content: z.string().describe('What went wrong and what to send instead.'),
  messages: z.array(MessageSchema).optional().describe('One per bad field, with its `path`.'),
  continue_url: z.string().optional(),
});
const ServiceRootSchema = z.object({
  ucp: z.object({ version: z.string(), capabilities: UcpMetaSchema.shape.capabilities }),
  service: z.literal('dev.ucp.shopping'),
  transport: z.literal('rest'),
  endpoint: z.string(),
  spec: z.string(),
  status: z.literal('ok'),
});

void [
  matches<typeof UcpMetaSchema, UcpMeta>(true),
  matches<typeof CustomizationDefSchema, CustomizationDef>(true),
  matches<typeof VariantSchema, Variant>(true),
  matches<typeof ProductSchema, Product>(true),
  matches<typeof SearchResponseSchema, SearchResponse>(true),
  matches<typeof LookupResponseSchema, LookupResponse>(true),
  matches<typeof GetProductResponseSchema, GetProductResponse>(true),
  matches<typeof TotalSchema, Total>(true),
  matches<typeof LineItemSchema, LineItem>(true),
  matches<typeof AppliedDiscountSchema, AppliedDiscount>(true),
  matches<typeof CartSchema, Cart>(true),
  matches<typeof ErrorResponseSchema, ErrorResponse>(true),
  matches<typeof ProtocolErrorSchema, ProtocolError>(true),
];

/** Registers the components; the keys are their names in `components.schemas`. */
export function registerUcpSchemas(r: ComponentRegistry) {
  r.add(Price, { id: 'Price', description: 'An amount of money.' });
  r.add(UcpMetaSchema, { id: 'UcpMeta', description: 'The `ucp` block every answer carries.' });
  r.add(MessageSchema, { id: 'Message', description: official('A message: an error (with `severity` and often a `path`), a warning or an info.', 'types/message.json') });
  r.add(ContextSchema, { id: 'Context', description: official('Buyer context: hints only.', 'types/context.json') });
  r.add(CustomizationDefSchema, { id: 'CustomizationDefinition', description: 'A customization a cart line of this variant takes (`customizations: [{id, value}]`).' });
  r.add(QuantityUnitSchema, { id: 'QuantityUnit' });
  r.add(UnitPriceSchema, { id: 'UnitPrice' });
  r.add(PolicySchema, { id: 'Policy', description: 'UCP 2026-08-25: a shop policy (common/types/policy.json).' });
  r.add(VariantSchema, { id: 'Variant', description: official('A purchasable variant.', 'types/variant.json') });
  r.add(ProductSchema, { id: 'Product', description: official('A product with its variants.', 'types/product.json') });
  r.add(SearchResponseSchema, { id: 'SearchResponse', description: official('Products found.', 'catalog_search.json#/$defs/search_response') });
  r.add(LookupResponseSchema, { id: 'LookupResponse', description: official('The products found; unknown ids are `messages`.', 'catalog_lookup.json#/$defs/lookup_response') });
  r.add(GetProductResponseSchema, { id: 'GetProductResponse', description: official('One product.', 'catalog_lookup.json#/$defs/get_product_response') });
  r.add(TotalSchema, { id: 'Total', description: official('One line of totals.', 'types/total.json') });
  r.add(LineItemSchema, { id: 'LineItem', description: official('A cart line.', 'types/line_item.json') });
  r.add(AppliedDiscountSchema, { id: 'AppliedDiscount', description: 'A discount applied to the cart.' });
  r.add(CartSchema, { id: 'Cart', description: official('A cart.', 'cart.json') });
  r.add(ErrorResponseSchema, { id: 'ErrorResponse', description: official('A business outcome with no resource (HTTP 200): `messages` say what to fix.', 'types/error_response.json') });
  r.add(ProtocolErrorSchema, { id: 'ProtocolError', description: 'A refused request (4xx/5xx): flat `{code, content}`, with `messages` naming each bad field.' });
  r.add(ServiceRootSchema, { id: 'ServiceRoot', description: 'The binding this endpoint serves.' });
}
