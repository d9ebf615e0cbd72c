/**
 * Enforces a variant's customization definitions on one cart line (docs/catalog-format.md, "How cart
 * lines refer to customizations") and prices the chosen options. Pure: no database, no HTTP.
 *
 * text -> one entry whose value is the text; single_select -> one entry whose value is an option id;
 * multi_select -> one entry per chosen option, repeating the customization id.
 */
import type { CustomizationDef } from '../../formats/types.ts';
import type { FieldIssue } from '../shared/errors.ts';
import { text } from '../shared/localize.ts';
import { wordsFor } from './cart-words.ts';
import { CUSTOMIZATION_CODES } from '../../../src/wire/customization-codes.ts';

export interface CustomizationInput {
  id: string;
  value: string;
}

export interface CustomizationResult {
  /** Issues with JSONPaths rooted at `linePath` (e.g. `$.line_items[0]`); empty when valid. */
  issues: FieldIssue[];
  /** Sum of the chosen price modifiers per unit, in shop-currency minor units. */
  modifier: number;
  /** The accepted entries, normalized (texts kept as sent; empty optional texts dropped). */
  accepted: CustomizationInput[];
}

export { CUSTOMIZATION_CODES };

/** Length in Unicode code points, as max_length is documented. */
function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

type Say = ReturnType<typeof wordsFor>;
type Def<T extends CustomizationDef['type']> = Extract<CustomizationDef, { type: T }>;
type Pick = { value: string; index: number };

/** What one definition's checker sees: its entries (with their request index) and where to report. */
interface Check<D> {
  def: D;
  picks: Pick[];
  /** The label in the cart's language, for messages. */
  name: string;
  linePath: string;
  say: Say;
  issues: FieldIssue[];
}

/** What one definition adds to the line when its entries are valid. */
interface Outcome {
  modifier: number;
  accepted: CustomizationInput[];
}
const NOTHING: Outcome = { modifier: 0, accepted: [] };
const C = CUSTOMIZATION_CODES;
const valuePath = (c: Check<unknown>, i: number) => `${c.linePath}.customizations[${i}].value`;

/** text: one entry, its value within the length bounds; an empty optional text is simply not chosen. */
function checkText(c: Check<Def<'text'>>): Outcome {
  const { def, picks, name, say, issues } = c;
  for (const p of picks.slice(1)) issues.push({ path: `${c.linePath}.customizations[${p.index}]`, code: C.duplicate, content: say('cz_once', def.id, name) });
  const pick = picks[0];
  const value = pick?.value ?? '';
  if (!pick || value.trim() === '') {
    if (def.required) {
      issues.push({ path: pick ? valuePath(c, pick.index) : `${c.linePath}.customizations`, code: C.required, content: say('cz_text_required', def.id, name, def.max_length) });
    }
    return NOTHING;
  }
  const len = codePoints(value);
  if (len > def.max_length) {
    issues.push({ path: valuePath(c, pick.index), code: C.tooLong, content: say('cz_too_long', def.id, name, def.max_length, len) });
    return NOTHING;
  }
  if (def.min_length !== undefined && len < def.min_length) {
    issues.push({ path: valuePath(c, pick.index), code: C.tooShort, content: say('cz_too_short', def.id, name, def.min_length ?? 0, len) });
    return NOTHING;
  }
  return { modifier: def.price_modifier ?? 0, accepted: [{ id: def.id, value }] };
}

/** Both selects: each entry must name one of the options, each option at most once. */
function validOptions(c: Check<Def<'single_select' | 'multi_select'>>): { valid: Pick[]; optionIds: string[] } {
  const { def, name, say, issues } = c;
  const optionIds = def.options.map((o) => o.id);
  const valid: Pick[] = [];
  const seen = new Set<string>();
  for (const p of c.picks) {
    if (!optionIds.includes(p.value)) {
      issues.push({ path: valuePath(c, p.index), code: C.invalidOption, content: say('cz_not_option', def.id, name, p.value, optionIds.join(', ')) });
    } else if (seen.has(p.value)) {
      issues.push({ path: valuePath(c, p.index), code: C.duplicate, content: say('cz_chosen_twice', def.id, name, p.value) });
    } else {
      seen.add(p.value);
      valid.push(p);
    }
  }
  return { valid, optionIds };
}

/** single_select: exactly one valid option when required, at most one otherwise. */
function checkSingle(c: Check<Def<'single_select'>>): Outcome {
  const { def, picks, name, say, issues } = c;
  const { valid, optionIds } = validOptions(c);
  if (picks.length > 1) {
    issues.push({ path: `${c.linePath}.customizations[${picks[1].index}]`, code: C.tooMany, content: say('cz_one_option', def.id, name, picks.length) });
    return NOTHING;
  }
  if (!picks.length) {
    if (def.required) issues.push({ path: `${c.linePath}.customizations`, code: C.required, content: say('cz_choose_one', def.id, name, optionIds.join(', ')) });
    return NOTHING;
  }
  if (valid.length !== picks.length) return NOTHING;
  const opt = def.options.find((o) => o.id === valid[0].value)!;
  return { modifier: opt.price_modifier ?? 0, accepted: [{ id: def.id, value: opt.id }] };
}

/** multi_select: one entry per chosen option, their number within min/max_selections. */
function checkMulti(c: Check<Def<'multi_select'>>): Outcome {
  const { def, picks, name, say, issues } = c;
  const { valid, optionIds } = validOptions(c);
  if (valid.length !== picks.length) return NOTHING;
  const n = valid.length;
  if (n === 0) {
    if (def.required) {
      issues.push({ path: `${c.linePath}.customizations`, code: C.required, content: say('cz_choose_min', def.id, name, Math.max(1, def.min_selections ?? 1), optionIds.join(', ')) });
    }
    return NOTHING;
  }
  if (def.min_selections !== undefined && n < def.min_selections) {
    issues.push({ path: `${c.linePath}.customizations[${valid[n - 1].index}]`, code: C.tooFew, content: say('cz_too_few', def.id, name, def.min_selections, n) });
    return NOTHING;
  }
  if (def.max_selections !== undefined && n > def.max_selections) {
    issues.push({ path: `${c.linePath}.customizations[${valid[def.max_selections].index}]`, code: C.tooMany, content: say('cz_too_many', def.id, name, def.max_selections, n) });
    return NOTHING;
  }
  return {
    modifier: valid.reduce((sum, p) => sum + (def.options.find((o) => o.id === p.value)!.price_modifier ?? 0), 0),
    accepted: valid.map((p) => ({ id: def.id, value: p.value })),
  };
}

/**
 * Checks a line's entries against its variant's definitions. Messages are in `language` (labels
 * from the definitions, words from cart-words.ts; English by default); codes and paths never vary.
 * Entries are grouped per definition first (an unknown id is reported where it stands), then each
 * definition's checker decides, in the definitions' order.
 */
export function validateCustomizations(
  defs: CustomizationDef[] | undefined,
  entries: CustomizationInput[] | undefined,
  linePath: string,
  language = 'en',
  fallback = 'en',
): CustomizationResult {
  const say = wordsFor(language);
  const issues: FieldIssue[] = [];
  const list = entries ?? [];
  const definitions = defs ?? [];

  if (!definitions.length) {
    if (list.length) issues.push({ path: `${linePath}.customizations`, code: C.notSupported, content: say('cz_not_supported') });
    return { issues, modifier: 0, accepted: [] };
  }

  const byId = new Map(definitions.map((d) => [d.id, d]));
  const chosen = new Map<string, Pick[]>();
  list.forEach((entry, index) => {
    const def = byId.get(entry.id);
    if (!def) {
      issues.push({ path: `${linePath}.customizations[${index}].id`, code: C.unknown, content: say('cz_unknown', entry.id, definitions.map((d) => d.id).join(', ')) });
      return;
    }
    chosen.set(def.id, [...(chosen.get(def.id) ?? []), { value: entry.value, index }]);
  });

  let modifier = 0;
  const accepted: CustomizationInput[] = [];
  for (const def of definitions) {
    const check = { picks: chosen.get(def.id) ?? [], name: text(def.label, language, fallback) || def.id, linePath, say, issues };
    const outcome = def.type === 'text' ? checkText({ ...check, def }) : def.type === 'single_select' ? checkSingle({ ...check, def }) : checkMulti({ ...check, def });
    modifier += outcome.modifier;
    accepted.push(...outcome.accepted);
  }
  return { issues, modifier, accepted };
}

/**
 * The accepted entries as a buyer reads them, in `language`: `display_text` = "<field>: <choice or
 * text>" (e.g. "Gift box: Kraft box"), stored with the cart line like its title, so carts and
 * receipts show labels rather than option ids.
 */
export function describeCustomizations(
  defs: CustomizationDef[] | undefined,
  entries: CustomizationInput[],
  language: string,
  fallback: string,
): Array<CustomizationInput & { display_text: string }> {
  const byId = new Map((defs ?? []).map((d) => [d.id, d]));
  return entries.map((e) => {
    const def = byId.get(e.id);
    if (!def) return { ...e, display_text: e.value };
    const name = text(def.label, language, fallback);
    const option = def.type === 'text' ? undefined : def.options.find((o) => o.id === e.value);
    const shown = option ? text(option.label, language, fallback) : e.value;
    return { ...e, display_text: `${name}: ${shown}` };
  });
}
