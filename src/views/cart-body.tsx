/** @jsxRuntime classic */
/** @jsx h */
/** @jsxFrag Fragment */
/**
 * The cart's body: lines with quantity steppers and remove, discount codes with the server's
 * accept/reject message, totals, messages, checkout. A lazily loaded chunk
 * (`host-cart-body-<hash>.js`, src/views/lazy.ts): Preact, the money formatter and the words come in
 * through `make` (chunks never import the entry), which binds them for the whole chunk.
 */
import type { Cart, LineItem } from '../wire/cart.ts';
import type { Message } from '../wire/common.ts';
import type { CartProps, CartUi } from './cart-ui.ts';
import type { Kit } from './kit.ts';
import { lineAmount, signedAmount } from '../format/amounts.ts';
import { customizationsText } from '../format/line-text.ts';

/** This chunk's own words (the entry's table holds only what the entry shows). */
const WORDS: Record<string, Record<'codes' | 'drop' | 'gone', string>> = {
  en: { codes: 'Applied codes', drop: 'Remove code {0}', gone: 'Cart not found. It may have expired.' },
  fr: { codes: 'Codes appliqués', drop: 'Retirer le code {0}', gone: 'Panier introuvable. Il a peut-être expiré.' },
};
const say = (lang: string, k: 'codes' | 'drop' | 'gone', arg = '') => (WORDS[lang.toLowerCase().split('-')[0]] ?? WORDS.en)[k].replace('{0}', arg);

const CODE_RE = /^\$\.discounts\.codes\[(\d+)\]/;
// The cart itself is missing (an unknown, expired or other shop's id, e.g. a framed /cart/{id}):
// the server's words are for developers; the shopper reads "not found", not "your cart is empty".
const gone = (m: { code?: string; path?: string }) => m.code === 'not_found' && !m.path;
// Messages about one line (stock: server/core/products/stock.ts) are shown with it; the rest below the totals.
const lineOf = (m: { path?: string }) => /^\$\.line_items\[(\d+)\]/.exec(m.path ?? '')?.[1];
/** The discount the cart applied for code `c` (codes compare case-insensitively). */
const appliedFor = (cart: Cart | null, c: string) => cart?.discounts?.applied.find((a) => a.code?.toUpperCase() === c.toUpperCase());

type CodeMsg = NonNullable<CartUi['codeMsg']['value']>;

/**
 * One render of a body that has lines, as its parts and handlers see it. The body reads every
 * signal while rendering and hands the values down; the parts read none.
 */
interface Ctx extends CartProps {
  lang: string;
  cart: Cart;
  busy: boolean;
  fmt(n: number): string;
}

// The entry's Preact, money formatter and words, bound once by `make` (lazy.ts calls it once per page):
// module bindings rather than a kit handed to every part, which cost ~80 B more gzip (measured).
let h: Kit['h'], Fragment: Kit['Fragment'], t: Kit['t'], money: Kit['money'], own: Kit['own'], messageText: Kit['messageText'], retryable: Kit['retryable'];

/** The body's component, over the entry's Preact, money formatter and words. */
export function make(k: Kit) {
  ({ h, Fragment, t, money, own, messageText, retryable } = k);
  return { CartBody };
}
export type CartBodyKit = ReturnType<typeof make>;

/** The body: errors (with retry) or "empty"; with lines, the lines, codes, totals, messages and checkout. */
function CartBody({ store, ui, uid }: CartProps) {
  const lang = store.lang.value;
  const cart = store.cart.value;
  const busy = store.busy.value;
  const code = ui.code.value;
  const codeMsg = ui.codeMsg.value;
  const errors = store.error.value;
  const all = cart?.messages ?? [];
  const other = all.filter((m) => !CODE_RE.test(m.path ?? '') && lineOf(m) === undefined);
  const blocked = all.some((m) => m.type === 'error' && m.code === 'out_of_stock');
  // The codes the cart keeps (rejected ones are dropped on the next write), each removable.
  const kept = cart ? store.keptCodes() : [];
  const c: Ctx | null = cart && cart.line_items.length ? { store, ui, uid, lang, cart, busy, fmt: (n) => money(n, cart.currency ?? 'USD', lang) } : null;
  return (
    <div part="cart" aria-busy={busy ? 'true' : undefined}>
      {errors.map((m) => (
        <p class="err" role="alert" part="error">
          {gone(m) ? say(lang, 'gone') : messageText(lang, m)}
        </p>
      ))}
      {retryable(errors) ? (
        <button type="button" disabled={busy} onClick={() => store.reload()}>
          {t(lang, 'retry')}
        </button>
      ) : null}
      {!c && !errors.some(gone) ? <p class="m">{t(lang, busy ? 'loading' : 'empty')}</p> : null}
      {c ? <ul part="lines">{c.cart.line_items.map((l, i) => lineRow(c, l, all.filter((m) => lineOf(m) === String(i))))}</ul> : null}
      {c ? codesForm(c, code, codeMsg, kept) : null}
      {c ? totalsList(c) : null}
      {other.map((m) => (
        <p class={m.type === 'error' ? 'err' : 'm'} part="message">
          {messageText(lang, m)}
        </p>
      ))}
      {c ? (
        <button type="button" class="pri" part="checkout" disabled={busy || blocked} onClick={() => store.checkout()}>
          {t(lang, 'checkout')}
        </button>
      ) : null}
    </div>
  );
}

/** One line: image, title, customizations, its own messages, the quantity stepper and remove. */
function lineRow(c: Ctx, l: LineItem, messages: Message[]) {
  const { lang, busy, uid } = c;
  const title = l.item.title;
  const qid = `${uid}-q-${l.id}`;
  return (
    <li class="line" part="line" key={l.id}>
      {l.item.image_url ? <img src={l.item.image_url} alt="" width={56} height={56} /> : <span />}
      <div>
        <div class="p">{title}</div>
        {l.customizations?.length ? <div class="m">{customizationsText(l.customizations)}</div> : null}
        {messages.map((m) => (
          <p class={m.type === 'error' ? 'err' : 'm'} part="line-message">
            {m.content}
          </p>
        ))}
        <div class="row qty">
          {/* The stepper stays one piece on a narrow screen; "Remove" wraps below it. */}
          <span class="row">
            <button type="button" aria-label={t(lang, 'dec', title)} disabled={busy} onClick={() => setQty(c, l.id, title, l.quantity - 1)}>
              −
            </button>
            <label class="sr" for={qid}>
              {t(lang, 'qtyOf', title)}
            </label>
            <input
              id={qid}
              type="number"
              min={0}
              max={999}
              value={l.quantity}
              onChange={(e) => setQty(c, l.id, title, Math.max(0, Math.min(999, Math.floor(+(e.currentTarget as HTMLInputElement).value || 0))))}
            />
            <button type="button" aria-label={t(lang, 'inc', title)} disabled={busy} onClick={() => setQty(c, l.id, title, l.quantity + 1)}>
              +
            </button>
          </span>
          <button type="button" part="remove" disabled={busy} onClick={() => setQty(c, l.id, title, 0)}>
            {t(lang, 'remove', '').trim()}
            <span class="sr"> {title}</span>
          </button>
        </div>
      </div>
      <div class="p">{c.fmt(lineAmount(l))}</div>
    </li>
  );
}

/** Sets a line's quantity and announces what the cart now holds, with the server's reason and the new total. */
async function setQty({ store, lang, fmt }: Ctx, id: string, title: string, q: number) {
  const r = await store.setQuantity(id, q);
  if (r.ok) {
    const total = r.data.totals.find((x) => x.type === 'total');
    // Announce what the cart now holds (the server caps a quantity to the stock left), with its reason.
    const i = r.data.line_items.findIndex((l) => l.id === id);
    const why = r.data.messages?.find((m) => i >= 0 && m.path?.startsWith(`$.line_items[${i}]`))?.content ?? '';
    const now = i < 0 ? 0 : r.data.line_items[i].quantity;
    store.announce(`${now > 0 ? t(lang, 'said', t(lang, 'qtyOf', title), now) : t(lang, 'removed', title)} ${why} ${total ? t(lang, 'total', fmt(total.amount)) : ''}`.replace(/ +/g, ' '));
  }
}

/** The discount code field, the answer to the last code applied, and the codes the cart keeps. */
function codesForm(c: Ctx, code: string, codeMsg: CodeMsg | null, kept: string[]) {
  const { lang, busy, uid, ui, store, cart, fmt } = c;
  return (
    <form class="f" onSubmit={(e) => apply(c, e)} part="discount">
      <label class="t" for={`${uid}-code`}>
        {t(lang, 'code')}
      </label>
      <div class="row">
        <input id={`${uid}-code`} type="text" value={code} autocomplete="off" aria-describedby={codeMsg ? `${uid}-cm` : undefined} onInput={(e) => (ui.code.value = (e.currentTarget as HTMLInputElement).value)} />
        <button type="submit" disabled={busy}>
          {t(lang, 'apply')}
        </button>
      </div>
      {codeMsg ? (
        <p id={`${uid}-cm`} class={codeMsg.warn ? 'err' : 'm'} part="discount-message">
          {codeText(c, codeMsg, lang)}
        </p>
      ) : null}
      {kept.length ? (
        <>
          <p class="t" id={`${uid}-cl`}>
            {say(lang, 'codes')}
          </p>
          <ul part="codes" aria-labelledby={`${uid}-cl`}>
            {kept.map((x) => {
              const hit = appliedFor(cart, x);
              return (
                <li class="row" key={x}>
                  <span>
                    <b>{x}</b>
                    {hit ? ` ${hit.title} (${fmt(-hit.amount)})` : ''}
                  </span>
                  <button type="button" part="remove-code" aria-label={say(lang, 'drop', x)} disabled={busy} onClick={() => store.setCodes(kept.filter((y) => y !== x))}>
                    {t(lang, 'remove', '').trim()}
                  </button>
                </li>
              );
            })}
          </ul>
        </>
      ) : null}
    </form>
  );
}

// An accepted code in language `l`, with its title as the cart now has it (a rejected one: the server's words).
const codeText = ({ cart }: Ctx, m: CodeMsg, l: string) => m.warn ?? t(l, 'applied', m.c, appliedFor(cart, m.c)?.title ?? m.title ?? '');

/** Applies the typed code; the answer (accepted with its title, or the server's warning) shows under the field and is announced. */
async function apply(c: Ctx, e: Event) {
  const { store, ui } = c;
  e.preventDefault();
  const code = ui.code.value.trim();
  if (!code) return;
  const r = await store.applyCode(code);
  if (!r.ok) return void (ui.codeMsg.value = { c: code, warn: r.messages.map((m) => m.content).join(' ') });
  const i = r.data.discounts?.codes.findIndex((x) => x.toUpperCase() === code.toUpperCase()) ?? -1;
  const warn = r.data.messages?.find((m) => CODE_RE.exec(m.path ?? '')?.[1] === String(i));
  const msg = { c: code, title: appliedFor(r.data, code)?.title, warn: warn?.content };
  ui.codeMsg.value = msg;
  if (!warn) ui.code.value = '';
  store.announce(codeText(c, msg, store.lang.value));
}

/** The totals as rows (the server's labels, or the widget's own words where it has them). */
function totalsList({ lang, cart, fmt }: Ctx) {
  return (
    <dl part="totals">
      {cart.totals.map((x) => (
        <>
          <dt class={x.type === 'total' ? 'tot' : ''}>{own(lang, x.type) ?? x.display_text ?? t(lang, x.type)}</dt>
          <dd class={x.type === 'total' ? 'tot' : ''} data-total={x.type}>
            {fmt(signedAmount(x))}
          </dd>
        </>
      ))}
    </dl>
  );
}
