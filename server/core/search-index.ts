/**
 * One shop's catalog search index, in memory: posting lists of the lexemes PostgreSQL computed for
 * each product (product_search.tsv and .title_tsv), numbered in catalog order. It answers exactly
 * what the SQL search answers (server/core/catalog.ts): products matching the query, title matches
 * first, each tier in catalog order, filtered, paged by offset. Pure data: loading it from the
 * database and keeping it current is catalog-index.ts.
 *
 * Products are numbered by catalog position (ordinals), so every posting list is a sorted
 * Int32Array and a query is a few merges of sorted arrays. A changed product keeps its ordinal; a new
 * one is appended, which keeps lists sorted as long as new products come last in catalog order (a
 * bigserial): `patch` reports when one does not, and the caller rebuilds.
 */
import type { TsQuery } from './tsquery.ts';

/** A product as the index needs it: one product_search row, vectors as lexeme lists. */
export interface IndexRow {
  productId: string;
  position: number;
  categories: string[];
  priceMin: number;
  priceMax: number;
  lexemes: string[];
  titleLexemes: string[];
}

/** Filters in the shop's currency (catalog.ts converts the request's). */
export interface IndexFilters {
  categories?: string[];
  /** Products whose highest price is at least this. */
  priceAtLeast?: number;
  /** Products whose lowest price is at most this. */
  priceAtMost?: number;
}

const EMPTY = new Int32Array(0);

export class SearchIndex {
  /** The catalog version (catalog_versions) this index reflects. */
  version: number;
  private ids: string[] = [];
  private positions: number[] = [];
  private priceMin: number[] = [];
  private priceMax: number[] = [];
  private categories: string[][] = [];
  private live: boolean[] = [];
  private ordinalOf = new Map<string, number>();
  private body = new Map<string, Int32Array>();
  private title = new Map<string, Int32Array>();
  /** Every live ordinal, sorted: what NOT complements against and browsing walks. Rebuilt lazily. */
  private universe: Int32Array | undefined;
  /** Equal category lists share one array. */
  private categoryLists = new Map<string, string[]>();

  constructor(rows: Iterable<IndexRow>, version: number) {
    this.version = version;
    const body = new Map<string, number[]>();
    const title = new Map<string, number[]>();
    for (const row of rows) {
      if (this.ids.length && row.position <= this.positions[this.positions.length - 1]) throw new Error('index rows must come in catalog order');
      const ord = this.append(row);
      for (const l of row.lexemes) push(body, l, ord);
      for (const l of row.titleLexemes) push(title, l, ord);
    }
    for (const [l, list] of body) this.body.set(l, Int32Array.from(list));
    for (const [l, list] of title) this.title.set(l, Int32Array.from(list));
  }

  get size(): number {
    return this.ordinalOf.size;
  }

  private append(row: IndexRow): number {
    const ord = this.ids.length;
    this.ids.push(row.productId);
    this.positions.push(row.position);
    this.priceMin.push(row.priceMin);
    this.priceMax.push(row.priceMax);
    this.categories.push(this.shared(row.categories));
    this.live.push(true);
    this.ordinalOf.set(row.productId, ord);
    return ord;
  }

  private shared(categories: string[]): string[] {
    const key = JSON.stringify(categories);
    let list = this.categoryLists.get(key);
    if (!list) this.categoryLists.set(key, (list = categories));
    return list;
  }

  /**
   * Applies changed products (their current rows) and deleted ones. Returns false, changing
   * nothing, when a new product does not come after every indexed one in catalog order or a
   * product moved: the caller rebuilds instead.
   */
  patch(rows: IndexRow[], deleted: string[]): boolean {
    let last = this.positions.length ? this.positions[this.positions.length - 1] : -Infinity;
    const fresh = [...rows].sort((a, b) => a.position - b.position);
    for (const row of fresh) {
      const ord = this.ordinalOf.get(row.productId);
      if (ord !== undefined) {
        if (this.positions[ord] !== row.position) return false;
      } else if (row.position <= last) return false;
      else last = row.position;
    }
    // Out with the old postings of every product touched (updated ones come back below).
    const stale = new Set<number>();
    for (const id of [...deleted, ...rows.map((r) => r.productId)]) {
      const ord = this.ordinalOf.get(id);
      if (ord !== undefined) stale.add(ord);
    }
    if (stale.size) for (const map of [this.body, this.title]) removeOrdinals(map, stale);
    for (const id of deleted) {
      const ord = this.ordinalOf.get(id);
      if (ord === undefined) continue;
      this.live[ord] = false;
      this.ordinalOf.delete(id);
    }
    const addBody = new Map<string, number[]>();
    const addTitle = new Map<string, number[]>();
    for (const row of fresh) {
      let ord = this.ordinalOf.get(row.productId);
      if (ord === undefined) ord = this.append(row);
      else {
        this.priceMin[ord] = row.priceMin;
        this.priceMax[ord] = row.priceMax;
        this.categories[ord] = this.shared(row.categories);
      }
      for (const l of row.lexemes) push(addBody, l, ord);
      for (const l of row.titleLexemes) push(addTitle, l, ord);
    }
    addOrdinals(this.body, addBody);
    addOrdinals(this.title, addTitle);
    this.universe = undefined;
    return true;
  }

  private all(): Int32Array {
    if (!this.universe) {
      const out: number[] = [];
      for (let i = 0; i < this.live.length; i++) if (this.live[i]) out.push(i);
      this.universe = Int32Array.from(out);
    }
    return this.universe;
  }

  private evaluate(q: TsQuery, map: Map<string, Int32Array>): Int32Array {
    switch (q.op) {
      case 'term':
        return map.get(q.lexeme) ?? EMPTY;
      case 'not':
        return difference(this.all(), this.evaluate(q.arg, map));
      case 'and': {
        // a & !b is a minus b: no complement of the whole catalog needed.
        const [a, b] = q.args;
        if (b.op === 'not' && a.op !== 'not') return difference(this.evaluate(a, map), this.evaluate(b.arg, map));
        if (a.op === 'not' && b.op !== 'not') return difference(this.evaluate(b, map), this.evaluate(a.arg, map));
        return intersect(this.evaluate(a, map), this.evaluate(b, map));
      }
      case 'or':
        return union(this.evaluate(q.args[0], map), this.evaluate(q.args[1], map));
    }
  }

  /**
   * Product ids of one page: `count` matches from `offset`, title matches first, each tier in
   * catalog order. `query` undefined browses the whole catalog in order; `null` (a query with no
   * words) matches nothing.
   */
  page(query: TsQuery | null | undefined, filters: IndexFilters, offset: number, count: number): string[] {
    if (query === null) return [];
    const tiers: Int32Array[] = [];
    if (query === undefined) tiers.push(this.all());
    else {
      const matches = this.evaluate(query, this.body);
      if (!matches.length) return [];
      const inTitle = intersect(matches, this.evaluate(query, this.title));
      tiers.push(inTitle, difference(matches, inTitle));
    }
    const keep = this.filter(filters);
    const out: string[] = [];
    let skip = offset;
    for (const tier of tiers) {
      if (!keep && skip >= tier.length) {
        skip -= tier.length;
        continue;
      }
      let i = 0;
      if (!keep) {
        i = skip;
        skip = 0;
      }
      for (; i < tier.length && out.length < count; i++) {
        const ord = tier[i];
        if (keep && !keep(ord)) continue;
        if (skip > 0) skip--;
        else out.push(this.ids[ord]);
      }
      if (out.length === count) break;
    }
    return out;
  }

  private filter(f: IndexFilters): ((ord: number) => boolean) | undefined {
    const cats = f.categories?.length ? new Set(f.categories) : undefined;
    const { priceAtLeast: min, priceAtMost: max } = f;
    if (!cats && min === undefined && max === undefined) return undefined;
    return (ord) =>
      (min === undefined || this.priceMax[ord] >= min) &&
      (max === undefined || this.priceMin[ord] <= max) &&
      (!cats || this.categories[ord].some((c) => cats.has(c)));
  }

  /** Sizes for the benchmark and the start-up log: bytes are the posting lists' and ids' payloads. */
  stats(): { products: number; lexemes: number; postings: number; bytes: number } {
    let postings = 0;
    let bytes = 0;
    for (const map of [this.body, this.title]) {
      for (const [l, list] of map) {
        postings += list.length;
        bytes += list.byteLength + 2 * l.length + 64; // payload, key, map entry and array header
      }
    }
    for (const id of this.ids) bytes += 2 * id.length + 16;
    bytes += this.ids.length * (8 * 3 + 8 + 1); // positions, prices, category pointer, flag
    return { products: this.size, lexemes: this.body.size, postings, bytes };
  }
}

function push(map: Map<string, number[]>, key: string, ord: number): void {
  const list = map.get(key);
  if (list) list.push(ord);
  else map.set(key, [ord]);
}

function removeOrdinals(map: Map<string, Int32Array>, stale: Set<number>): void {
  for (const [l, list] of map) {
    let hit = false;
    for (const ord of stale) {
      if (has(list, ord)) {
        hit = true;
        break;
      }
    }
    if (!hit) continue;
    const kept = list.filter((o) => !stale.has(o));
    if (kept.length) map.set(l, kept);
    else map.delete(l);
  }
}

function addOrdinals(map: Map<string, Int32Array>, add: Map<string, number[]>): void {
  for (const [l, ords] of add) {
    ords.sort((a, b) => a - b);
    map.set(l, union(map.get(l) ?? EMPTY, Int32Array.from(ords)).slice()); // slice: not a view of a larger buffer
  }
}

function has(list: Int32Array, x: number): boolean {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] === x) return true;
    if (list[mid] < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function intersect(a: Int32Array, b: Int32Array): Int32Array {
  if (!a.length || !b.length) return EMPTY;
  const out = new Int32Array(Math.min(a.length, b.length));
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out[n++] = a[i];
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return out.subarray(0, n);
}

function union(a: Int32Array, b: Int32Array): Int32Array {
  if (!a.length) return b;
  if (!b.length) return a;
  const out = new Int32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out[n++] = a[i];
      i++;
      j++;
    } else if (a[i] < b[j]) out[n++] = a[i++];
    else out[n++] = b[j++];
  }
  while (i < a.length) out[n++] = a[i++];
  while (j < b.length) out[n++] = b[j++];
  return out.subarray(0, n);
}

function difference(a: Int32Array, b: Int32Array): Int32Array {
  if (!a.length || !b.length) return a;
  const out = new Int32Array(a.length);
  let j = 0;
  let n = 0;
  for (let i = 0; i < a.length; i++) {
    while (j < b.length && b[j] < a[i]) j++;
    if (j < b.length && b[j] === a[i]) continue;
    out[n++] = a[i];
  }
  return out.subarray(0, n);
}
