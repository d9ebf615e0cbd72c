/** @jsxRuntime classic */
/** @jsx h */
/**
 * The option picker of a product with several options (size and color): one choice per option, and
 * the variant is the one with every chosen value. Part of the pickers' lazily loaded chunk (bound by
 * src/views/customize.tsx's `make`): most products have one option or none, and until the chunk
 * loads the product view offers its list of variants instead.
 */
import type { Product, Variant } from '../wire/catalog.ts';
import type { Signal } from '@preact/signals';
import type { Kit } from './kit.ts';

// The entry's Preact `h` and words, bound once by customize.tsx's `make`.
let h: Kit['h'], t: Kit['t'];

export function makeOptions(k: Kit) {
  ({ h, t } = k);
  return { optionSelects };
}

/** "(with M)": this chunk's own words, so the entry's dictionary does not grow for them. */
const WITH: Record<string, string> = { en: 'with', fr: 'avec' };

/**
 * One `<select>` per option. A value no variant offers with the other choices picks the first variant
 * that has it, and says so before it is chosen: "Red (with L)" names the other values it comes with,
 * so choosing it changes them in plain sight, never silently (a sparse size × colour matrix stays
 * reachable, which disabling those values would not). A value whose variant cannot be bought says so.
 */
function optionSelects(product: Product, variant: Variant, lang: string, uid: string, ui: { variantId: Signal<string>; rejected: Signal<unknown> }) {
  const opts = product.options!;
  const has = (v: Variant, name: string, id?: string) => v.options?.some((o) => o.name === name && o.id === id);
  const chosen = (name: string) => variant.options?.find((o) => o.name === name)?.id;
  const exact = (name: string, id?: string) => product.variants.find((v) => opts.every((o) => has(v, o.name, o.name === name ? id : chosen(o.name))));
  const variantWith = (name: string, id?: string) => exact(name, id) ?? product.variants.find((v) => has(v, name, id));
  /** The other options' values `v` has where they differ from the current choice ("L", "L / Navy"). */
  const changes = (v: Variant, name: string) =>
    (v.options ?? []).filter((o) => o.name !== name && o.id !== chosen(o.name)).map((o) => o.label).join(' / ');
  return opts.map((o, i) => (
    <div class="f">
      <label class="t" for={`${uid}-o${i}`}>
        {o.name}
      </label>
      <select id={`${uid}-o${i}`} part="option" value={chosen(o.name)} onChange={(e) => { ui.variantId.value = variantWith(o.name, (e.currentTarget as HTMLSelectElement).value)?.id ?? variant.id; ui.rejected.value = null; }}>
        {o.values.map((x) => {
          const v = variantWith(o.name, x.id);
          const moves = v && !exact(o.name, x.id) ? changes(v, o.name) : '';
          return (
            <option value={x.id} disabled={!v}>
              {x.label}
              {moves ? ` (${WITH[lang.split('-')[0]] ?? WITH.en} ${moves})` : ''}
              {v?.availability.available ? '' : ` (${t(lang, 'unavailable')})`}
            </option>
          );
        })}
      </select>
    </div>
  ));
}

