/**
 * Turns a stored product (catalog file form) into the UCP product object for one locale:
 * localized text, converted prices, absolute URLs and published customization definitions.
 * Pure functions: no database, no HTTP.
 */
import type { CustomizationDef as WireCustomization, Product, Variant } from '../../../src/wire/catalog.ts';
import type { Measure, Price, QuantityUnit, UnitPrice } from '../../../src/wire/common.ts';
import type { StoredProduct, StoredVariant, CustomizationDef } from '../../formats/types.ts';
import type { QuantityUnit as StoredQuantityUnit, UnitPricing } from '../../formats/catalog-format.ts';
import type { Locale } from '../shared/localize.ts';
import { text } from '../shared/localize.ts';
import { convert } from '../shared/money.ts';
import { availabilityStatus, isAvailable, unitsAvailable } from './stock.ts';

export interface RenderOptions {
  locale: Locale;
  /** Storefront origin, e.g. `http://demo.localhost:8080`, for absolute URLs. */
  origin: string;
  defaultLanguage: string;
}

export function price(amount: number, o: RenderOptions): Price {
  return { amount: convert(amount, o.locale.rates, o.locale.currency), currency: o.locale.currency };
}

function absolute(url: string, origin: string): string {
  return /^https?:\/\//.test(url) ? url : `${origin}${url.startsWith('/') ? '' : '/'}${url}`;
}

export { isAvailable };

export function renderCustomizations(defs: CustomizationDef[], o: RenderOptions): WireCustomization[] {
  const t = (v: Parameters<typeof text>[0]) => text(v, o.locale.language, o.defaultLanguage);
  return defs.map((d) => {
    if (d.type === 'text') {
      return {
        id: d.id,
        type: 'text',
        label: t(d.label),
        required: d.required,
        ...(d.min_length !== undefined ? { min_length: d.min_length } : {}),
        max_length: d.max_length,
        ...(d.placeholder ? { placeholder: t(d.placeholder) } : {}),
        ...(d.price_modifier ? { price_modifier: price(d.price_modifier, o) } : {}),
      };
    }
    return {
      id: d.id,
      type: d.type,
      label: t(d.label),
      required: d.required,
      ...(d.type === 'multi_select' && d.min_selections !== undefined ? { min_selections: d.min_selections } : {}),
      ...(d.type === 'multi_select' && d.max_selections !== undefined ? { max_selections: d.max_selections } : {}),
      options: d.options.map((opt) => ({
        id: opt.id,
        label: t(opt.label),
        ...(opt.price_modifier ? { price_modifier: price(opt.price_modifier, o) } : {}),
      })),
    };
  });
}

/**
 * A variant's options for display, e.g. [{name:"Size", label:"M", id:"m"}]: UCP's `name` is the
 * option's display name in the request's language (the catalog's option id, "size", is what
 * requests may also name it by: server/core/catalog/catalog.ts `optionNamed`).
 */
function selectedOptions(p: StoredProduct, v: StoredVariant, o: RenderOptions) {
  return variantOptionsInOrder(p, v).map(([name, id]) => {
    const option = p.options?.find((opt) => opt.name === name);
    const value = option?.values.find((val) => val.id === id);
    return { name: option ? text(option.label, o.locale.language, o.defaultLanguage) : name, label: value ? text(value.label, o.locale.language, o.defaultLanguage) : id, id };
  });
}

/**
 * A variant's option entries in the product's option order (Color, Size gives "Green / S" whatever
 * order the variant's stored map lists them in); names the product does not declare come last.
 */
export function variantOptionsInOrder(p: StoredProduct, v: StoredVariant): Array<[string, string]> {
  const entries = Object.entries(v.options);
  if (entries.length < 2 || !p.options?.length) return entries;
  const rank = new Map(p.options.map((opt, i) => [opt.name, i]));
  return entries.sort(([a], [b]) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity));
}

/** The product's page: the shop's own (an import's `url`), else this server's storefront page. */
export function productUrl(p: Pick<StoredProduct, 'url' | 'handle'>, origin: string): string {
  return p.url ?? `${origin}/products/${p.handle}`;
}

/** UCP `description`: `plain` always, `html` where the shop wrote HTML (its import source). */
function description(plain: Parameters<typeof text>[0], html: Parameters<typeof text>[0] | undefined, o: RenderOptions): { plain: string; html?: string } {
  const t = (x: Parameters<typeof text>[0]) => text(x, o.locale.language, o.defaultLanguage);
  return html ? { plain: t(plain), html: t(html) } : { plain: t(plain) };
}

export function variantTitle(p: StoredProduct, v: StoredVariant, o: RenderOptions): string {
  if (v.title) return text(v.title, o.locale.language, o.defaultLanguage);
  const labels = selectedOptions(p, v, o).map((s) => s.label);
  return labels.length ? labels.join(' / ') : text(p.title, o.locale.language, o.defaultLanguage);
}

export function renderVariant(p: StoredProduct, v: StoredVariant, o: RenderOptions): Variant {
  const t = (x: Parameters<typeof text>[0]) => text(x, o.locale.language, o.defaultLanguage);
  const opts = selectedOptions(p, v, o);
  return {
    id: v.id,
    ...(v.sku ? { sku: v.sku } : {}),
    title: variantTitle(p, v, o),
    description: v.description ? { plain: t(v.description) } : description(p.description, p.description_html, o),
    ...(v.url ? { url: v.url } : p.url ? { url: p.url } : {}),
    price: price(v.price, o),
    ...(v.list_price !== undefined ? { list_price: price(v.list_price, o) } : {}),
    availability: { available: isAvailable(v), status: availabilityStatus(v) },
    ...(opts.length ? { options: opts } : {}),
    ...(v.media?.length
      ? { media: v.media.map((m) => ({ type: m.type, url: absolute(m.url, o.origin), ...(m.alt_text ? { alt_text: t(m.alt_text) } : {}) })) }
      : {}),
    ...(v.barcodes?.length ? { barcodes: v.barcodes } : {}),
    // Always present so clients can rely on it: an empty list means "no customizations".
    // `quantity_available`: the most one cart can hold now, when stock is limited (docs/ucp.md).
    metadata: { customizations: renderCustomizations(v.customizations ?? [], o), ...quantityAvailable(v) },
    // Sale basis and unit price, where the catalog has them. UCP 2026-08-25 fields: answers in
    // 2026-04-08 leave them out (server/ucp/versions.ts).
    ...(v.quantity_unit ? { quantity_unit: renderQuantityUnit(v.quantity_unit, o) } : {}),
    ...(v.unit_price ? { unit_price: renderUnitPrice(v.price, v.unit_price, o) } : {}),
  };
}

/** A stored unit descriptor in the request's language; `scale` 0 left out (it is the default). */
function renderUnit<T extends { unit: string; display_text: Parameters<typeof text>[0]; scale?: number }>(u: T, o: RenderOptions) {
  return { unit: u.unit, display_text: text(u.display_text, o.locale.language, o.defaultLanguage), ...(u.scale ? { scale: u.scale } : {}) };
}

export function renderQuantityUnit(q: StoredQuantityUnit, o: RenderOptions): QuantityUnit {
  return { ...renderUnit(q, o), ...(q.increment !== undefined && q.increment !== 1 ? { increment: q.increment } : {}) };
}

function renderMeasure(m: UnitPricing['measure'], o: RenderOptions): Measure {
  return { ...renderUnit(m, o), value: m.value };
}

/**
 * The spec's comparator, rounded once: price / (measure × 10^-scale) × (reference × 10^-scale),
 * from the converted price so `unit_price.currency` equals `price.currency`.
 */
export function renderUnitPrice(amount: number, u: UnitPricing, o: RenderOptions): UnitPrice {
  const p = price(amount, o);
  const size = (m: UnitPricing['measure']) => m.value * 10 ** -(m.scale ?? 0);
  return { amount: Math.round((p.amount / size(u.measure)) * size(u.reference)), currency: p.currency, measure: renderMeasure(u.measure, o), reference: renderMeasure(u.reference, o) };
}

function quantityAvailable(v: StoredVariant): { quantity_available?: number } {
  const n = unitsAvailable(v);
  return n === null ? {} : { quantity_available: n };
}

function range(values: number[], o: RenderOptions) {
  return { min: price(Math.min(...values), o), max: price(Math.max(...values), o) };
}

/** The full product object. `variants` lets callers choose and order the variants to include. */
export function renderProduct(p: StoredProduct, o: RenderOptions, variants: StoredVariant[] = p.variants): Product {
  const t = (x: Parameters<typeof text>[0]) => text(x, o.locale.language, o.defaultLanguage);
  const listPrices = p.variants.map((v) => v.list_price ?? v.price);
  const hasList = p.variants.some((v) => v.list_price !== undefined);
  return {
    id: p.id,
    handle: p.handle,
    title: t(p.title),
    description: description(p.description, p.description_html, o),
    url: productUrl(p, o.origin),
    categories: p.categories.map((value) => ({ value })),
    price_range: range(p.variants.map((v) => v.price), o),
    ...(hasList ? { list_price_range: range(listPrices, o) } : {}),
    ...(p.media?.length
      ? {
          media: p.media.map((m) => ({
            type: m.type,
            url: absolute(m.url, o.origin),
            ...(m.alt_text ? { alt_text: t(m.alt_text) } : {}),
            ...(m.width ? { width: m.width } : {}),
            ...(m.height ? { height: m.height } : {}),
          })),
        }
      : {}),
    ...(p.options?.length
      ? { options: p.options.map((opt) => ({ name: t(opt.label), values: opt.values.map((v) => ({ id: v.id, label: t(v.label) })) })) }
      : {}),
    variants: variants.map((v) => renderVariant(p, v, o)),
    ...(p.tags?.length ? { tags: p.tags } : {}),
    ...(p.rating ? { rating: p.rating } : {}),
    ...(p.brand ? { metadata: { brand: p.brand } } : {}),
  };
}

/** The variant shown first in listings: the first available one, else the first. */
export function featuredVariant(p: StoredProduct): StoredVariant {
  return p.variants.find(isAvailable) ?? p.variants[0];
}
