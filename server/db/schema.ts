/**
 * Kysely table types. One interface per table; each feature's migration adds its tables here.
 * JSON columns are typed as the shape the domain core stores in them.
 */
import type { ColumnType, Generated } from 'kysely';
import type { ShopSettings, StoredProduct } from '../core/types.ts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface ShopsTable {
  id: string;
  domain: string;
  name: string;
  protocol_enabled: boolean;
  settings: Json<ShopSettings>;
  created_at: Generated<Timestamp>;
}

export interface ProductsTable {
  shop_id: string;
  id: string;
  handle: string;
  /** Insertion order, so browsing without a query is stable and cursor-friendly. */
  position: Generated<number>;
  doc: Json<StoredProduct>;
  price_min: number;
  price_max: number;
  categories: Json<string[]>;
  /** Full-text vector over every language of the product, built at write time. */
  tsv: ColumnType<string, never, never>;
  search_text: Json<Record<string, string>>;
  updated_at: Generated<Timestamp>;
}

export interface VariantsTable {
  shop_id: string;
  id: string;
  product_id: string;
  sku: string | null;
}

export interface Database {
  shops: ShopsTable;
  products: ProductsTable;
  variants: VariantsTable;
}
