/**
 * One shop's catalog search index, in memory: posting lists of the lexemes PostgreSQL computed for
 * each product (product_search.tsv and .title_tsv), numbered in catalog order. It answers exactly
 * what the SQL search answers (server/core/catalog/catalog.ts): products matching the query, title matches
 * first, each tier in catalog order, filtered, paged by offset. Pure data: loading it from the
 * database and keeping it current is catalog-index.ts.
 *
 * Products are numbered by catalog position (ordinals), so every posting list is a sorted
 * Int32Array and a query walks them in step (cursors), stopping once its page is full. A changed product keeps its ordinal; a new
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
/** Past every ordinal: what a cursor answers when it has no more members. */
const END = 0x7fffffff;

/**
 * A posting list. Most lexemes (ids, SKUs, numbers) belong to one product: those hold the ordinal
 * itself, which saves a typed array per lexeme (at 100,000 generated products, 300,000 of 315,000).
 */
type Postings = Int32Array | number;
const listOf = (p: Postings | undefined): Int32Array => (p === undefined ? EMPTY : typeof p === 'number' ? Int32Array.of(p) : p);
const compact = (list: Int32Array | number[]): Postings => (list.length === 1 ? list[0] : list instanceof Int32Array ? list : Int32Array.from(list));

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
  private body = new Map<string, Postings>();
  private title = new Map<string, Postings>();
  /** Equal category lists share one array. */
  private categoryLists = new Map<string, string[]>();
  /** The payload's estimated size (`stats().bytes`), kept current by every change: the budget's measure. */
  private payload = 0;

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
    for (const [l, list] of body) this.body.set(l, compact(list));
    for (const [l, list] of title) this.title.set(l, compact(list));
    for (const map of [this.body, this.title]) for (const [l, p] of map) this.payload += entryBytes(l, p);
  }

  get size(): number {
    return this.ordinalOf.size;
  }

  /** Estimated bytes of memory (what `stats()` counts), without walking it: catalog-index.ts budgets by it. */
  get bytes(): number {
    return Math.round(this.payload * HEAP_PER_PAYLOAD);
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
    this.payload += productBytes(row.productId);
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
    if (stale.size) for (const map of [this.body, this.title]) this.payload += removeOrdinals(map, stale);
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
    this.payload += addOrdinals(this.body, addBody) + addOrdinals(this.title, addTitle);
    return true;
  }

  /**
   * A cursor over the products a query matches in one vector (body or title), in catalog order.
   * Cursors are lazy: a page reads the posting lists only as far as its last hit, so a broad query
   * costs about a page of work however many products it matches.
   */
  private cursor(q: TsQuery, map: Map<string, Postings>): Cursor {
    switch (q.op) {
      case 'term':
        return termCursor(listOf(map.get(q.lexeme)));
      case 'not':
        return notCursor(this.cursor(q.arg, map), this.live);
      case 'and':
        return andCursor(this.cursor(q.args[0], map), this.cursor(q.args[1], map));
      case 'or':
        return orCursor(this.cursor(q.args[0], map), this.cursor(q.args[1], map));
    }
  }

  /**
   * Product ids of one page: `count` matches from `offset`, title matches first, each tier in
   * catalog order. `query` undefined browses the whole catalog in order; `null` (a query with no
   * words) matches nothing.
   */
  page(query: TsQuery | null | undefined, filters: IndexFilters, offset: number, count: number): string[] {
    if (query === null) return [];
    const keep = this.filter(filters);
    const out: string[] = [];
    let skip = offset;
    // Each tier is a fresh walk (cursors only move forward).
    const tiers: Array<() => Cursor> =
      query === undefined
        ? [() => notCursor(termCursor(EMPTY), this.live)]
        : [
            () => andCursor(this.cursor(query, this.body), this.cursor(query, this.title)),
            () => andCursor(this.cursor(query, this.body), notCursor(this.cursor(query, this.title), this.live)),
          ];
    for (const tier of tiers) {
      const c = tier();
      for (let ord = c(0); ord !== END && out.length < count; ord = c(ord + 1)) {
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

  /** Sizes for the benchmark and the tests, counted afresh (`bytes` is the running count's equal). */
  stats(): { products: number; lexemes: number; postings: number; bytes: number } {
    let postings = 0;
    let bytes = 0;
    for (const map of [this.body, this.title]) {
      for (const [l, list] of map) {
        postings += typeof list === 'number' ? 1 : list.length;
        bytes += entryBytes(l, list);
      }
    }
    for (const id of this.ids) bytes += productBytes(id);
    return { products: this.size, lexemes: this.body.size, postings, bytes: Math.round(bytes * HEAP_PER_PAYLOAD) };
  }
}

/**
 * The payload below counts keys, lists and per-product fields; what V8 holds for them (map tables
 * and their slack, typed-array objects, the id→ordinal map, array growth) measured 1.8-2.2 times it
 * (JS heap + array buffers after GC, generated catalogs of 200-20,000 products; docs/deploy.md).
 */
const HEAP_PER_PAYLOAD = 2;
/** A posting list's share: key (header + one byte per character), map entry, and for lists the array and its header. */
const entryBytes = (lexeme: string, p: Postings): number => 16 + lexeme.length + 24 + (typeof p === 'number' ? 0 : p.byteLength + 64);
/** A product's: its id, and its position, prices, category pointer and live flag. */
const productBytes = (id: string): number => 2 * id.length + 16 + (8 * 3 + 8 + 1);

function push(map: Map<string, number[]>, key: string, ord: number): void {
  const list = map.get(key);
  if (list) list.push(ord);
  else map.set(key, [ord]);
}

/** Removes the stale ordinals from every list; returns the change in bytes. */
function removeOrdinals(map: Map<string, Postings>, stale: Set<number>): number {
  let delta = 0;
  for (const [l, p] of map) {
    if (typeof p === 'number') {
      if (stale.has(p)) {
        map.delete(l);
        delta -= entryBytes(l, p);
      }
      continue;
    }
    const list = p;
    let hit = false;
    for (const ord of stale) {
      if (has(list, ord)) {
        hit = true;
        break;
      }
    }
    if (!hit) continue;
    const kept = list.filter((o) => !stale.has(o));
    delta -= entryBytes(l, p);
    if (kept.length) {
      const next = compact(kept);
      map.set(l, next);
      delta += entryBytes(l, next);
    } else map.delete(l);
  }
  return delta;
}

/** Adds ordinals to the lists; returns the change in bytes. */
function addOrdinals(map: Map<string, Postings>, add: Map<string, number[]>): number {
  let delta = 0;
  for (const [l, ords] of add) {
    ords.sort((a, b) => a - b);
    const old = map.get(l);
    const next = compact(union(listOf(old), Int32Array.from(ords)).slice()); // slice: not a view of a larger buffer
    map.set(l, next);
    delta += entryBytes(l, next) - (old === undefined ? 0 : entryBytes(l, old));
  }
  return delta;
}

/** `c(t)`: the first member at or after ordinal t (END when none); t never decreases between calls. */
type Cursor = (t: number) => number;

function termCursor(list: Int32Array): Cursor {
  let i = 0;
  return (t) => {
    if (i < list.length && list[i] < t) {
      // Gallop, then binary search: skipping far ahead costs a logarithm, not a scan.
      let step = 1;
      let lo = i;
      let hi = i + 1;
      while (hi < list.length && list[hi] < t) {
        lo = hi;
        step *= 2;
        hi = lo + step;
      }
      if (hi > list.length) hi = list.length;
      while (lo + 1 < hi) {
        const mid = (lo + hi) >> 1;
        if (list[mid] < t) lo = mid;
        else hi = mid;
      }
      i = hi;
    }
    return i < list.length ? list[i] : END;
  };
}

function andCursor(a: Cursor, b: Cursor): Cursor {
  return (t) => {
    let x = a(t);
    for (;;) {
      if (x === END) return END;
      const y = b(x);
      if (y === x) return x;
      x = a(y);
    }
  };
}

function orCursor(a: Cursor, b: Cursor): Cursor {
  return (t) => Math.min(a(t), b(t));
}

/** Live products not in `inner`. */
function notCursor(inner: Cursor, live: boolean[]): Cursor {
  return (t) => {
    for (let x = t; x < live.length; x++) if (live[x] && inner(x) !== x) return x;
    return END;
  };
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

