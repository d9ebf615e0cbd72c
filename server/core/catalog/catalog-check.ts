/**
 * What a catalog file must be before anything of it is written (docs/catalog-format.md): the
 * `CatalogFile` schema, and ids that name one thing each within the shop: a product id one product,
 * a variant id one variant of one product. Every refusal names the place
 * by its JSON path and the product and variant ids there, so a file of 100,000 products can be fixed
 * without counting array entries.
 */
import { CatalogFile } from '../../formats/catalog-format.ts';
import { DomainError, ERROR_CODES, type FieldIssue } from '../shared/errors.ts';

/** Issues reported per file: enough to see the pattern, not a screenful per product. */
export const MAX_ISSUES = 20;

/** A catalog file refused, before or while it was written; nothing of it was kept. */
export class CatalogFileError extends DomainError {
  constructor(message: string, issues: FieldIssue[] = []) {
    super('invalid', ERROR_CODES.validationFailed, message, issues);
  }
}

/** The file, parsed with its defaults filled in; throws CatalogFileError naming every problem found (up to MAX_ISSUES). */
export function checkCatalogFile(input: unknown): CatalogFile {
  const parsed = CatalogFile.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: jsonPath(i.path), code: i.code, content: `${i.message}${idsAt(input, i.path)}` }));
    throw new CatalogFileError('not a valid catalog file', issues.slice(0, MAX_ISSUES));
  }
  const issues = repeatedIds(parsed.data);
  if (issues.length) throw new CatalogFileError(issues.length === 1 ? 'an id is used twice' : `${issues.length} ids are used twice`, issues.slice(0, MAX_ISSUES));
  return parsed.data;
}

/** `$.products[3].variants[0].price` for zod's `['products', 3, 'variants', 0, 'price']`. */
export function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  return `$${path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('')}`;
}

/** " (product p1, variant v2)" for a path inside a product, from the raw input (the ids may themselves be what is wrong). */
function idsAt(input: unknown, path: ReadonlyArray<PropertyKey>): string {
  if (path[0] !== 'products' || typeof path[1] !== 'number') return '';
  const product = (input as { products?: Array<{ id?: unknown; variants?: Array<{ id?: unknown }> }> }).products?.[path[1]];
  const named = [];
  if (typeof product?.id === 'string') named.push(`product ${product.id}`);
  const variant = path[2] === 'variants' && typeof path[3] === 'number' ? product?.variants?.[path[3]] : undefined;
  if (typeof variant?.id === 'string') named.push(`variant ${variant.id}`);
  return named.length ? ` (${named.join(', ')})` : '';
}

/** Product ids and variant ids used more than once in the file, each with both places. */
function repeatedIds(file: CatalogFile): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const products = new Map<string, number>();
  const variants = new Map<string, { p: number; v: number }>();
  file.products.forEach((p, i) => {
    const first = products.get(p.id);
    // A product listed twice: one issue, not one more per variant id it repeats.
    if (first !== undefined) return void issues.push({ path: `$.products[${i}].id`, code: 'duplicate_product_id', content: `product id ${p.id} is used twice: products[${first}] and products[${i}]` });
    products.set(p.id, i);
    p.variants.forEach((v, j) => {
      const at = variants.get(v.id);
      if (!at) return void variants.set(v.id, { p: i, v: j });
      const other = file.products[at.p];
      const content =
        at.p === i
          ? `variant id ${v.id} is used twice in product ${p.id}: variants[${at.v}] and variants[${j}]`
          : `variant id ${v.id} is used by products ${other.id} (products[${at.p}].variants[${at.v}]) and ${p.id} (products[${i}].variants[${j}])`;
      issues.push({ path: `$.products[${i}].variants[${j}].id`, code: 'duplicate_variant_id', content });
    });
  });
  return issues;
}
