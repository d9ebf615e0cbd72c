/**
 * Kysely table types. One interface per table; each feature's migration adds its tables here.
 * JSON columns are typed as the shape the domain core stores in them.
 */
import type { ColumnType, Generated } from 'kysely';
import type { ShopSettings, StoredProduct, StoredDiscount, StoredCartLine, StoredCartDiscounts } from '../formats/types.ts';

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
  updated_at: Generated<Timestamp>;
}

/** The narrow full-text index of products (migration 0006), kept in step by upsertProducts. */
export interface ProductSearchTable {
  shop_id: string;
  product_id: string;
  position: number;
  categories: Json<string[]>;
  price_min: number;
  price_max: number;
  tsv: ColumnType<string, never, never>;
  title_tsv: ColumnType<string, never, never>;
}

/** Per shop, the version of its catalog: bumped by every catalog write (migration 0012). */
export interface CatalogVersionsTable {
  shop_id: string;
  version: number;
}

/** The products each catalog version touched; null: too many to list (rebuild). */
export interface CatalogChangesTable {
  shop_id: string;
  version: number;
  product_ids: string[] | null;
}

export interface VariantsTable {
  shop_id: string;
  id: string;
  product_id: string;
  sku: string | null;
}

export interface CartsTable {
  shop_id: string;
  id: string;
  /** The cart's display currency (prices are stored in the shop currency and converted when rendered). */
  currency: string;
  language: string;
  context: Json<Record<string, unknown>>;
  buyer: Json<Record<string, unknown> | null> | null;
  line_items: Json<StoredCartLine[]>;
  discounts: Json<StoredCartDiscounts>;
  created_at: Timestamp;
  updated_at: Timestamp;
  expires_at: Timestamp;
  /** Incremented by every write (migration 0009): the optimistic update's check. */
  version: Generated<number>;
}

/** Stored responses of idempotent operations (REST and MCP share them). Unique (shop_id, operation, key). */
export interface IdempotencyKeysTable {
  shop_id: string;
  operation: string;
  key: string;
  fingerprint: string;
  status: number;
  /** The exact JSON text of the response body. */
  body: string;
  created_at: Timestamp;
}

export interface DiscountsTable {
  shop_id: string;
  /** Upper-cased: codes match case-insensitively. */
  code: string;
  doc: Json<StoredDiscount>;
}

/* --- Account service and merchant API (migration 0003_accounts) --- */

export interface UsersTable {
  id: string;
  username: string;
  name: string;
  password_hash: string;
  merchant_id: string;
  /** May create owners for any shop from /admin (migration 0016). */
  platform_admin: Generated<boolean>;
  created_at: Timestamp;
}

export interface OAuthClientsTable {
  id: string;
  name: string;
  /** sha256 hex of the client secret; null for public clients. */
  secret_hash: string | null;
  redirect_uris: Json<string[]>;
  created_at: Timestamp;
  /** The user who registered the app on the admin page (migration 0011_app_owner); null for CLI and demo apps. */
  owner_user_id: string | null;
}

export interface OAuthSessionsTable {
  id_hash: string;
  user_id: string | null;
  csrf: string;
  expires_at: Timestamp;
  created_at: Timestamp;
}

export interface OAuthRequestsTable {
  id: string;
  session_hash: string;
  client_id: string;
  redirect_uri: string;
  scope: Json<string[]>;
  state: string | null;
  code_challenge: string | null;
  code_challenge_method: string | null;
  expires_at: Timestamp;
}

export interface OAuthCodesTable {
  id: string;
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  scope: Json<string[]>;
  code_challenge: string | null;
  code_challenge_method: string | null;
  expires_at: Timestamp;
  consumed_at: Timestamp | null;
  created_at: Timestamp;
}

export interface OAuthTokensTable {
  id: string;
  access_hash: string;
  refresh_hash: string | null;
  client_id: string;
  user_id: string;
  scope: Json<string[]>;
  family_id: string;
  code_id: string | null;
  access_expires_at: Timestamp;
  refresh_expires_at: Timestamp | null;
  rotated_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created_at: Timestamp;
}

export interface CustomersTable {
  shop_id: string;
  id: string;
  position: Generated<number>;
  email: string;
  first_name: string | null;
  last_name: string | null;
  created_at: Timestamp;
}

export interface OrdersTable {
  shop_id: string;
  id: string;
  position: Generated<number>;
  customer_id: string;
  status: string;
  currency: string;
  items: Json<unknown[]>;
  subtotal: number;
  total: number;
  created_at: Timestamp;
}

/* --- Order webhooks (migration 0004_webhooks) --- */

export interface ShopSigningKeysTable {
  kid: string;
  shop_id: string;
  public_jwk: Json<Record<string, string>>;
  private_key_enc: string;
  created_at: Timestamp;
  retire_at: Timestamp | null;
}

export interface WebhookEndpointsTable {
  id: string;
  shop_id: string;
  url: string;
  events: Json<string[]>;
  active: Generated<boolean>;
  position: Generated<number>;
  created_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: string;
  shop_id: string;
  endpoint_id: string;
  url: string;
  event: string;
  payload: string;
  status: Generated<string>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  last_status: number | null;
  last_error: string | null;
  last_kid: string | null;
  position: Generated<number>;
  created_at: Timestamp;
  delivered_at: Timestamp | null;
}

/* --- Access tiers (migration 0005_access) --- */

export interface ChannelKeysTable {
  id: string;
  shop_id: string;
  /** sha256 (hex) of the key; the key itself is shown once and never stored. */
  key_hash: string;
  prefix: string;
  label: string | null;
  /** The platform profile URL this key acts for (identity binding). */
  profile_url: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

/* --- host.js files of earlier builds (migration 0008_host_assets) --- */

export interface HostAssetsTable {
  /** `host.<sha256:16>.js` (an entry's immutable twin) or `host-<name>-<hash>.js` (a chunk). */
  file: string;
  body: Uint8Array;
  first_seen: Generated<Timestamp>;
  last_current: Generated<Timestamp>;
}

/* --- Shared rate-limit buckets (migration 0010_rate_buckets) --- */

export interface RateBucketsTable {
  key: string;
  tokens: number;
  /** Clock reading in milliseconds. */
  updated_at: number;
  allowed: boolean;
}

export interface Database {
  shops: ShopsTable;
  products: ProductsTable;
  product_search: ProductSearchTable;
  catalog_versions: CatalogVersionsTable;
  catalog_changes: CatalogChangesTable;
  variants: VariantsTable;
  carts: CartsTable;
  idempotency_keys: IdempotencyKeysTable;
  discounts: DiscountsTable;
  users: UsersTable;
  oauth_clients: OAuthClientsTable;
  oauth_sessions: OAuthSessionsTable;
  oauth_requests: OAuthRequestsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  customers: CustomersTable;
  orders: OrdersTable;
  shop_signing_keys: ShopSigningKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  channel_keys: ChannelKeysTable;
  host_assets: HostAssetsTable;
  rate_buckets: RateBucketsTable;
}
