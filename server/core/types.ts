/** Domain types shared across the core. The stored shapes come from the catalog file format. */
export type { ShopSettings, StoredProduct, StoredVariant, CustomizationDef, StoredDiscount } from './catalog-format.ts';
import type { ShopSettings } from './catalog-format.ts';

export interface Shop {
  id: string;
  domain: string;
  name: string;
  protocolEnabled: boolean;
  settings: ShopSettings;
}
