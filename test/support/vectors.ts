/** The search vectors the database computes for texts, and a check that a shop's stored ones are those. */
import { expect } from 'vitest';
import { sql } from 'kysely';
import type { DB } from '../../server/db/index.ts';
import { CatalogFile } from '../../server/formats/catalog-format.ts';
import { VECTORS, VECTOR_TEXT_COLUMNS, vectorText, type VectorText } from '../../server/core/search/search-vectors.ts';

export async function computedBy(db: DB, texts: VectorText[]) {
  const r = await sql<{ id: string; tsv: string; title_tsv: string }>`select v.id, ${VECTORS} from jsonb_to_recordset(${JSON.stringify(texts)}::jsonb) as v(id text, ${VECTOR_TEXT_COLUMNS})`.execute(db);
  return new Map(r.rows.map(({ id, ...v }) => [id, v]));
}

/** Every product of `file` has, in product_search, exactly the vectors `db` computes from its text. */
export async function expectStoredVectors(db: DB, file: unknown): Promise<void> {
  const catalog = CatalogFile.parse(file);
  const expected = await computedBy(db, catalog.products.map((p) => vectorText(p, catalog.shop.settings.languages)));
  const stored = await sql<{ id: string; tsv: string; title_tsv: string }>`select product_id as id, tsv::text as tsv, title_tsv::text as title_tsv from product_search where shop_id = ${catalog.shop.id}`.execute(db);
  expect(stored.rows).toHaveLength(catalog.products.length);
  for (const { id, ...v } of stored.rows) expect(v, id).toEqual(expected.get(id));
}
