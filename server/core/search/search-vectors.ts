/**
 * The text a product is searched by, and the PostgreSQL expressions that turn it into the two
 * full-text vectors of `product_search` (migration 0006): `tsv` (English and French stemming over
 * their own text, no stemming over identifiers, so a SKU matches as typed) and `title_tsv` (the
 * titles alone, for ranking). One definition, used where the vectors are computed: in the insert
 * itself, or ahead of it by a scratch database during a bulk load (below).
 */
import { sql } from 'kysely';
import { openDatabase, type DB } from '../../db/index.ts';
import type { Localized, StoredProduct } from '../../formats/catalog-format.ts';
import { log } from '../../lib/log.ts';

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
      p.brand ?? '',
      // Words only a variant's own title or description has ("Organic cotton" on one colour).
      ...p.variants.flatMap((v) => [v.title ? inLanguage(v.title, lang) : '', v.description ? inLanguage(v.description, lang) : '']),
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
    ids: [p.id, p.handle, ...p.variants.flatMap((v) => [v.id, v.sku ?? '', ...(v.barcodes ?? []).map((b) => b.value)])].filter(Boolean).join(' '),
    title_en: localized ? (localized.en ?? '') : (p.title as string),
    title_fr: localized?.fr ?? '',
  };
}

/**
 * Computing the vectors is most of a bulk load's database time (~200 µs per product in WASM), and
 * the load's transaction runs its statements one after another. During a bulk load the next
 * batch's vectors are computed elsewhere while this batch is written, and the writer parses them
 * as `tsvector` text, which costs a few µs:
 * - on the embedded database (one WASM thread) by a second, throwaway embedded database on the other
 *   core (same PostgreSQL build, same built-in configurations, so the same vectors); opening it
 *   takes ~0.4-0.8 s, so the first batches compute their own until it is ready;
 * - on a PostgreSQL server by another connection of the same server (its own configurations), so
 *   the server works on two batches at once.
 */
export class ScratchVectors {
  /** Batches whose vectors were computed ahead, in this process (tests and the bench read it). */
  static batches = 0;
  private db?: DB;
  private readonly opening: Promise<void>;
  private readonly owned: boolean;
  /** A computation failed (a worker gone, no connection to be had): the rest of the load computes its own. */
  private failed = false;

  /** `server`: a PostgreSQL server's pool, to compute on another of its connections. */
  constructor(server?: DB) {
    this.owned = !server;
    this.db = server;
    this.opening = server
      ? Promise.resolve()
      : openDatabase({ dataDir: 'memory://' }).then(
          (db) => void (this.db = db),
          (e: unknown) => log.error('catalog', 'vectors will be computed by the shop database', { err: e }),
        );
  }

  /** Ready to compute (else the caller computes in its own insert). */
  get ready(): boolean {
    return this.db !== undefined && !this.failed;
  }

  /** The vectors of each product, by id; undefined when they could not be computed here. */
  async compute(texts: VectorText[]): Promise<Map<string, ProductVectors> | undefined> {
    try {
      const r = await sql<ProductVectors & { id: string }>`select v.id, ${VECTORS} from jsonb_to_recordset(${JSON.stringify(texts)}::jsonb) as v(id text, ${VECTOR_TEXT_COLUMNS})`.execute(this.db!);
      ScratchVectors.batches++;
      return new Map(r.rows.map(({ id, ...vectors }) => [id, vectors]));
    } catch (e) {
      if (!this.failed) log.error('catalog', 'vectors computed ahead failed; the load computes its own', { err: e });
      this.failed = true;
      return undefined;
    }
  }

  async close(): Promise<void> {
    await this.opening;
    if (this.owned) await this.db?.destroy();
  }
}
