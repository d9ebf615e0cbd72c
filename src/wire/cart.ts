/**
 * Cart requests (the `ucp_request` projections of shopping/cart.json + the discount extension, DIGEST
 * §3.5/§6) and the cart shapes we return. Shared by the REST routes, the MCP tools and the browser.
 * Documented limits: docs/carts.md.
 */
import * as z from 'zod/mini';
import { Attribution, ContextSchema, Signals, type Assert, type Context, type Message, type Policy, type QuantityUnit, type SameType, type UcpMeta } from './common.ts';

/** Most lines one cart may hold. */
export const MAX_LINE_ITEMS = 100;
/** Largest quantity of one line. */
export const MAX_QUANTITY = 999;
/** Most `{id, value}` entries on one line. */
export const MAX_CUSTOMIZATIONS_PER_LINE = 50;
/** Longest customization value accepted on the wire (each definition's `max_length` is usually far lower). */
export const MAX_CUSTOMIZATION_VALUE_LENGTH = 1000;
/** Most discount codes per request, and the longest code. */
export const MAX_DISCOUNT_CODES = 10;
export const MAX_DISCOUNT_CODE_LENGTH = 64;

/** Largest JSON of each open object a cart stores as sent (buyer, context, signals, attribution). */
export const MAX_OPEN_OBJECT_BYTES = 4096;
/** Largest cart request as JSON (everything one cart stores from it: lines, customizations, open objects). */
export const MAX_CART_REQUEST_BYTES = 256 * 1024;

/**
 * UCP keeps these objects open for extension (additionalProperties), so no schema bounds what an
 * extension field may hold: the JSON size does. UTF-16 code units stand in for bytes.
 */
const jsonWithin = (max: number, what: string) =>
  z.refine((v: unknown) => v === undefined || JSON.stringify(v).length <= max, `${what} must be at most ${max} bytes as JSON`);

const Id = z.string().check(z.minLength(1), z.maxLength(256));

export const CustomizationEntrySchema = z.looseObject({
  id: z.string().check(z.minLength(1), z.maxLength(128)),
  value: z.string().check(z.maxLength(MAX_CUSTOMIZATION_VALUE_LENGTH, `at most ${MAX_CUSTOMIZATION_VALUE_LENGTH} characters`)),
});
/** The type of `CustomizationEntrySchema`, written out like `Context` (./common.ts) and checked against it. */
export interface CustomizationEntry {
  id: string;
  value: string;
  [k: string]: unknown;
}
export type CustomizationEntryMatchesSchema = Assert<SameType<CustomizationEntry, z.infer<typeof CustomizationEntrySchema>>>;

/**
 * `item.quantity_unit` on a request line (UCP 2026-08-25): an assertion of the sale basis the
 * quantity is counted in. Compared with the variant's by (`unit`, `scale` or 0); a mismatch is a
 * recoverable refusal, never a silent reinterpretation (server/core/carts/carts.ts).
 */
export const QuantityUnitInput = z.looseObject({
  unit: z.string().check(z.minLength(1), z.maxLength(16)),
  display_text: z.optional(z.string().check(z.maxLength(64))),
  scale: z.optional(z.int().check(z.minimum(0), z.maximum(15))),
  increment: z.optional(z.int().check(z.minimum(1))),
});

export const LineItemInput = z.looseObject({
  /** Update only: an existing line's id (kept when valid and unique). */
  id: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
  item: z.looseObject({ id: Id, quantity_unit: z.optional(QuantityUnitInput) }),
  quantity: z.int().check(z.minimum(1, 'quantity must be at least 1'), z.maximum(MAX_QUANTITY, `quantity must be at most ${MAX_QUANTITY}`)),
  customizations: z.optional(
    z.array(CustomizationEntrySchema).check(z.maxLength(MAX_CUSTOMIZATIONS_PER_LINE, `at most ${MAX_CUSTOMIZATIONS_PER_LINE} customizations per line`)),
  ),
  parent_id: z.optional(z.string().check(z.maxLength(64))),
});
export type LineItemInput = z.infer<typeof LineItemInput>;

export const DiscountsInput = z.looseObject({
  codes: z.optional(
    z
      .array(z.string().check(z.maxLength(MAX_DISCOUNT_CODE_LENGTH)))
      .check(z.maxLength(MAX_DISCOUNT_CODES, `at most ${MAX_DISCOUNT_CODES} discount codes`)),
  ),
});

const Buyer = z.optional(
  z.looseObject({
    first_name: z.optional(z.string().check(z.maxLength(256))),
    last_name: z.optional(z.string().check(z.maxLength(256))),
    email: z.optional(z.string().check(z.maxLength(320))),
    phone_number: z.optional(z.string().check(z.maxLength(64))),
  }),
);

const cartFields = {
  line_items: z.array(LineItemInput).check(z.maxLength(MAX_LINE_ITEMS, `at most ${MAX_LINE_ITEMS} line items per cart`)),
  context: z.optional(ContextSchema.check(jsonWithin(MAX_OPEN_OBJECT_BYTES, 'context'))),
  signals: Signals.check(jsonWithin(MAX_OPEN_OBJECT_BYTES, 'signals')),
  attribution: Attribution.check(jsonWithin(MAX_OPEN_OBJECT_BYTES, 'attribution')),
  buyer: Buyer.check(jsonWithin(MAX_OPEN_OBJECT_BYTES, 'buyer')),
  discounts: z.optional(DiscountsInput),
};
const wholeCart = jsonWithin(MAX_CART_REQUEST_BYTES, 'The cart request');

export const CreateCartRequest = z.looseObject(cartFields).check(wholeCart);
export type CreateCartRequest = z.infer<typeof CreateCartRequest>;

/** `id` is optional (the path/tool argument names the cart); when present it must match. */
export const UpdateCartRequest = z.looseObject({ id: z.optional(z.string().check(z.maxLength(256))), ...cartFields }).check(wholeCart);
export type UpdateCartRequest = z.infer<typeof UpdateCartRequest>;

/** types/total.json entry. Amounts are integers in the cart currency's minor units. */
export interface Total {
  type: 'subtotal' | 'items_discount' | 'discount' | 'tax' | 'fee' | 'fulfillment' | 'total' | (string & {});
  amount: number;
  display_text?: string;
}

export interface LineItem {
  id: string;
  /** `quantity_unit`: 2026-08-25 only (server/ucp/versions.ts), when the item is not sold by the piece. */
  item: { id: string; title: string; price: number; image_url?: string; quantity_unit?: QuantityUnit };
  quantity: number;
  /**
   * Echo of the accepted customizations (an extension field; line_item.json is open), each with
   * `display_text` ("Gift box: Kraft box") in the cart's language.
   */
  customizations?: Array<CustomizationEntry & { display_text?: string }>;
  totals: Total[];
  parent_id?: string;
}

export interface AppliedDiscount {
  code?: string;
  title: string;
  amount: number;
  automatic?: boolean;
  method?: 'each' | 'across';
  priority?: number;
  allocations?: Array<{ path: string; amount: number }>;
}

export interface Cart {
  ucp: UcpMeta;
  id: string;
  currency: string;
  line_items: LineItem[];
  totals: Total[];
  context?: Context;
  buyer?: Record<string, unknown>;
  discounts?: { codes: string[]; applied: AppliedDiscount[] };
  messages?: Message[];
  continue_url: string;
  expires_at: string;
  /** 2026-08-25 only: the shop's policies. */
  policies?: Policy[];
}

/**
 * What a form-POST checkout handoff sends in its `cart` field (docs/carts.md "Checkout handoff"):
 * the cart as the REST transport renders it; these are the members a receiving checkout needs.
 */
const HandoffTotal = z.looseObject({ type: z.string(), amount: z.int(), display_text: z.optional(z.string()) });
export const HandoffCart = z.looseObject({
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  currency: z.string().check(z.minLength(3), z.maxLength(3)),
  line_items: z
    .array(
      z.looseObject({
        item: z.looseObject({ id: z.string(), title: z.string(), price: z.int() }),
        quantity: z.int().check(z.minimum(1)),
        customizations: z.optional(z.array(z.looseObject({ id: z.string(), value: z.string(), display_text: z.optional(z.string()) }))),
        totals: z.array(HandoffTotal),
      }),
    )
    .check(z.minLength(1), z.maxLength(MAX_LINE_ITEMS)),
  totals: z.array(HandoffTotal),
});
export type HandoffCart = z.infer<typeof HandoffCart>;

/**
 * A cart as the views read it (src/views/cart*.tsx): what a tool result must hold before the MCP
 * Apps view stores it (src/apps/shell.ts). A result that breaks it is refused with a notice and the
 * last good screen stays; without this check one malformed result froze the view for good.
 */
const ViewMessage = z.looseObject({ type: z.string(), content: z.string(), code: z.optional(z.string()), path: z.optional(z.string()) });
export const ViewCart = z.looseObject({
  id: z.string().check(z.minLength(1)),
  currency: z.string(),
  line_items: z.array(
    z.looseObject({
      id: z.optional(z.string()),
      item: z.looseObject({ id: z.string(), title: z.string(), price: z.int(), image_url: z.optional(z.string()) }),
      quantity: z.int(),
      customizations: z.optional(z.array(z.looseObject({ id: z.string(), value: z.string() }))),
      totals: z.optional(z.array(HandoffTotal)),
    }),
  ),
  totals: z.array(HandoffTotal),
  discounts: z.optional(z.looseObject({ codes: z.array(z.string()), applied: z.array(z.looseObject({ code: z.optional(z.string()), title: z.optional(z.string()) })) })),
  messages: z.optional(z.array(ViewMessage)),
  continue_url: z.optional(z.string()),
});
