/** @jsxRuntime classic */
/** @jsx h */
/** @jsxFrag Fragment */
/**
 * The cart's body: lines with quantity steppers and remove, discount codes with the server's
 * accept/reject message, totals, messages, checkout. A lazily loaded chunk
 * (`host-cart-body-<hash>.js`, src/views/lazy.ts): Preact, the money formatter and the words come in
 * through `make` (chunks never import the entry).
 */
import type { CartProps } from './cart-ui.ts';
import type { Kit } from './kit.ts';
import { lineAmount, signedAmount } from './amounts.ts';
import { customizationsText } from './line-text.ts';

/** This chunk's own words (the entry's table holds only what the entry shows). */
const WORDS: Record<string, Record<'codes' | 'drop' | 'gone', string>> = {
  en: { codes: 'Applied codes', drop: 'Remove code {0}', gone: 'Cart not found. It may have expired.' },
  fr: { codes: 'Codes appliqués', drop: 'Retirer le code {0}', gone: 'Panier introuvable. Il a peut-être expiré.' },
};
const say = (lang: string, k: 'codes' | 'drop' | 'gone', arg = '') => (WORDS[lang.toLowerCase().split('-')[0]] ?? WORDS.en)[k].replace('{0}', arg);

/** The body's component, over the entry's Preact, money formatter and words. */
export function make({ h, Fragment, money, t, own, messageText, retryable }: Kit) {
  const CODE_RE = /^\$\.discounts\.codes\[(\d+)\]/;
  // The cart itself is missing (an unknown, expired or other shop's id, e.g. a framed /cart/{id}):
  // the server's words are for developers; the shopper reads "not found", not "your cart is empty".
  const gone = (m: { code?: string; path?: string }) => m.code === 'not_found' && !m.path;

  function CartBody({ store, ui, uid }: CartProps) {
    const lang = store.lang.value;
    const cart = store.cart.value;
    const busy = store.busy.value;
    const code = ui.code.value;
    const codeMsg = ui.codeMsg.value;
    const setCode = (v: string) => (ui.code.value = v);
    const setCodeMsg = (v: { c: string; title?: string; warn?: string }) => (ui.codeMsg.value = v);
    const fmt = (n: number) => money(n, cart?.currency ?? 'USD', lang);
    // An accepted code in the current language, with its title as the cart now has it.
    const codeText = (m: { c: string; title?: string; warn?: string }, l: string) =>
      m.warn ?? t(l, 'applied', m.c, cart?.discounts?.applied.find((a) => a.code?.toUpperCase() === m.c.toUpperCase())?.title ?? m.title ?? '');

    async function apply(e: Event) {
      e.preventDefault();
      const c = ui.code.value.trim();
      if (!c) return;
      const r = await store.applyCode(c);
      if (!r.ok) return setCodeMsg({ c, warn: r.messages.map((m) => m.content).join(' ') });
      const i = r.data.discounts?.codes.findIndex((x) => x.toUpperCase() === c.toUpperCase()) ?? -1;
      const warn = r.data.messages?.find((m) => CODE_RE.exec(m.path ?? '')?.[1] === String(i));
      const hit = r.data.discounts?.applied.find((a) => a.code?.toUpperCase() === c.toUpperCase());
      const msg = { c, title: hit?.title, warn: warn?.content };
      setCodeMsg(msg);
      if (!warn) setCode('');
      store.announce(codeText(msg, store.lang.value));
    }

    async function setQty(id: string, title: string, q: number) {
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

    const errors = store.error.value;
    const all = cart?.messages ?? [];
    // Messages about one line (stock: server/core/products/stock.ts) are shown with it; the rest below the totals.
    const lineOf = (m: { path?: string }) => /^\$\.line_items\[(\d+)\]/.exec(m.path ?? '')?.[1];
    const other = all.filter((m) => !CODE_RE.test(m.path ?? '') && lineOf(m) === undefined);
    const blocked = all.some((m) => m.type === 'error' && m.code === 'out_of_stock');
    // The codes the cart keeps (rejected ones are dropped on the next write), each removable.
    const kept = cart ? store.keptCodes() : [];
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
        {(!cart || !cart.line_items.length) && !errors.some(gone) ? <p class="m">{t(lang, busy ? 'loading' : 'empty')}</p> : null}
        {cart && cart.line_items.length ? (
          <ul part="lines">
            {cart.line_items.map((l, i) => {
              const title = l.item.title;
              const qid = `${uid}-q-${l.id}`;
              return (
                <li class="line" part="line" key={l.id}>
                  {l.item.image_url ? <img src={l.item.image_url} alt="" width={56} height={56} /> : <span />}
                  <div>
                    <div class="p">{title}</div>
                    {l.customizations?.length ? <div class="m">{customizationsText(l.customizations)}</div> : null}
                    {all
                      .filter((m) => lineOf(m) === String(i))
                      .map((m) => (
                        <p class={m.type === 'error' ? 'err' : 'm'} part="line-message">
                          {m.content}
                        </p>
                      ))}
                    <div class="row qty">
                      {/* The stepper stays one piece on a narrow screen; "Remove" wraps below it. */}
                      <span class="row">
                      <button type="button" aria-label={t(lang, 'dec', title)} disabled={busy} onClick={() => setQty(l.id, title, l.quantity - 1)}>
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
                        onChange={(e) => setQty(l.id, title, Math.max(0, Math.min(999, Math.floor(+(e.currentTarget as HTMLInputElement).value || 0))))}
                      />
                      <button type="button" aria-label={t(lang, 'inc', title)} disabled={busy} onClick={() => setQty(l.id, title, l.quantity + 1)}>
                        +
                      </button>
                      </span>
                      <button type="button" part="remove" disabled={busy} onClick={() => setQty(l.id, title, 0)}>
                        {t(lang, 'remove', '').trim()}
                        <span class="sr"> {title}</span>
                      </button>
                    </div>
                  </div>
                  <div class="p">{fmt(lineAmount(l))}</div>
                </li>
              );
            })}
          </ul>
        ) : null}
        {cart && cart.line_items.length ? (
          <form class="f" onSubmit={apply} part="discount">
            <label class="t" for={`${uid}-code`}>
              {t(lang, 'code')}
            </label>
            <div class="row">
              <input id={`${uid}-code`} type="text" value={code} autocomplete="off" aria-describedby={codeMsg ? `${uid}-cm` : undefined} onInput={(e) => setCode((e.currentTarget as HTMLInputElement).value)} />
              <button type="submit" disabled={busy}>
                {t(lang, 'apply')}
              </button>
            </div>
            {codeMsg ? (
              <p id={`${uid}-cm`} class={codeMsg.warn ? 'err' : 'm'} part="discount-message">
                {codeText(codeMsg, lang)}
              </p>
            ) : null}
            {kept.length ? (
              <>
                <p class="t" id={`${uid}-cl`}>
                  {say(lang, 'codes')}
                </p>
                <ul part="codes" aria-labelledby={`${uid}-cl`}>
                  {kept.map((c) => {
                    const hit = cart?.discounts?.applied.find((a) => a.code?.toUpperCase() === c.toUpperCase());
                    return (
                      <li class="row" key={c}>
                        <span>
                          <b>{c}</b>
                          {hit ? ` ${hit.title} (${fmt(-hit.amount)})` : ''}
                        </span>
                        <button type="button" part="remove-code" aria-label={say(lang, 'drop', c)} disabled={busy} onClick={() => store.setCodes(kept.filter((k) => k !== c))}>
                          {t(lang, 'remove', '').trim()}
                        </button>
                      </li>
                    );
                  })}
                </ul>
              </>
            ) : null}
          </form>
        ) : null}
        {cart && cart.line_items.length ? (
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
        ) : null}
        {other.map((m) => (
          <p class={m.type === 'error' ? 'err' : 'm'} part="message">
            {messageText(lang, m)}
          </p>
        ))}
        {cart && cart.line_items.length ? (
          <button type="button" class="pri" part="checkout" disabled={busy || blocked} onClick={() => store.checkout()}>
            {t(lang, 'checkout')}
          </button>
        ) : null}
      </div>
    );
  }

  return { CartBody };
}
export type CartBodyKit = ReturnType<typeof make>;
