/** @jsxRuntime classic */
/** @jsx h */
/** @jsxFrag Fragment */
/** `<ucp-product>`'s UI: image, price, variant picker, customization picker, quantity, add to cart. */
import { h, createRef } from 'preact';
import { batch, signal } from '@preact/signals';
import type { CustomizationDef, Product, Variant } from '../wire/catalog.ts';
import type { Message } from '../wire/common.ts';
import { fieldErrors } from '../client/api.ts';
import { money, type Store } from '../state/store.ts';
import type { PickerKit, Values } from './customize.tsx';
import { loadPicker, picker } from './lazy.ts';
import { messageText, retryable, t } from './i18n.ts';

/** The product is shown and can take input (its picker loaded, when it has one). */
export function interactive(ui: ProductUi) {
  const p = ui.product.value;
  const v = p && (p.variants.find((x) => x.id === ui.variantId.value) ?? p.variants[0]);
  return !!v && (!v.metadata?.customizations?.length || !!picker.value);
}

type Rejected = { messages: Message[]; index: number; sent: Array<{ id: string; value: string }> };

/**
 * The view's own state, kept by the element (no hooks: the element re-renders the whole view in an
 * `effect`, so every signal read while rendering is a dependency, see src/host/elements.tsx).
 */
export const productUi = () => ({
  product: signal<Product | null>(null),
  failure: signal<Message[]>([]),
  variantId: signal(''),
  values: signal<Values>({}),
  qty: signal(1),
  /** The last rejected add: the server's messages, the line index it saw, the entries sent. */
  rejected: signal<Rejected | null>(null),
  /** The status line. Messages are worded while rendering, so a language change re-words them. */
  status: signal<((lang: string) => string) | null>(null),
  busy: signal(false),
  root: createRef<HTMLFormElement>(),
});
export type ProductUi = ReturnType<typeof productUi>;

/**
 * Loads the product for the current locale into `ui` (re-run by the element's effect when the
 * product id, language or currency changes); the returned function cancels a pending answer.
 */
export function loadProduct(store: Store, productId: string, ui: ProductUi) {
  let live = true;
  store.product(productId).then((r) => {
    if (!live) return;
    batch(() => {
      if (r.ok) {
        const cur = ui.variantId.value;
        ui.product.value = r.data;
        ui.failure.value = [];
        ui.variantId.value = r.data.variants.some((v) => v.id === cur) ? cur : (r.data.variants.find((v) => v.availability.available) ?? r.data.variants[0]).id;
      } else ui.failure.value = r.messages;
    });
  });
  return () => {
    live = false;
  };
}

export interface ProductProps {
  store: Store;
  ui: ProductUi;
  uid: string;
  /** Told after a successful add (the element re-emits it as a DOM event). */
  onAdded?(detail: { variantId: string; quantity: number }): void;
  /** Loads the product again (offered when loading failed in a way a retry can fix). */
  onRetry?(): void;
}

/** The product card: image, title, price, availability, variant and customization pickers, quantity, add, status. */
export function ProductView(props: ProductProps) {
  const { store, ui, uid, onRetry } = props;
  const lang = store.lang.value;
  const product = ui.product.value;
  const failure = ui.failure.value;
  const variantId = ui.variantId.value;
  const values = ui.values.value;
  const qty = ui.qty.value;
  const rejected = ui.rejected.value;
  const status = ui.status.value?.(lang);
  const busy = ui.busy.value;

  if (!product) return loadingCard(lang, failure, onRetry);
  const variant = product.variants.find((v) => v.id === variantId) ?? product.variants[0];
  const defs = variant.metadata?.customizations ?? [];
  // Several options (size and color) that every variant names: a choice per option, from the
  // pickers' lazy chunk; the variant list meanwhile, and for variants that do not say their options.
  const opts = product.options ?? [];
  const several = opts.length > 1 && product.variants.every((v) => opts.every((o) => v.options?.some((x) => x.name === o.name)));
  const pick = picker.value;
  if ((defs.length || several) && !pick) loadPicker().catch(() => {});
  const image = variant.media?.[0] ?? product.media?.[0];
  const unit = variant.price.amount + (pick?.modifiers(defs, values) ?? 0);
  // What one cart may hold now (server/core/products/stock.ts); the server caps anything above it anyway.
  const max = Math.min(999, variant.metadata?.quantity_available ?? 999);
  // Availability in words: out of stock (or no longer sold), pre-order, backorder; nothing when in stock.
  const available = variant.availability.available && max > 0;
  const st = variant.availability.status;
  const state = available ? (st === 'preorder' || st === 'backorder' ? st : '') : st === 'discontinued' ? st : 'out_of_stock';
  const errors = rejected ? errorTexts(rejected, lang, defs, pick) : {};
  const shown: Shown = { variant, defs, pick, values, qty, max };

  return (
    <form class="card" part="product" ref={ui.root} onSubmit={(e) => add(e, props, shown)} aria-labelledby={`${uid}-t`} noValidate>
      {image ? <img part="image" src={image.url} alt={image.alt_text ?? ''} width={480} height={480} /> : null}
      <h2 id={`${uid}-t`} part="title">
        {product.title}
      </h2>
      <p class="p" part="price">
        {money(unit, variant.price.currency, lang)}
        {variant.list_price && variant.list_price.amount > variant.price.amount ? (
          <s class="m"> {money(variant.list_price.amount, variant.list_price.currency, lang)}</s>
        ) : null}
      </p>
      {state ? (
        <p class={available ? 'm' : 'err'} part="availability">
          {t(lang, state)}
        </p>
      ) : null}
      {product.variants.length > 1 ? (several && pick ? pick.optionSelects(product, variant, lang, uid, ui) : variantSelect(product, variant, lang, uid, ui)) : null}
      {pick ? (
        <pick.Picker defs={defs} values={values} errors={errors} lang={lang} uid={uid} onChange={(id, v) => (ui.values.value = { ...values, [id]: v })} />
      ) : defs.length ? (
        <p class="m">{t(lang, 'loading')}</p>
      ) : null}
      <div class="row">
        <label for={`${uid}-q`}>{t(lang, 'qty')}</label>
        <input id={`${uid}-q`} type="number" min={1} max={max} value={qty} class="qty" disabled={!available} onInput={(e) => (ui.qty.value = Math.max(1, Math.min(999, +(e.currentTarget as HTMLInputElement).value || 1)))} />
        <button type="submit" class="pri" part="button add" disabled={busy || !available || (defs.length > 0 && !pick)}>
          {t(lang, 'add')}
        </button>
      </div>
      {errors[''] ? (
        <p class="err" part="error">
          {errors['']}
        </p>
      ) : null}
      <p role="status" class="m" part="status">
        {status}
      </p>
    </form>
  );
}

/** Before the product arrives: "Loading…", or why it failed (with a retry when one can help). */
function loadingCard(lang: string, failure: Message[], onRetry?: () => void) {
  return (
    <div class="card" part="product" aria-busy={failure.length ? undefined : 'true'}>
      {failure.length ? failure.map((m) => <p class="err">{messageText(lang, m)}</p>) : <p class="m">{t(lang, 'loading')}</p>}
      {retryable(failure) && onRetry ? (
        <button type="button" onClick={onRetry}>
          {t(lang, 'retry')}
        </button>
      ) : null}
    </div>
  );
}

/** The variant picker, shown when there is a choice; a change clears the last rejection (it was about the other variant). */
function variantSelect(product: Product, variant: Variant, lang: string, uid: string, ui: ProductUi) {
  const vid = `${uid}-v`;
  return (
    <div class="f">
      <label class="t" for={vid}>
        {product.options?.map((o) => o.name).join(' / ') || t(lang, 'variant')}
      </label>
      <select id={vid} part="variant" value={variant.id} onChange={(e) => { ui.variantId.value = (e.currentTarget as HTMLSelectElement).value; ui.rejected.value = null; }}>
        {product.variants.map((v) => (
          <option value={v.id} key={v.id} disabled={!v.availability.available}>
            {v.title}
            {v.availability.available ? '' : ` (${t(lang, 'unavailable')})`}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The last rejected add's messages in the current language: by customization id, and '' for the rest. */
function errorTexts({ messages, index, sent }: Rejected, lang: string, defs: CustomizationDef[], pick: PickerKit | null) {
  const errors = fieldErrors(messages, index, sent, (m, id) => pick?.fieldText(lang, m, defs.find((d) => d.id === id)) ?? m.content);
  const general = messages.filter((m) => !m.path?.startsWith(`$.line_items[${index}]`)).map((m) => messageText(lang, m));
  if (errors['']) general.push(errors['']);
  errors[''] = general.join(' ');
  return errors;
}

/** What a render showed, which its add sends: the variant, its customizations (and picker), the values, the quantity, the stock cap. */
interface Shown {
  variant: Variant;
  defs: CustomizationDef[];
  pick: PickerKit | null;
  values: Values;
  qty: number;
  max: number;
}

/**
 * Adds the shown variant: on success the status names it (and any cap to the stock left) and the
 * element is told; on a rejection its messages become field errors and focus moves to the first.
 */
async function add(e: Event, { store, ui, onAdded }: ProductProps, { variant, defs, pick, values, qty, max }: Shown) {
  e.preventDefault();
  const sent = pick?.entries(defs, values) ?? [];
  ui.busy.value = true;
  ui.status.value = null;
  // More than the stock left is added as what is left, and the status says so.
  const short = qty > max;
  const { result, index } = await store.add({ item: { id: variant.id }, quantity: Math.min(qty, max), ...(sent.length ? { customizations: sent } : {}) });
  ui.busy.value = false;
  if (result.ok) {
    const id = variant.id;
    ui.rejected.value = null;
    // The titles of the product as now shown (re-fetched when the language changes).
    // Capped to the stock left (server/core/products/stock.ts): say so, in the server's words.
    const capped = result.data.messages?.find((m) => m.code === 'out_of_stock' && m.path?.startsWith(`$.line_items[${index}]`));
    ui.status.value = (l) => {
      const p = ui.product.value!;
      // The variant's name only when there is a choice (a single variant is named like its product).
      const name = p.variants.length > 1 ? `${p.title} (${(p.variants.find((v) => v.id === id) ?? variant).title})` : p.title;
      return `${t(l, 'added', name)}${short ? ` ${t(l, 'only', max)}` : capped ? ` ${capped.content}` : ''}`;
    };
    onAdded?.({ variantId: variant.id, quantity: Math.min(qty, max) });
    return;
  }
  ui.rejected.value = { messages: result.messages, index, sent };
  const known = Object.keys(fieldErrors(result.messages, index, sent)).some((k) => defs.some((d) => d.id === k));
  ui.status.value = known ? (l) => t(l, 'fix') : null;
  // Move focus to the first invalid field so keyboard and screen-reader users land on it.
  requestAnimationFrame(() => ui.root.current?.querySelector<HTMLElement>('[aria-invalid=true] input,input[aria-invalid=true]')?.focus());
}
