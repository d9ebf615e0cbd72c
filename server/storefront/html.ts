/**
 * HTML for the storefront pages: a tagged template that escapes every interpolation unless it is
 * wrapped in `raw()` (arrays are joined, false/null/undefined write nothing).
 */
const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (ch) => ESC[ch]);

export class Raw {
  constructor(readonly html: string) {}
}
export const raw = (html: string) => new Raw(html);
export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0];
  values.forEach((v, i) => {
    const one = (x: unknown): string => (x instanceof Raw ? x.html : Array.isArray(x) ? x.map(one).join('') : x === false || x == null ? '' : esc(x));
    out += one(v) + strings[i + 1];
  });
  return new Raw(out);
}
