/** Catalog requests (catalog_search.json, catalog_lookup.json) and the product shapes we return. */
import * as z from 'zod/mini';
import { Attribution, ContextSchema, Signals, type Message, type Policy, type Price, type QuantityUnit, type UcpMeta, type UnitPrice } from './common.ts';

/** Documented limits: see docs/ucp.md. */
export const SEARCH_DEFAULT_LIMIT = 10;
export const SEARCH_MAX_LIMIT = 50;
export const LOOKUP_MAX_IDS = 50;
export const QUERY_MAX_LENGTH = 512;

const Filters = z.looseObject({
  categories: z.optional(z.array(z.string().check(z.maxLength(128))).check(z.maxLength(50))),
  price: z.optional(
    z.object({
      min: z.optional(z.int().check(z.minimum(0))),
      max: z.optional(z.int().check(z.minimum(0))),
    }),
  ),
});

const Limit = z.int().check(z.minimum(1));
const Cursor = z.string().check(z.maxLength(512));

export const SearchRequest = z
  .looseObject({
    query: z.optional(z.string().check(z.maxLength(QUERY_MAX_LENGTH))),
    filters: z.optional(Filters),
    /** The seed's top-level form... */
    limit: z.optional(Limit),
    cursor: z.optional(Cursor),
    /** ...and UCP's `pagination` object. Both are accepted; `pagination` wins. */
    pagination: z.optional(z.object({ limit: z.optional(Limit), cursor: z.optional(Cursor) })),
    context: z.optional(ContextSchema),
    signals: Signals,
    attribution: Attribution,
  })
  .check(
    z.refine((r) => (r.query !== undefined && r.query.trim() !== '') || r.filters !== undefined, {
      message: 'a search needs a non-empty `query` or `filters`',
      path: ['query'],
    }),
  );
export type SearchRequest = z.infer<typeof SearchRequest>;

export const LookupRequest = z.looseObject({
  ids: z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.minLength(1)),
  filters: z.optional(Filters),
  context: z.optional(ContextSchema),
  signals: Signals,
  attribution: Attribution,
});
export type LookupRequest = z.infer<typeof LookupRequest>;

export const GetProductRequest = z.looseObject({
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  selected: z.optional(
    z.array(z.object({ name: z.string(), label: z.string(), id: z.optional(z.string()) })).check(z.maxLength(20)),
  ),
  preferences: z.optional(z.array(z.string()).check(z.maxLength(20))),
  filters: z.optional(Filters),
  context: z.optional(ContextSchema),
  signals: Signals,
  attribution: Attribution,
});
export type GetProductRequest = z.infer<typeof GetProductRequest>;

/** A customization definition as published in `variant.metadata.customizations` (localized). */
export type CustomizationDef =
  | {
      id: string;
      type: 'text';
      label: string;
      required: boolean;
      min_length?: number;
      max_length: number;
      placeholder?: string;
      price_modifier?: Price;
    }
  | {
      id: string;
      type: 'single_select' | 'multi_select';
      label: string;
      required: boolean;
      min_selections?: number;
      max_selections?: number;
      options: Array<{ id: string; label: string; price_modifier?: Price }>;
    };

export interface Variant {
  id: string;
  sku?: string;
  title: string;
  description: { plain: string; html?: string };
  /** The variant's page on the shop's own site, where the catalog has one. */
  url?: string;
  price: Price;
  list_price?: Price;
  availability: { available: boolean; status: string };
  options?: Array<{ name: string; label: string; id?: string }>;
  media?: Array<{ type: string; url: string; alt_text?: string }>;
  barcodes?: Array<{ type: string; value: string }>;
  metadata?: { customizations?: CustomizationDef[]; quantity_available?: number };
  /** 2026-08-25 only (server/ucp/versions.ts): the sale basis when not by the piece. */
  quantity_unit?: QuantityUnit;
  /** 2026-08-25 only: price per reference measure. */
  unit_price?: UnitPrice;
  /** lookup only: which requested ids resolved to this variant. */
  inputs?: Array<{ id: string; match: 'exact' | 'featured' }>;
}

export interface Product {
  id: string;
  handle: string;
  title: string;
  description: { plain: string; html?: string };
  url: string;
  categories: Array<{ value: string }>;
  price_range: { min: Price; max: Price };
  list_price_range?: { min: Price; max: Price };
  media?: Array<{ type: string; url: string; alt_text?: string; width?: number; height?: number }>;
  options?: Array<{ name: string; values: Array<{ id?: string; label: string; available?: boolean; exists?: boolean }> }>;
  variants: Variant[];
  tags?: string[];
  rating?: { value: number; scale_max: number; count?: number };
  selected?: Array<{ name: string; label: string; id?: string }>;
  /** `brand`: the product's brand or vendor, where the catalog has one. */
  metadata?: { brand?: string };
}

export interface SearchResponse {
  ucp: UcpMeta;
  products: Product[];
  pagination: { has_next_page: boolean; cursor?: string; total_count?: number };
  messages?: Message[];
  /** 2026-08-25 only: the shop's policies. */
  policies?: Policy[];
}
export interface LookupResponse {
  ucp: UcpMeta;
  products: Product[];
  messages?: Message[];
}
export interface GetProductResponse {
  ucp: UcpMeta;
  product: Product;
  messages?: Message[];
}

/**
 * A product as the views read it (src/apps/cards.tsx, src/views/product.tsx): what a tool result's
 * products must hold before the MCP Apps view stores them (src/apps/shell.ts).
 */
const ViewPrice = z.looseObject({ amount: z.int(), currency: z.string() });
export const ViewProduct = z.looseObject({
  id: z.string(),
  title: z.string(),
  url: z.optional(z.string()),
  price_range: z.looseObject({ min: ViewPrice, max: ViewPrice }),
  media: z.optional(z.array(z.looseObject({ url: z.string(), alt_text: z.optional(z.string()) }))),
  options: z.optional(z.array(z.looseObject({ name: z.string(), values: z.array(z.looseObject({ label: z.string() })) }))),
  variants: z
    .array(
      z.looseObject({
        id: z.string(),
        title: z.string(),
        price: ViewPrice,
        availability: z.looseObject({ available: z.boolean() }),
        options: z.optional(z.array(z.looseObject({ name: z.string(), label: z.string() }))),
      }),
    )
    .check(z.minLength(1)),
});
