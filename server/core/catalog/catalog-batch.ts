/**
 * A batch of product writes for sync tools (the merchant API's `POST /3.0/products/batch`,
 * docs/oauth.md "Batch"): up to BATCH_LIMIT products, each checked on its own (the catalog format's
 * StoredProduct, then the ids: one product per id in a batch, variant ids unique per shop), so a bad
 * item is answered with its errors and the others are still written. Valid items that differ from
 * what is stored are written in one transaction through the catalog's one write path
 * (upsertProducts); one equal to what is stored is `unchanged` and not written. Products the batch
 * does not list are not touched: a batch is partial by nature.
 */
import { z } from 'zod';
import { sql } from 'kysely';
import type { DB } from '../../db/index.ts';
import { StoredProduct } from '../../formats/catalog-format.ts';
import { DomainError, InvalidRequest } from '../shared/errors.ts';
import { validate } from '../shared/validate.ts';
import { compareWithStored, upsertProducts, type ShopRef } from './catalog-store.ts';

/** Most products one batch carries. */
export const BATCH_LIMIT = 500;

/** The request body as documented (OpenAPI); items are validated one by one, not by this. */
export const ProductBatch = z.strictObject({ products: z.array(StoredProduct).max(BATCH_LIMIT) });
/** What is read first: the envelope alone. */
const Envelope = z.strictObject({ products: z.array(z.unknown()) });

export interface BatchItemError {
  path: string;
  code: string;
  message: string;
}

export interface BatchItemResult {
  /** The item's position in `products`. */
  index: number;
  /** The item's `id`, when it has a string one. */
  id: string | null;
  status: 'created' | 'updated' | 'unchanged' | 'error';
  errors?: BatchItemError[];
}

interface Checked {
  index: number;
  product: StoredProduct;
}

const issue = (path: string, code: string, message: string): BatchItemError => ({ path, code, message });
const itemPath = (index: number) => `$.products[${index}]`;

/** Checks and writes a batch for `shop`; answers one result per item, in order. */
export async function writeProductBatch(db: DB, shop: ShopRef, body: unknown): Promise<{ results: BatchItemResult[] }> {
  const items = readEnvelope(body);
  const results: BatchItemResult[] = items.map((item, index) => ({ index, id: idOf(item), status: 'error' }));
  const errors = new Map<number, BatchItemError[]>();
  const fail = (index: number, e: BatchItemError) => errors.set(index, [...(errors.get(index) ?? []), e]);
  const checked = checkItems(items, fail);
  await checkTakenVariantIds(db, shop.id, checked, fail);
  const valid = checked.filter((c) => !errors.has(c.index));
  const stored = await storedDocs(db, shop.id, valid.map((c) => c.product.id));
  const writes: StoredProduct[] = [];
  for (const { index, product } of valid) {
    const { status, stored: next } = compareWithStored(stored.get(product.id), product);
    results[index].status = status;
    if (status !== 'unchanged') writes.push(next);
  }
  if (writes.length) await upsertProducts(db, shop, writes);
  for (const [index, list] of errors) results[index].errors = list;
  return { results };
}

function readEnvelope(body: unknown): unknown[] {
  const { products } = validate(Envelope, body);
  if (products.length > BATCH_LIMIT) {
    throw new DomainError('too_large', 'too_many_products', `A batch has at most ${BATCH_LIMIT} products; this one has ${products.length}. Send them in batches of ${BATCH_LIMIT} or fewer.`, [
      { path: '$.products', code: 'too_many_products', content: `At most ${BATCH_LIMIT} items.` },
    ]);
  }
  return products;
}

const idOf = (item: unknown): string | null => {
  const id = item && typeof item === 'object' && !Array.isArray(item) ? (item as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : null;
};

/**
 * Each item against the product schema, then against the items before it: a product id or a
 * variant id already used earlier in the batch is this item's error (the earlier one is kept).
 */
function checkItems(items: unknown[], fail: (index: number, e: BatchItemError) => void): Checked[] {
  const out: Checked[] = [];
  const productAt = new Map<string, number>();
  const variantAt = new Map<string, number>();
  items.forEach((item, index) => {
    let product: StoredProduct;
    try {
      product = validate(StoredProduct, item, { root: itemPath(index) });
    } catch (e) {
      if (!(e instanceof InvalidRequest)) throw e;
      for (const i of e.issues) fail(index, issue(i.path, i.code, i.content));
      return;
    }
    let ok = true;
    const earlier = productAt.get(product.id);
    if (earlier !== undefined) {
      fail(index, issue(`${itemPath(index)}.id`, 'duplicate_product_id', `Product ${product.id} is also products[${earlier}] of this batch; send each product once.`));
      ok = false;
    }
    const mine = new Set<string>();
    product.variants.forEach((v, k) => {
      const other = variantAt.get(v.id);
      const message = mine.has(v.id) ? `Variant id ${v.id} appears twice in this product.` : other !== undefined ? `Variant id ${v.id} is also in products[${other}] of this batch.` : null;
      if (message) {
        fail(index, issue(`${itemPath(index)}.variants[${k}].id`, 'duplicate_variant_id', message));
        ok = false;
      }
      mine.add(v.id);
    });
    if (!ok) return;
    productAt.set(product.id, index);
    for (const id of mine) variantAt.set(id, index);
    out.push({ index, product });
  });
  return out;
}

/** Variant ids are unique per shop: one another stored product has is this item's error (as on PUT). */
async function checkTakenVariantIds(db: DB, shopId: string, checked: Checked[], fail: (index: number, e: BatchItemError) => void): Promise<void> {
  const ids = checked.flatMap((c) => c.product.variants.map((v) => v.id));
  if (!ids.length) return;
  const rows = await db.selectFrom('variants').select(['id', 'product_id']).where('shop_id', '=', shopId).where('id', 'in', ids).execute();
  const owner = new Map(rows.map((r) => [r.id, r.product_id]));
  for (const { index, product } of checked) {
    product.variants.forEach((v, k) => {
      const holder = owner.get(v.id);
      if (holder !== undefined && holder !== product.id) fail(index, issue(`${itemPath(index)}.variants[${k}].id`, 'variant_id_taken', `Variant id ${v.id} belongs to product ${holder}.`));
    });
  }
}

async function storedDocs(db: DB, shopId: string, ids: string[]): Promise<Map<string, StoredProduct>> {
  const out = new Map<string, StoredProduct>();
  if (!ids.length) return out;
  const rows = await sql<{ doc: string }>`select doc::text as doc from products where shop_id = ${shopId} and id = any(${ids}::text[])`.execute(db);
  for (const r of rows.rows) {
    const doc = JSON.parse(r.doc) as StoredProduct;
    out.set(doc.id, doc);
  }
  return out;
}

