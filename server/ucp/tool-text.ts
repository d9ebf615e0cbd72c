/**
 * What the two tool transports share: the model-facing notes on carts and customizations, and the
 * JSON Schema of a zod/mini wire schema (src/wire). The MCP transport (server/mcp/tools.ts) and the
 * WebMCP tool list host.js registers in the page (server/storefront/webmcp.ts) both build their
 * tool definitions from these, so the two never describe the same argument differently.
 */
import * as z from 'zod/mini';
import { describeFields } from '../../src/wire/field-docs.ts';

/** What each catalog tool does and takes (the `catalog` argument is the REST request body). */
export const CATALOG_TEXT = {
  search_catalog:
    "Search this shop's products by free text and/or filters. " +
    'Pass `catalog: {query?, filters?: {categories?: [..], price?: {min?, max?}}, pagination?: {limit?, cursor?}, context?}`; at least a non-empty query or filters is required. ' +
    'Returns full products with variants, prices in minor units ({amount, currency}), availability and customization definitions; follow `pagination.cursor` while `has_next_page`.',
  lookup_catalog:
    'Batch lookup of products or variants by id. Pass `catalog: {ids: [product or variant ids], context?}`. ' +
    'Each product appears once; variants list the requested `inputs` that matched. Unknown ids are reported as messages, not errors.',
  get_product:
    'Full detail of one product (or the product of a variant id). ' +
    'Pass `catalog: {id, selected?: [{name, label}], preferences?: [option names], context?}`; `selected` picks option values (names and labels as get_product shows them) and the matching variant comes first. ' +
    'Read `variant.metadata.customizations` here before adding a customizable variant to a cart. An unknown id returns a `not_found` message.',
} as const;

/**
 * What get and cancel do to a cart, said once for MCP, WebMCP and the OpenAPI document: a cancel
 * empties the cart rather than deleting it (docs/carts.md "Cancel"; server/core/carts/carts.ts
 * `cancelCart`), so a later get is the empty cart, not `not_found`. test/cart-text.test.ts holds
 * the words to the behaviour.
 */
export const CART_TEXT = {
  get:
    'The current state of a cart. An unknown or expired cart is a `not_found` message. ' +
    'A canceled cart is not gone: it comes back with no line items (same id, context and discount codes).',
  cancel:
    'Empties the cart and returns it as it was before the cancel. The cart is not deleted: ' +
    'a later get_cart returns it with no line items (same id, context and discount codes), and update_cart can fill it again.',
} as const;

export const CUSTOMIZATION_NOTE =
  'Customizable variants publish their options in `variant.metadata.customizations` (from search_catalog, lookup_catalog or get_product): ' +
  'each definition has an `id`, a `type` and `required`. On a cart line send `customizations: [{id, value}]`: ' +
  'for `text` one entry whose value is the text (respect min_length/max_length); for `single_select` one entry whose value is an option id; ' +
  'for `multi_select` one entry per chosen option, repeating the customization id (respect min/max_selections). ' +
  'Required customizations must be present; `price_modifier`s are added to the line price. ' +
  'Invalid or missing customizations come back as error `messages` whose `path` names the offending line, e.g. `$.line_items[0].customizations[1]`.';

export const CART_NOTE =
  'Line items are `{item: {id: <variant id>}, quantity}` (use variant ids from the catalog tools). ' +
  'Discount codes go in `discounts: {codes: [...]}` (replaces prior codes; [] clears); rejected codes come back as warning messages. ' +
  '`context` ({language, currency, address_country, ...}) localizes titles and converts prices.';

/** The input JSON Schema of a wire schema (draft 2020-12 without `$schema`), as MCP `tools/list` carries it, every field described (src/wire/field-docs.ts). */
export function jsonSchema(schema: z.ZodMiniType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return describeFields(rest);
}
