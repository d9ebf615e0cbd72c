/** @jsxRuntime classic */
/** @jsx h */
/**
 * Product cards for `search_catalog` and `lookup_catalog` results in an MCP Apps view: image,
 * title, price (or "from" the lowest), rating, availability in words (the storefront's rule,
 * src/search/availability.ts). A product with exactly one purchasable variant and no required
 * customization is added from its card; any other opens the product view (options, customizations).
 * A refusal is shown under the card's own button.
 */
import { h } from 'preact';
import type { Product } from '../wire/catalog.ts';
import { cardAvailability } from '../format/availability.ts';
import { money } from '../state/store.ts';
import { messageText, t } from '../views/i18n.ts';
import { say } from './words.ts';
import type { Shell } from './shell.ts';
import { webAddress } from './links.ts';

/** The variant a card adds by itself, or null when the shopper has a choice to make first. */
export function directVariant(p: Product) {
  const buyable = p.variants.filter((v) => v.availability.available && (v.metadata?.quantity_available ?? 1) > 0);
  if (buyable.length !== 1) return null;
  return (buyable[0].metadata?.customizations ?? []).some((d) => d.required) ? null : buyable[0];
}

export function Cards({ shell }: { shell: Shell }) {
  const lang = shell.store.lang.value;
  const products = shell.products.value;
  return (
    products.length ? (
      <ul class="cards" aria-label={say(lang, 'results')}>
        {products.map((p) => card(shell, p, lang))}
      </ul>
    ) : (
      <p class="m">{say(lang, 'noResults')}</p>
    )
  );
}

function card(shell: Shell, p: Product, lang: string) {
  const image = p.media?.find((m) => m.type === 'image' || !m.type);
  const min = p.price_range.min;
  const price = money(min.amount, min.currency, lang);
  const state = cardAvailability(p);
  const direct = directVariant(p);
  const note = shell.cardNotes.value[p.id];
  const busy = shell.store.busy.value;
  const hid = `c-${p.id}`;
  return (
    <li class="card pc" key={p.id} aria-labelledby={hid}>
      {image ? <img src={image.url} alt={image.alt_text ?? ''} width={320} height={320} loading="lazy" /> : null}
      <h2 id={hid}>{p.title}</h2>
      {webAddress(p.url) ? (
        <a class="m" href={p.url} onClick={(e) => (e.preventDefault(), shell.openPage(p.url))}>
          {say(lang, 'onShop')}
          <span class="sr"> {p.title}</span>
        </a>
      ) : null}
      <p class="p">{p.price_range.max.amount > min.amount ? say(lang, 'from', price) : price}</p>
      {p.rating ? (
        <p class="m">
          <span aria-hidden="true">★ </span>
          {say(lang, 'rating', p.rating.value, p.rating.scale_max)}
          {p.rating.count ? ` · ${say(lang, 'reviews', p.rating.count)}` : ''}
        </p>
      ) : null}
      <p class={state === 'out_of_stock' ? 'err' : 'm'}>{state ? t(lang, state) : say(lang, 'inStock')}</p>
      {direct ? (
        <button type="button" class="pri" disabled={busy} aria-describedby={note ? `${hid}-n` : undefined} onClick={() => shell.addFromCard(p, direct.id)}>
          {t(lang, 'add')}
          <span class="sr"> {p.title}</span>
        </button>
      ) : state !== 'out_of_stock' ? (
        <button type="button" disabled={busy} onClick={() => shell.openProduct(p.id)}>
          {say(lang, 'options')}
          <span class="sr"> {p.title}</span>
        </button>
      ) : null}
      {note ? (
        <p id={`${hid}-n`} class={note.error ? 'err' : 'm'} role={note.error ? 'alert' : 'status'}>
          {note.error ? note.messages.map((m) => messageText(lang, m)).join(' ') : t(lang, 'added', p.title)}
        </p>
      ) : null}
    </li>
  );
}
