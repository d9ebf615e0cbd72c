/**
 * What an import did and did not carry (docs/catalog-import.md "The report"): every row not carried
 * is in `skipped` with its id/SKU/name and why, every column not carried counted in `dropped`, and
 * everything that went in changed is a warning. Adapters fill it while they read; the import run
 * adds the write's counts (created/updated/unchanged/unavailable).
 */
export interface Skipped {
  /** The row as the file names it: an id, a SKU, a handle or a name (`Handle classic-tee`, `ID 42`). */
  ref: string;
  reason: string;
}

/** At most this many skipped rows and warnings are kept word for word; the rest are counted. */
export const MAX_LISTED = 1000;

export class ImportReport {
  readonly skipped: Skipped[] = [];
  readonly warnings: string[] = [];
  /** Column or field name -> rows in which it had a value we did not carry. */
  readonly dropped = new Map<string, number>();
  /** Beyond MAX_LISTED: counted, not listed. */
  moreSkipped = 0;
  moreWarnings = 0;

  skip(ref: string, reason: string): void {
    if (this.skipped.length < MAX_LISTED) this.skipped.push({ ref, reason });
    else this.moreSkipped++;
  }

  warn(text: string): void {
    if (this.warnings.length < MAX_LISTED) this.warnings.push(text);
    else this.moreWarnings++;
  }

  /** A column (or field) with a value in one row that no catalog field carries. */
  drop(column: string, rows = 1): void {
    this.dropped.set(column, (this.dropped.get(column) ?? 0) + rows);
  }

  /** `dropped_fields` of the JSON report: columns by name. */
  droppedFields(): Record<string, number> {
    return Object.fromEntries([...this.dropped].sort(([a], [b]) => a.localeCompare(b)));
  }
}
