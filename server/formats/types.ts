/** Domain types shared across the core. The stored shapes come from the catalog file format. */
export type { ShopSettings, StoredProduct, StoredVariant, CustomizationDef, StoredDiscount, ShopPolicy, QuantityUnit } from './catalog-format.ts';
import type { QuantityUnit, ShopSettings, StoredDiscount } from './catalog-format.ts';

export interface Shop {
  id: string;
  domain: string;
  name: string;
  protocolEnabled: boolean;
  settings: ShopSettings;
}

/** A cart line as stored (carts.line_items), in the cart's language and the shop's currency. */
export interface StoredCartLine {
  id: string;
  variant_id: string;
  product_id: string;
  quantity: number;
  /** Accepted entries; `display_text` in the cart's language (older carts may lack it). */
  customizations: Array<{ id: string; value: string; display_text?: string }>;
  /** Per unit, shop currency, modifiers included. */
  unit_price: number;
  /** In the cart's language at write time. */
  title: string;
  image?: string;
  parent_id?: string;
  /** The variant's sale basis at write time (absent: by the piece); shown to UCP 2026-08-25 agents. */
  quantity_unit?: QuantityUnit;
}

export interface StoredCartDiscounts {
  /** As submitted (order kept). */
  codes: string[];
  /** Definitions those codes matched when submitted. */
  defs: StoredDiscount[];
}
