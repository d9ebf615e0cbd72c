/** @jsxRuntime classic */
/** @jsx h */
/**
 * The customization picker, built from `variant.metadata.customizations`: text fields with length
 * counters, single-choice (radio) and multi-choice (checkbox, min/max) groups, required markers,
 * price modifiers and inline errors keyed by customization id (from the server's message paths).
 *
 * A lazily loaded chunk (`host-customize-<hash>.js`, src/views/lazy.ts): chunks never import the
 * entry (docs/host-js.md), so Preact's `h`, the money formatter and the widget's words come in
 * through `make`, which the entry calls once the chunk has loaded.
 */
import type { CustomizationDef } from '../wire/catalog.ts';
import type { Message, Price } from '../wire/common.ts';
import type { CustomizationCode } from '../wire/customization-codes.ts';
import type { Kit } from './kit.ts';
import { makeOptions } from './options.tsx';

export type Values = Record<string, string | string[]>;

export interface PickerProps {
  defs: CustomizationDef[];
  values: Values;
  errors: Record<string, string>;
  lang: string;
  /** Prefix for element ids (unique per shadow root). */
  uid: string;
  onChange(id: string, value: string | string[]): void;
}

type TextDef = Extract<CustomizationDef, { type: 'text' }>;
type ChoiceDef = Exclude<CustomizationDef, TextDef>;

// The entry's Preact `h`, money formatter and words, bound once by `make` (lazy.ts calls it once per
// page): module bindings, so the parts below need no kit argument (as in cart-body.tsx).
let h: Kit['h'], money: Kit['money'], t: Kit['t'];

/** The picker and its helpers, over the entry's Preact `h`, money formatter and words. */
export function make(k: Kit) {
  ({ h, money, t } = k);
  return { Picker, entries, fieldText, modifiers, ...makeOptions(k) };
}
export type PickerKit = ReturnType<typeof make>;

const len = (s: string) => [...s].length;

/** A price modifier, " (+$3.00)"; nothing for none or zero. */
function Mod({ p, lang }: { p?: Price; lang: string }) {
  return p && p.amount ? <span class="m"> (+{money(p.amount, p.currency, lang)})</span> : null;
}

/** The required marker: an asterisk, and the word for screen readers. */
function Req({ on, lang }: { on: boolean; lang: string }) {
  return on ? (
    <span class="req">
      {' '}
      <span aria-hidden="true">*</span>
      <span class="sr">({t(lang, 'required')})</span>
    </span>
  ) : null;
}

/** The `{id, value}` entries for a cart line: multi_select = one entry per chosen option. */
function entries(defs: CustomizationDef[], values: Values): Array<{ id: string; value: string }> {
  const out: Array<{ id: string; value: string }> = [];
  for (const d of defs) {
    const v = values[d.id];
    if (Array.isArray(v)) for (const o of v) out.push({ id: d.id, value: o });
    else if (v) out.push({ id: d.id, value: v });
  }
  return out;
}

/**
 * A customization error in the buyer's language: the widget's own words for the message's stable
 * `code` (server/core/carts/customizations.ts, docs/carts.md), with the limits taken from the definition
 * `d` the error is on. The server's English `content` (written for agents: it names ids and
 * options) only for other codes, or when the field is not one of `d`.
 */
function fieldText(lang: string, m: Message, d?: CustomizationDef): string {
  if (d) {
    const text = d.type === 'text';
    // Each case is checked against the wire's codes (a renamed or mistyped code fails the build).
    switch (m.code as CustomizationCode) {
      case 'customization_required':
        return text ? t(lang, 'c_required') : d.type === 'single_select' ? t(lang, 'c_pick') : t(lang, 'c_too_few', Math.max(1, d.min_selections ?? 1));
      case 'customization_too_long':
        if (text) return t(lang, 'c_too_long', d.max_length);
        break;
      case 'customization_too_short':
        if (text && d.min_length) return t(lang, 'c_too_short', d.min_length);
        break;
      case 'customization_too_few_selections':
        if (!text && d.min_selections) return t(lang, 'c_too_few', d.min_selections);
        break;
      case 'customization_too_many_selections':
        if (!text) return t(lang, 'c_too_many', d.max_selections ?? 1);
        break;
      case 'customization_invalid_option':
      case 'customization_duplicate':
      case 'customization_unknown':
        return t(lang, 'c_invalid');
    }
  }
  return m.content;
}

/** Sum of the chosen price modifiers (per unit). */
function modifiers(defs: CustomizationDef[], values: Values): number {
  let sum = 0;
  for (const d of defs) {
    const v = values[d.id];
    if (!v || !v.length) continue;
    if (d.type === 'text') sum += d.price_modifier?.amount ?? 0;
    else for (const o of d.options) if (v === o.id || (Array.isArray(v) && v.includes(o.id))) sum += o.price_modifier?.amount ?? 0;
  }
  return sum;
}

/** One field per definition: a text input with its counter, or a radio/checkbox group. */
function Picker(p: PickerProps) {
  return <div part="customizations">{p.defs.map((d) => (d.type === 'text' ? textField(p, d) : choiceGroup(p, d)))}</div>;
}

/** A field's error under it (`${id}-e`, which the field's aria-describedby names). */
function fieldError(id: string, err?: string) {
  return err ? (
    <p class="err" id={`${id}-e`} part="field-error">
      {err}
    </p>
  ) : null;
}

/** A text customization: label (required marker, price modifier), input, length counter, error. */
function textField({ values, errors, lang, uid, onChange }: PickerProps, d: TextDef) {
  const id = `${uid}-${d.id}`;
  const err = errors[d.id];
  const v = (values[d.id] as string) ?? '';
  return (
    <div class="f" key={d.id}>
      <label class="t" for={id}>
        {d.label}
        <Req on={d.required} lang={lang} />
        <Mod p={d.price_modifier} lang={lang} />
      </label>
      <input
        id={id}
        type="text"
        value={v}
        maxLength={d.max_length}
        placeholder={d.placeholder}
        aria-required={d.required ? 'true' : undefined}
        aria-invalid={err ? 'true' : undefined}
        aria-describedby={`${id}-c${err ? ` ${id}-e` : ''}`}
        onInput={(e) => onChange(d.id, (e.currentTarget as HTMLInputElement).value)}
      />
      <div class="m" id={`${id}-c`}>
        {len(v)}/{d.max_length} {t(lang, 'chars')}
      </div>
      {fieldError(id, err)}
    </div>
  );
}

/** A single (radio) or multi (checkbox, min/max: the rest disable at the max) choice group. */
function choiceGroup({ values, errors, lang, uid, onChange }: PickerProps, d: ChoiceDef) {
  const id = `${uid}-${d.id}`;
  const err = errors[d.id];
  const multi = d.type === 'multi_select';
  const chosen = values[d.id] ?? (multi ? [] : '');
  const max = multi ? d.max_selections : 1;
  const full = multi && max !== undefined && chosen.length >= max;
  const hint = multi && (d.min_selections !== undefined || max !== undefined) ? t(lang, 'choose', d.min_selections ?? 0, max ?? d.options.length) : '';
  return (
    <fieldset
      class="f"
      key={d.id}
      role={multi ? 'group' : 'radiogroup'}
      aria-required={d.required && !multi ? 'true' : undefined}
      aria-invalid={err ? 'true' : undefined}
      aria-describedby={[hint && `${id}-h`, err && `${id}-e`].filter(Boolean).join(' ') || undefined}
    >
      <legend>
        {d.label}
        <Req on={d.required} lang={lang} />
      </legend>
      {hint ? (
        <div class="m" id={`${id}-h`}>
          {hint}
        </div>
      ) : null}
      {d.options.map((o) => {
        const on = multi ? (chosen as string[]).includes(o.id) : chosen === o.id;
        return (
          <label class="opt" key={o.id}>
            <input
              type={multi ? 'checkbox' : 'radio'}
              name={id}
              value={o.id}
              checked={on}
              disabled={full && !on}
              onChange={() => onChange(d.id, multi ? (on ? (chosen as string[]).filter((x) => x !== o.id) : [...(chosen as string[]), o.id]) : o.id)}
            />
            {o.label}
            <Mod p={o.price_modifier} lang={lang} />
          </label>
        );
      })}
      {fieldError(id, err)}
    </fieldset>
  );
}
