/**
 * Writes to the catalog: shops and products. Used by the seed command and the merchant API, so a
 * product written either way is searchable at once (the search vector is a generated column).
 */
import { sql } from 'kysely';
import type { DB } from '../db/index.ts';
import { TITLE_VECTOR_SQL } from '../db/migrations/0006_product_search.ts';
import { CatalogFile, StoredProduct, type Localized } from '../formats/catalog-format.ts';
import type { Shop } from '../formats/types.ts';
import { forgetCachedShops } from './shops.ts';
import { catalogWritten, recordCatalogChange } from './catalog-index.ts';
import { saveShopDiscounts } from './discounts.ts';

function allText(value: Localized | undefined, language: string): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return value[language] ?? '';
}

/** Text indexed for search, per language; `_` holds identifiers matched without stemming. */
export function searchText(p: StoredProduct, languages: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const lang of languages) {
    const parts = [
      allText(p.title, lang),
      allText(p.title, lang), // title twice: a title hit outranks a description hit
      allText(p.description, lang),
      ...p.categories,
      ...(p.tags ?? []),
      ...(p.options ?? []).flatMap((o) => o.values.map((v) => allText(v.label, lang))),
    ];
    out[lang.split('-')[0]] = parts.filter(Boolean).join(' ');
  }
  // Plain strings (not localized) count for every language.
  if (typeof p.title === 'string') for (const k of Object.keys(out)) out[k] ||= p.title;
  out._ = [p.id, p.handle, ...p.variants.flatMap((v) => [v.id, v.sku ?? ''])].filter(Boolean).join(' ');
  return out;
}

/**
 * The search vector: English and French stemming over their own text, no stemming over identifiers
 * (ids, handle, SKUs), so a SKU always matches as typed.
 */
const SEARCH_VECTOR_SQL = `to_tsvector('english'::regconfig, coalesce(search_text->>'en', '')) || to_tsvector('french'::regconfig, coalesce(search_text->>'fr', '')) || to_tsvector('simple'::regconfig, coalesce(search_text->>'_', ''))`;

function productRow(shopId: string, p: StoredProduct, languages: string[]) {
  const prices = p.variants.map((v) => v.price);
  return {
    shop_id: shopId,
    id: p.id,
    handle: p.handle,
    doc: JSON.stringify(p),
    price_min: Math.min(...prices),
    price_max: Math.max(...prices),
    categories: JSON.stringify(p.categories),
    search_text: JSON.stringify(searchText(p, languages)),
  };
}

/** Inserts or replaces products (and their variant index rows) in one transaction. */
/** Called after each batch of a bulk load (inside its transaction): products written so far, and in all. */
export type LoadProgress = (done: number, total: number) => void;

/** The search indexes written one entry at a time in normal use (fastupdate off, migration 0006). */
const SEARCH_INDEXES = ['product_search_tsv_idx', 'product_search_title_idx'];
/** From this many products in one call, a load is bulk: its index entries are merged at the end. */
export const BULK_LOAD_PRODUCTS = 1000;

export async function upsertProducts(db: DB, shop: Pick<Shop, 'id' | 'settings'>, products: StoredProduct[], onProgress?: LoadProgress): Promise<void> {
  const languages = shop.settings.languages;
  const bulk = products.length >= BULK_LOAD_PRODUCTS;
  await db.transaction().execute(async (tx) => {
    // A bulk load puts the search indexes' new entries in GIN's pending list and merges the list
    // once at the end (sorted, like an index build) instead of updating the posting trees row by
    // row: at 10,000 products that was 6.5 of 8.4 s of writing the search rows. Changing
    // `fastupdate` takes a lock that readers and writers do not wait for, so a running store keeps
    // searching (a query also scans the pending list until the merge); a search index is never
    // missing. Inside the transaction: a failed load leaves the settings as they were.
    if (bulk) {
      await sql`set local gin_pending_list_limit = '1GB'`.execute(tx);
      for (const index of SEARCH_INDEXES) await sql`alter index ${sql.id(index)} set (fastupdate = on)`.execute(tx);
    }
    for (let i = 0; i < products.length; i += 500) {
      const batch = products.slice(i, i + 500);
      const ids = batch.map((p) => p.id);
      await tx.deleteFrom('variants').where('shop_id', '=', shop.id).where('product_id', 'in', ids).execute();
      await tx
        .insertInto('products')
        .values(batch.map((p) => productRow(shop.id, p, languages)))
        .onConflict((oc) =>
          oc.columns(['shop_id', 'id']).doUpdateSet((eb) => ({
            handle: eb.ref('excluded.handle'),
            doc: eb.ref('excluded.doc'),
            price_min: eb.ref('excluded.price_min'),
            price_max: eb.ref('excluded.price_max'),
            categories: eb.ref('excluded.categories'),
            search_text: eb.ref('excluded.search_text'),
            updated_at: new Date(),
          })),
        )
        .execute();
      // The search row is derived from the product row in SQL, so both always agree.
      await sql`insert into product_search (shop_id, product_id, position, categories, price_min, price_max, tsv, title_tsv)
        select shop_id, id, position, categories, price_min, price_max, ${sql.raw(SEARCH_VECTOR_SQL)}, ${sql.raw(TITLE_VECTOR_SQL)} from products
        where shop_id = ${shop.id} and id = any(${sql.val(ids)}::text[])
        on conflict (shop_id, product_id) do update set position = excluded.position, categories = excluded.categories,
          price_min = excluded.price_min, price_max = excluded.price_max, tsv = excluded.tsv, title_tsv = excluded.title_tsv`.execute(tx);
      const variants = batch.flatMap((p) => p.variants.map((v) => ({ shop_id: shop.id, id: v.id, product_id: p.id, sku: v.sku ?? null })));
      for (let j = 0; j < variants.length; j += 1000) {
        await tx.insertInto('variants').values(variants.slice(j, j + 1000)).execute();
      }
      onProgress?.(i + batch.length, products.length);
    }
    if (bulk) {
      for (const index of SEARCH_INDEXES) {
        await sql`select gin_clean_pending_list(${index}::regclass)`.execute(tx);
        await sql`alter index ${sql.id(index)} set (fastupdate = off)`.execute(tx);
      }
    }
    await recordCatalogChange(tx, shop.id, products.map((p) => p.id));
  });
  await catalogWritten(db, shop.id);
}

export async function deleteProduct(db: DB, shopId: string, productId: string): Promise<boolean> {
  const deleted = await db.transaction().execute(async (tx) => {
    const res = await tx.deleteFrom('products').where('shop_id', '=', shopId).where('id', '=', productId).executeTakeFirst();
    if (!Number(res.numDeletedRows)) return false;
    await recordCatalogChange(tx, shopId, [productId]);
    return true;
  });
  if (deleted) await catalogWritten(db, shopId);
  return deleted;
}

/** Loads a whole catalog file: creates or updates the shop, then upserts every product. */
export async function loadCatalogFile(db: DB, input: unknown, onProgress?: LoadProgress): Promise<{ shopId: string; products: number }> {
  const file = CatalogFile.parse(input);
  const s = file.shop;
  await db
    .insertInto('shops')
    .values({ id: s.id, domain: s.domain.toLowerCase(), name: s.name, protocol_enabled: s.protocol_enabled, settings: JSON.stringify(s.settings) })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({ domain: s.domain.toLowerCase(), name: s.name, protocol_enabled: s.protocol_enabled, settings: JSON.stringify(s.settings) }),
    )
    .execute();
  forgetCachedShops();
  await upsertProducts(db, { id: s.id, settings: s.settings }, file.products, onProgress);
  // Fresh statistics after a bulk load, or the planner keeps choosing plans for an empty table
  // (e.g. scanning the shop index instead of the full-text index).
  await sql`analyze products`.execute(db);
  await sql`analyze product_search`.execute(db);
  await sql`analyze variants`.execute(db);
  await saveShopDiscounts(db, s.id, file.discounts);
  return { shopId: s.id, products: file.products.length };
}
