/**
 * The text a product is searched by, and the PostgreSQL expressions that turn it into the two
 * full-text vectors of `product_search` (migration 0006): `tsv` (English and French stemming over
 * their own text, no stemming over identifiers, so a SKU matches as typed) and `title_tsv` (the
 * titles alone, for ranking). One definition, used where the vectors are computed: in the insert
 * itself, or ahead of it by a scratch database during a bulk load (below).
 */
import { sql } from 'kysely';
import { openDatabase, type DB } from '../db/index.ts';
import type { Localized, StoredProduct } from '../formats/catalog-format.ts';

/** A product's search text, one record of `jsonb_to_recordset(… ) as v(VECTOR_TEXT_COLUMNS)`. */
export interface VectorText {
  id: string;
  /** English and French text: titles, description, categories, tags, option labels. */
  en: string;
  fr: string;
  /** Identifiers, matched without stemming: id, handle, variant ids, SKUs. */
  ids: string;
  title_en: string;
  title_fr: string;
}

/** A product's vectors as PostgreSQL prints them (`tsvector` text), read back by `::tsvector`. */
export interface ProductVectors {
  tsv: string;
  title_tsv: string;
}

/** The text fields' columns in a `jsonb_to_recordset(…) as v(…)` list. */
export const VECTOR_TEXT_COLUMNS = sql.raw('en text, fr text, ids text, title_en text, title_fr text');
/** `tsv, title_tsv` computed from the text columns of a record `v`. */
export const VECTORS = sql.raw(
  `to_tsvector('english'::regconfig, v.en) || to_tsvector('french'::regconfig, v.fr) || to_tsvector('simple'::regconfig, v.ids) as tsv,
  to_tsvector('english'::regconfig, v.title_en) || to_tsvector('french'::regconfig, v.title_fr) as title_tsv`,
);

function inLanguage(value: Localized | undefined, language: string): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return value[language] ?? '';
}

export function vectorText(p: StoredProduct, languages: string[]): VectorText {
  const text: Record<string, string> = {};
  for (const lang of languages) {
    const parts = [
      inLanguage(p.title, lang),
      inLanguage(p.title, lang), // title twice: a title hit outranks a description hit
      inLanguage(p.description, lang),
      ...p.categories,
      ...(p.tags ?? []),
      ...(p.options ?? []).flatMap((o) => o.values.map((v) => inLanguage(v.label, lang))),
    ];
    text[lang.split('-')[0]] = parts.filter(Boolean).join(' ');
  }
  // Plain strings (not localized) count for every language.
  if (typeof p.title === 'string') for (const k of Object.keys(text)) text[k] ||= p.title;
  const localized = typeof p.title === 'string' ? undefined : p.title;
  return {
    id: p.id,
    en: text.en ?? '',
    fr: text.fr ?? '',
    ids: [p.id, p.handle, ...p.variants.flatMap((v) => [v.id, v.sku ?? ''])].filter(Boolean).join(' '),
    title_en: localized ? (localized.en ?? '') : (p.title as string),
    title_fr: localized?.fr ?? '',
  };
}


/**
 * Computing the vectors is most of a bulk load's database time (PostgreSQL's text parser in WASM,
 * ~200 µs per product), and the embedded database runs on one thread. During a bulk load a second,
 * throwaway embedded database (same PostgreSQL build, same built-in configurations, so the same
 * vectors) computes the next batch's vectors on the other core while the shop's database writes
 * this batch; the writer parses them as `tsvector` text, which costs a few µs. Opening it takes
 * ~0.4-0.8 s, so the first batches compute their own until it is ready.
 */
export class ScratchVectors {
  /** Batches whose vectors a scratch database computed, in this process (tests and the bench read it). */
  static batches = 0;
  private db?: DB;
  private readonly opening: Promise<void>;

  constructor() {
    this.opening = openDatabase({ dataDir: 'memory://' }).then(
      (db) => void (this.db = db),
      (e: unknown) => console.error('[catalog] vectors will be computed by the shop database:', e instanceof Error ? e.message : e),
    );
  }

  /** Ready to compute (else the caller computes in its own insert). */
  get ready(): boolean {
    return this.db !== undefined;
  }

  /** The vectors of each product, by id. */
  async compute(texts: VectorText[]): Promise<Map<string, ProductVectors>> {
    const r = await sql<ProductVectors & { id: string }>`select v.id, ${VECTORS} from jsonb_to_recordset(${JSON.stringify(texts)}::jsonb) as v(id text, ${VECTOR_TEXT_COLUMNS})`.execute(this.db!);
    ScratchVectors.batches++;
    return new Map(r.rows.map(({ id, ...vectors }) => [id, vectors]));
  }

  async close(): Promise<void> {
    await this.opening;
    await this.db?.destroy();
  }
}
