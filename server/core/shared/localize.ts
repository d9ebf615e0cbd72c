/**
 * Language and currency resolution for a request's `context`. The core works with a resolved
 * Locale; unknown values become messages, never failures.
 */
import type { Localized } from '../../formats/catalog-format.ts';
import type { Message } from '../../../src/wire/common.ts';
import type { Shop } from '../../formats/types.ts';
import { supportsCurrency, type Rates } from './money.ts';

export interface Locale {
  language: string;
  currency: string;
  rates: Rates;
  country?: string;
  region?: string;
  postalCode?: string;
}

export interface RequestContext {
  language?: string;
  currency?: string;
  address_country?: string;
  address_region?: string;
  postal_code?: string;
}

export interface LocaleNotice {
  code: 'unsupported_language' | 'unsupported_currency';
  path: string;
  content: string;
}

/** Picks the best supported language from a BCP 47 tag: exact, then primary subtag. */
function matchLanguage(shop: Shop, tag: string | undefined): string | undefined {
  if (!tag) return undefined;
  const want = tag.trim().toLowerCase();
  const langs = shop.settings.languages.map((l) => l.toLowerCase());
  const exact = langs.indexOf(want);
  if (exact >= 0) return shop.settings.languages[exact];
  const primary = want.split('-')[0];
  const i = langs.findIndex((l) => l.split('-')[0] === primary);
  return i >= 0 ? shop.settings.languages[i] : undefined;
}

/** Parses Accept-Language into tags by descending q. */
function acceptLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim(), q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((x) => x.tag && x.tag !== '*' && x.q > 0)
    .sort((a, b) => b.q - a.q)
    .map((x) => x.tag);
}

/** Locale notices as UCP warnings: an unsupported language or currency never fails a request. */
export function noticeMessages(notices: LocaleNotice[]): Message[] {
  return notices.map((n) => ({ type: 'warning', code: n.code, path: n.path, content: n.content }));
}

export function resolveLocale(
  shop: Shop,
  context: RequestContext | undefined,
  acceptLanguage?: string,
  contextPath = '$.context',
): { locale: Locale; notices: LocaleNotice[] } {
  const notices: LocaleNotice[] = [];
  const rates: Rates = { base: shop.settings.currency, rates: shop.settings.rates };

  let language = matchLanguage(shop, context?.language);
  if (context?.language && !language) {
    notices.push({
      code: 'unsupported_language',
      path: `${contextPath}.language`,
      content: `Language '${context.language}' is not offered; using ${shop.settings.default_language}. Offered: ${shop.settings.languages.join(', ')}.`,
    });
  }
  if (!language) {
    for (const tag of acceptLanguages(acceptLanguage)) {
      language = matchLanguage(shop, tag);
      if (language) break;
    }
  }
  language ??= shop.settings.default_language;

  let currency = shop.settings.currency;
  if (context?.currency) {
    const want = context.currency.toUpperCase();
    if (supportsCurrency(rates, want)) currency = want;
    else
      notices.push({
        code: 'unsupported_currency',
        path: `${contextPath}.currency`,
        content: `Currency '${context.currency}' is not offered; prices are in ${shop.settings.currency}. Offered: ${[shop.settings.currency, ...Object.keys(shop.settings.rates)].join(', ')}.`,
      });
  }

  return {
    locale: {
      language,
      currency,
      rates,
      country: context?.address_country?.toUpperCase(),
      region: context?.address_region,
      postalCode: context?.postal_code,
    },
    notices,
  };
}

/** Text in the locale's language, falling back to the shop default, then any language. */
/** Every language's text of a localized value (a plain string is its only one). */
export function allLanguages(value: Localized): string[] {
  return typeof value === 'string' ? [value] : Object.values(value);
}

export function text(value: Localized | undefined, language: string, fallback: string): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  // Own keys only: a language tag can come from the request.
  const own = (k: string) => (Object.hasOwn(value, k) ? value[k] : undefined);
  return own(language) ?? own(language.split('-')[0]) ?? own(fallback) ?? Object.values(value)[0] ?? '';
}
