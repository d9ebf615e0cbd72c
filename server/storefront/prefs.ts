/**
 * A shopper's choices on a storefront — language and display currency — kept in first-party
 * cookies (`ucp_lang`, `ucp_currency`; SameSite=Lax, one year, path /) that public/storefront.js
 * writes when a switcher changes. Cookies rather than localStorage because the server renders the
 * page: the first byte is already in the chosen language and currency, with no flash of English/USD.
 * They are the shop's own cookies on its own origin (never third-party), hold no identifier, and the
 * widget on other sites does not depend on them. docs/host-js.md "A shopper's choices".
 */
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Shop } from '../formats/types.ts';
import { resolveLocale, type Locale } from '../core/shared/localize.ts';
import { html } from './html.ts';

export interface Prefs {
  language: string;
  /** The display currency (the shop's own when none or an unsupported one was chosen). */
  currency: string;
  /** True when the shopper chose a currency other than the shop's. */
  chosenCurrency: boolean;
  /** The same choices as the catalog renders with (rates included). */
  locale: Locale;
}

export function prefsOf(c: Context, shop: Shop): Prefs {
  const { locale } = resolveLocale(shop, { language: getCookie(c, 'ucp_lang') || undefined, currency: getCookie(c, 'ucp_currency') || undefined }, c.req.header('accept-language'));
  return { language: locale.language, currency: locale.currency, chosenCurrency: locale.currency !== shop.settings.currency, locale };
}

/**
 * The `currency` attribute for host.js's elements: always the display currency, the shop's own
 * included. A widget without one keeps whatever currency its cart was last priced in (it cannot tell
 * the shop's), so a shopper who went back to the shop's currency on another page, or in another tab,
 * would keep a cart in the other one; with it, the widget re-prices the cart on load.
 */
export const currencyAttr = (p: Prefs) => html` currency="${p.currency}"`;
