/**
 * Carts, for one shop: create, get, update (full replacement of the lines), cancel (clears the
 * lines), purge. Every rule lives here so REST, MCP, the widget and the embedded cart agree.
 *
 * A cart row stores its lines with unit prices in the shop currency (customization modifiers
 * included), the chosen display currency and language, the raw context and the discount codes with
 * the definitions they matched. Rendering converts prices, prices discounts and estimates tax.
 */
import { randomId } from '../shared/random-ids.ts';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type { Message } from '../../../src/wire/common.ts';
import type { AppliedDiscount, Cart, CreateCartRequest, LineItem, Total, UpdateCartRequest } from '../../../src/wire/cart.ts';
import type { Shop, StoredCartDiscounts, StoredCartLine, StoredProduct, StoredVariant } from '../../formats/types.ts';
import { BusinessError, type FieldIssue } from '../shared/errors.ts';
import { loadProducts, loadVariants } from '../catalog/catalog.ts';
import { noticeMessages, resolveLocale, text, type Locale, type RequestContext } from '../shared/localize.ts';
import { convert, formatMoney } from '../shared/money.ts';
import { renderQuantityUnit, variantTitle } from '../products/products.ts';
import { allotStock, isAvailable, unitsAvailable } from '../products/stock.ts';
import { describeCustomizations, validateCustomizations } from './customizations.ts';
import { evaluateCodes } from './discounts.ts';
import { findDiscounts } from '../catalog/discount-store.ts';
import { wordsFor } from './cart-words.ts';
import { priceCart, taxRateBps } from './pricing.ts';
import { purgeIdempotencyKeys } from './idempotency.ts';
import { coalescedInsert, type ColumnValue } from '../../db/coalesced-insert.ts';
import { log } from '../../lib/log.ts';

type Exec = Kysely<Database>;

/** Carts live this long after their last write. */
export const CART_TTL_MS = 7 * 24 * 60 * 60 * 1000;

// The stored line and discount shapes live in ./types.ts (db/schema.ts types its JSON columns with them).
export type { StoredCartLine, StoredCartDiscounts } from '../../formats/types.ts';

export interface CartRecord {
  shop_id: string;
  id: string;
  currency: string;
  language: string;
  context: Record<string, unknown>;
  buyer: Record<string, unknown> | null;
  line_items: StoredCartLine[];
  discounts: StoredCartDiscounts;
  expires_at: Date;
  /** The stored row's write counter, when read from the database (never rendered). */
  version?: number;
}

export type CartSeverity = 'recoverable' | 'requires_buyer_input' | 'requires_buyer_review' | 'unrecoverable';
export interface CartIssue extends FieldIssue {
  severity: CartSeverity;
}

/** The request cannot produce a cart (unknown variant, invalid customizations): nothing was written. */
export class CartRejected extends BusinessError {
  constructor(readonly cartIssues: CartIssue[]) {
    super(cartIssues[0]?.code ?? 'invalid_cart', cartIssues.map((i) => `${i.path}: ${i.content}`).join('; '), cartIssues, cartIssues[0]?.severity ?? 'recoverable');
  }
}

export function newCartId(): string {
  return `cart_${randomId(16)}`;
}

/** Units available per variant id (unitsAvailable; a variant no longer in the catalog has none). */
export type StockMap = ReadonlyMap<string, number | null>;

/** The stock of these variants now (one query; the product cache on the embedded database). */
export async function stockOf(db: Exec, shop: Shop, variantIds: string[]): Promise<StockMap> {
  const found = await loadVariants(db, shop, [...new Set(variantIds)]);
  return new Map(variantIds.map((id) => [id, found.has(id) ? unitsAvailable(found.get(id)!.variant) : 0]));
}

interface BuiltLines {
  lines: StoredCartLine[];
  /** Lines capped to the stock left (`out_of_stock` warnings at their quantity), for this response. */
  messages: Message[];
  stock: StockMap;
}

/** The unit descriptor's machine identity (UCP 2026-08-25 unit.json): `unit` and effective `scale`; absent = a piece (`C62`, 0). */
const unitIdentity = (u: { unit: string; scale?: number } | undefined) => (u ? `${u.unit}/${u.scale ?? 0}` : 'C62/0');

/**
 * A request line that asserts a sale basis other than the variant's is refused, recoverably, naming
 * the variant's basis: the platform resends the quantity in it. Never reinterpreted silently (the
 * spec's rule); converting would need a conversion table between units the catalog does not have.
 */
function quantityUnitIssue(asserted: { unit: string; scale?: number } | undefined, own: StoredVariant['quantity_unit'], path: string): CartIssue | undefined {
  if (asserted === undefined || unitIdentity(asserted) === unitIdentity(own)) return undefined;
  const basis = own ? `${own.unit}${own.scale ? ` at scale ${own.scale}` : ''}` : 'C62 (by the piece)';
  return {
    path,
    code: 'quantity_unit_mismatch',
    content: `This item is sold in ${basis}, not ${asserted.unit}${asserted.scale ? ` at scale ${asserted.scale}` : ''}: send the quantity in the item's own unit (or leave quantity_unit out).`,
    severity: 'recoverable',
  };
}

/**
 * Validates and prices the requested lines against the catalog (one query), capping each line to
 * the stock left for it (core/products/stock.ts). Throws CartRejected.
 */
async function buildLines(db: Exec, shop: Shop, input: CreateCartRequest['line_items'], locale: Locale): Promise<BuiltLines> {
  const found = await loadVariants(db, shop, input.map((l) => l.item.id));
  // Only on the failure path: an id that is no variant may be a product's, and then we name its variants.
  const unknown = input.map((l) => l.item.id).filter((id) => !found.has(id));
  const products = unknown.length ? await loadProducts(db, shop, unknown) : new Map<string, StoredProduct>();
  const issues: CartIssue[] = [];
  const o = { locale, origin: '', defaultLanguage: shop.settings.default_language };
  const say = wordsFor(locale.language);
  const usedIds = new Set<string>();
  const lines: StoredCartLine[] = [];
  input.forEach((line, i) => {
    const path = `$.line_items[${i}]`;
    const hit = found.get(line.item.id);
    if (!hit) {
      const product = products.get(line.item.id);
      const content = product ? say('product_not_variant', product.id, product.variants.map((v) => v.id).join(', ')) : say('variant_unknown', line.item.id);
      issues.push({ path: `${path}.item.id`, code: 'not_found', content, severity: 'recoverable' });
      return;
    }
    const { product, variant } = hit;
    if (!isAvailable(variant)) {
      issues.push({ path: `${path}.item.id`, code: 'out_of_stock', content: say(variant.status === 'discontinued' ? 'variant_discontinued' : 'variant_unavailable', variant.id), severity: 'recoverable' });
      return;
    }
    const unitIssue = quantityUnitIssue(line.item.quantity_unit, variant.quantity_unit, `${path}.item.quantity_unit`);
    if (unitIssue) {
      issues.push(unitIssue);
      return;
    }
    const c = validateCustomizations(variant.customizations, line.customizations, path, locale.language, shop.settings.default_language);
    for (const issue of c.issues) issues.push({ ...issue, severity: 'requires_buyer_input' });
    if (c.issues.length) return;
    const productTitle = text(product.title, locale.language, shop.settings.default_language);
    const vTitle = variantTitle(product, variant, o);
    const image = (variant.media ?? product.media ?? []).find((m) => m.type === 'image')?.url;
    lines.push({
      id: line.id && !usedIds.has(line.id) ? line.id : '',
      variant_id: variant.id,
      product_id: product.id,
      quantity: line.quantity,
      customizations: describeCustomizations(variant.customizations, c.accepted, locale.language, shop.settings.default_language),
      unit_price: variant.price + c.modifier,
      title: product.options?.length && vTitle !== productTitle ? `${productTitle} - ${vTitle}` : productTitle,
      ...(image ? { image } : {}),
      ...(line.parent_id ? { parent_id: line.parent_id } : {}),
      ...(variant.quantity_unit ? { quantity_unit: variant.quantity_unit } : {}),
    });
    if (line.id) usedIds.add(line.id);
  });
  if (issues.length) throw new CartRejected(issues);
  const stock: StockMap = new Map(lines.map((l) => [l.variant_id, unitsAvailable(found.get(l.variant_id)!.variant)]));
  const messages: Message[] = [];
  allotStock(lines.map((l) => ({ variantId: l.variant_id, quantity: l.quantity })), stock).forEach((a, i) => {
    const path = `$.line_items[${i}].quantity`;
    if (a.quantity === 0) issues.push({ path, code: 'out_of_stock', content: say('stock_none', lines[i].title), severity: 'recoverable' });
    else if (a.capped !== undefined) {
      messages.push({ type: 'warning', code: 'out_of_stock', path, content: say('stock_capped', lines[i].title, a.capped, lines[i].quantity) });
      lines[i].quantity = a.quantity;
    }
  });
  if (issues.length) throw new CartRejected(issues);
  let n = 0;
  for (const l of lines) {
    if (!l.id) {
      do n++;
      while (usedIds.has(`li_${n}`));
      l.id = `li_${n}`;
      usedIds.add(l.id);
    }
  }
  const ids = new Set(lines.map((l) => l.id));
  for (const l of lines) if (l.parent_id && (!ids.has(l.parent_id) || l.parent_id === l.id)) delete l.parent_id;
  return { lines, messages, stock };
}

function contextOf(context: CreateCartRequest['context']): Record<string, unknown> {
  return context ? { ...context } : {};
}

export interface WriteResult {
  record: CartRecord;
  /** Request-time warnings (unsupported language/currency, lines capped to stock) to show once, in this response. */
  messages: Message[];
  /** The stock the lines were checked against, for rendering this response without another read. */
  stock: StockMap;
}

export interface CartOptions {
  acceptLanguage?: string;
  now?: Date;
}

/** A new cart, validated and priced (reads only): `createCart` writes it, or an idempotent create does. */
export async function prepareCart(db: Exec, shop: Shop, req: CreateCartRequest, opts: CartOptions = {}): Promise<WriteResult & { now: Date }> {
  const now = opts.now ?? new Date();
  const { locale, notices } = resolveLocale(shop, req.context, opts.acceptLanguage);
  const { lines, messages, stock } = await buildLines(db, shop, req.line_items, locale);
  const codes = req.discounts?.codes ?? [];
  const defs = await findDiscounts(db, shop.id, codes);
  const record: CartRecord = {
    shop_id: shop.id,
    id: newCartId(),
    currency: locale.currency,
    language: locale.language,
    context: contextOf(req.context),
    buyer: req.buyer ?? null,
    line_items: lines,
    discounts: { codes, defs },
    expires_at: new Date(now.getTime() + CART_TTL_MS),
  };
  return { record, messages: [...noticeMessages(notices), ...messages], stock, now };
}

/**
 * The carts row's written columns for a record, serialized once (JSON columns as text): the one
 * shape an INSERT (cartInsert) and an UPDATE (writeUpdate) write.
 */
function cartRow(record: CartRecord, now: Date) {
  return {
    currency: record.currency,
    language: record.language,
    context: JSON.stringify(record.context),
    buyer: record.buyer ? JSON.stringify(record.buyer) : null,
    line_items: JSON.stringify(record.line_items),
    discounts: JSON.stringify(record.discounts),
    updated_at: now,
    expires_at: record.expires_at,
  };
}

type CartColumns = Record<'shop_id' | 'id' | 'currency' | 'language' | 'context' | 'buyer' | 'line_items' | 'discounts' | 'created_at' | 'updated_at' | 'expires_at', ColumnValue>;

/**
 * The carts table's inserter: a create without an idempotency key is coalesced with others
 * arriving together (server/db/coalesced-insert.ts); a keyed create uses its single-row statement.
 */
const newCarts = coalescedInsert<CartColumns>({
  table: 'carts',
  columns: [
    ['shop_id', 'text'], ['id', 'text'], ['currency', 'text'], ['language', 'text'], ['context', 'jsonb'], ['buyer', 'jsonb'],
    ['line_items', 'jsonb'], ['discounts', 'jsonb'], ['created_at', 'timestamptz'], ['updated_at', 'timestamptz'], ['expires_at', 'timestamptz'],
  ],
});

/** A new cart's row: the one place its inserted values are set, for both kinds of create. */
function cartColumns(record: CartRecord, now: Date): CartColumns {
  const row = cartRow(record, now);
  const json = (text: string) => ({ json: text });
  return {
    shop_id: record.shop_id,
    id: record.id,
    currency: row.currency,
    language: row.language,
    context: json(row.context),
    buyer: row.buyer === null ? null : json(row.buyer),
    line_items: json(row.line_items),
    discounts: json(row.discounts),
    created_at: now,
    updated_at: row.updated_at,
    expires_at: row.expires_at,
  };
}

/**
 * The INSERT of a prepared cart as one statement, performed only where `when` holds: the claim of
 * an idempotency key for a keyed create (runIdempotentInsert), so key and cart are one statement.
 */
export function cartInsert(record: CartRecord, now: Date, when?: RawBuilder<boolean>): RawBuilder<unknown> {
  return newCarts.single(cartColumns(record, now), when);
}

/** Writes a prepared cart (a create without an idempotency key); resolves once it is committed. */
export function writeNewCart(db: Exec, record: CartRecord, now: Date): Promise<void> {
  return newCarts(db, cartColumns(record, now));
}

export async function createCart(db: Exec, shop: Shop, req: CreateCartRequest, opts: CartOptions = {}): Promise<WriteResult> {
  const { record, messages, stock, now } = await prepareCart(db, shop, req, opts);
  await writeNewCart(db, record, now);
  return { record, messages, stock };
}

/** A live (unexpired) cart of this shop, or null. `forUpdate` locks the row for the transaction. */
export async function findCart(db: Exec, shop: Shop, id: string, opts: { now?: Date; forUpdate?: boolean } = {}): Promise<CartRecord | null> {
  // No cart id holds U+0000, and PostgreSQL rejects it in a text parameter (PGlite does not).
  if (id.includes('\u0000')) return null;
  let q = db
    .selectFrom('carts')
    .select(['shop_id', 'id', 'currency', 'language', 'context', 'buyer', 'line_items', 'discounts', 'expires_at', 'version'])
    .where('shop_id', '=', shop.id)
    .where('id', '=', id)
    .where('expires_at', '>', opts.now ?? new Date());
  if (opts.forUpdate) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) return null;
  return {
    ...row,
    context: (row.context ?? {}) as Record<string, unknown>,
    buyer: (row.buyer ?? null) as Record<string, unknown> | null,
    line_items: row.line_items as StoredCartLine[],
    discounts: row.discounts as StoredCartDiscounts,
    expires_at: new Date(row.expires_at),
  };
}

/** The replacement of the live cart `old` (reads only; nothing is written). */
async function prepareUpdate(db: Exec, shop: Shop, old: CartRecord, req: UpdateCartRequest, opts: CartOptions, now: Date): Promise<WriteResult> {
  const merged = { ...old.context, ...contextOf(req.context) } as RequestContext;
  const { locale, notices } = resolveLocale(shop, { ...merged, language: merged.language ?? old.language, currency: merged.currency ?? old.currency }, opts.acceptLanguage);
  const { lines, messages, stock } = await buildLines(db, shop, req.line_items, locale);
  const discounts = req.discounts?.codes
    ? { codes: req.discounts.codes, defs: await findDiscounts(db, shop.id, req.discounts.codes) }
    : old.discounts;
  const record: CartRecord = {
    ...old,
    currency: locale.currency,
    language: locale.language,
    context: merged as Record<string, unknown>,
    buyer: req.buyer ?? old.buyer,
    line_items: lines,
    discounts,
    expires_at: new Date(now.getTime() + CART_TTL_MS),
  };
  return { record, messages: [...noticeMessages(notices), ...messages], stock };
}

/** Writes a prepared update; with `expectVersion`, only if nobody has written the cart since (false: someone did). */
async function writeUpdate(db: Exec, shop: Shop, record: CartRecord, now: Date, expectVersion?: number): Promise<boolean> {
  let q = db
    .updateTable('carts')
    .set({ ...cartRow(record, now), version: sql`version + 1` })
    .where('shop_id', '=', shop.id)
    .where('id', '=', record.id);
  if (expectVersion !== undefined) q = q.where('version', '=', expectVersion);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Full replacement of the lines; context fields merge over the stored ones; discount codes replace
 * when sent. Run it in a transaction: the row is locked from the read to the commit.
 */
export async function updateCart(db: Exec, shop: Shop, id: string, req: UpdateCartRequest, opts: CartOptions = {}): Promise<WriteResult | null> {
  const now = opts.now ?? new Date();
  const old = await findCart(db, shop, id, { now, forUpdate: true });
  if (!old) return null;
  const r = await prepareUpdate(db, shop, old, req, opts, now);
  await writeUpdate(db, shop, r.record, now);
  return r;
}

/**
 * The same update without holding a transaction (the path of updates without an idempotency key):
 * read, prepare, then one UPDATE that applies only if the cart's version is still the one read. A
 * concurrent write in between makes it start again from a fresh read, so writes still serialize
 * (the last to commit wins, never a mix); after 3 lost races it takes the locking form.
 */
export async function updateCartUnlocked(db: Exec, shop: Shop, id: string, req: UpdateCartRequest, opts: CartOptions = {}): Promise<WriteResult | null> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = opts.now ?? new Date();
    const old = await findCart(db, shop, id, { now });
    if (!old) return null;
    const r = await prepareUpdate(db, shop, old, req, opts, now);
    if (await writeUpdate(db, shop, r.record, now, old.version)) return r;
  }
  return db.transaction().execute((tx) => updateCart(tx, shop, id, req, opts));
}

/** Clears the lines (the seed's rule); returns the cart as it stood before (UCP's rule). */
export async function cancelCart(db: Exec, shop: Shop, id: string, opts: { now?: Date } = {}): Promise<CartRecord | null> {
  const now = opts.now ?? new Date();
  const old = await findCart(db, shop, id, { now, forUpdate: true });
  if (!old) return null;
  await db
    .updateTable('carts')
    .set({ line_items: '[]', updated_at: now, version: sql`version + 1` })
    .where('shop_id', '=', shop.id)
    .where('id', '=', id)
    .execute();
  return old;
}

/** Deletes carts past their expiry. Returns how many. */
export async function purgeExpiredCarts(db: Exec, now = new Date()): Promise<number> {
  const r = await db.deleteFrom('carts').where('expires_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0);
}

/**
 * Background job: every `intervalMs`, deletes expired carts and idempotency keys past retention.
 * The timer is unref()'d; call the returned function to stop it (server close()).
 */
export function startCartPurge(db: Exec, intervalMs = 10 * 60 * 1000): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    Promise.all([purgeExpiredCarts(db), purgeIdempotencyKeys(db)])
      .catch((e) => log.error('carts', 'purge failed', { err: e }))
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

function absolute(url: string, origin: string): string {
  return /^https?:\/\//.test(url) ? url : `${origin}${url.startsWith('/') ? '' : '/'}${url}`;
}


/**
 * The lines as stock allows now (core/products/stock.ts): a line above what is left shows what is left, with
 * an `out_of_stock` warning at its quantity; a line with nothing left keeps its quantity and gets an
 * `out_of_stock` error (recoverable: lower or remove it), and the cart cannot be handed to checkout.
 */
export function linesInStock(record: CartRecord, stock: StockMap, say: ReturnType<typeof wordsFor>): { lines: StoredCartLine[]; messages: Message[] } {
  const messages: Message[] = [];
  const allotted = allotStock(record.line_items.map((l) => ({ variantId: l.variant_id, quantity: l.quantity })), stock);
  const lines = record.line_items.map((l, i) => {
    const a = allotted[i];
    if (a.quantity === 0) {
      messages.push({ type: 'error', code: 'out_of_stock', path: `$.line_items[${i}]`, content: say('stock_none', l.title), severity: 'recoverable' });
      return l;
    }
    if (a.capped === undefined) return l;
    messages.push({ type: 'warning', code: 'out_of_stock', path: `$.line_items[${i}].quantity`, content: say('stock_capped', l.title, a.capped, l.quantity) });
    return { ...l, quantity: a.quantity };
  });
  return { lines, messages };
}

/** True when a rendered cart has a line with nothing left in stock (it cannot go to checkout). */
export function hasOutOfStockLine(messages: readonly Message[] | undefined): boolean {
  return (messages ?? []).some((m) => m.type === 'error' && m.code === 'out_of_stock');
}

/**
 * The cart body (everything but the `ucp` block), priced now in the cart's currency. With `stock`
 * (the variants' units available now), lines are checked against it (linesInStock).
 */
export function renderCart(record: CartRecord, shop: Shop, origin: string, extraMessages: Message[] = [], now = new Date(), stock?: StockMap): Omit<Cart, 'ucp'> {
  const ctx = record.context as RequestContext;
  const { locale } = resolveLocale(shop, { ...ctx, language: record.language, currency: record.currency });
  const cur = locale.currency;
  const say = wordsFor(locale.language);
  const checked = stock ? linesInStock(record, stock, say) : { lines: record.line_items, messages: [] };
  const stored = checked.lines;
  const toCart = (amount: number) => convert(amount, locale.rates, cur);
  const unitPrices = stored.map((l) => toCart(l.unit_price));
  const itemsSubtotal = stored.reduce((s, l, i) => s + unitPrices[i] * l.quantity, 0);

  const evaluation = evaluateCodes(record.discounts.codes, record.discounts.defs, itemsSubtotal, (d) => toCart(d.min_subtotal ?? 0), (amount) => formatMoney(amount, cur, locale.language), now, say);
  const taxBps = taxRateBps(shop.settings.tax, locale.country, locale.region);
  const priced = priceCart(
    stored.map((l, i) => ({ unitPrice: unitPrices[i], quantity: l.quantity })),
    evaluation.accepted.map(({ def }) => ({ kind: def.kind, value: def.kind === 'percentage' ? def.value : toCart(def.value) })),
    taxBps,
  );

  const line_items: LineItem[] = stored.map((l, i) => {
    const p = priced.lines[i];
    const totals: Total[] = [{ type: 'subtotal', amount: p.subtotal }];
    if (p.discount > 0) totals.push({ type: 'items_discount', amount: -p.discount, display_text: say('discount') });
    totals.push({ type: 'total', amount: p.total });
    return {
      id: l.id,
      item: {
        id: l.variant_id,
        title: l.title,
        price: p.unitPrice,
        ...(l.image ? { image_url: absolute(l.image, origin) } : {}),
        // Stored from the variant at write time; a UCP 2026-08-25 field (server/ucp/versions.ts).
        ...(l.quantity_unit ? { quantity_unit: renderQuantityUnit(l.quantity_unit, { locale, origin, defaultLanguage: shop.settings.default_language }) } : {}),
      },
      quantity: l.quantity,
      ...(l.customizations.length ? { customizations: l.customizations } : {}),
      totals,
      ...(l.parent_id ? { parent_id: l.parent_id } : {}),
    };
  });

  const applied: AppliedDiscount[] = [];
  evaluation.accepted.forEach(({ def }, k) => {
    const d = priced.discounts[k];
    if (d.amount <= 0) return;
    applied.push({
      code: def.code,
      title: text(def.title, locale.language, shop.settings.default_language),
      amount: d.amount,
      automatic: false,
      method: 'across',
      priority: k + 1,
      allocations: d.allocations.flatMap((amount, i) => (amount > 0 ? [{ path: `$.line_items[${i}]`, amount }] : [])),
    });
  });

  const totals: Total[] = [{ type: 'subtotal', amount: priced.subtotal }];
  if (priced.discount > 0) totals.push({ type: 'items_discount', amount: -priced.discount, display_text: say('discounts') });
  if (taxBps > 0) totals.push({ type: 'tax', amount: priced.tax, display_text: say('tax') });
  totals.push({ type: 'total', amount: priced.total });

  const messages = [...extraMessages, ...checked.messages, ...evaluation.messages];
  return {
    id: record.id,
    currency: cur,
    line_items,
    totals,
    ...(Object.keys(record.context).length ? { context: record.context } : {}),
    ...(record.buyer ? { buyer: record.buyer } : {}),
    discounts: { codes: record.discounts.codes, applied },
    ...(messages.length ? { messages } : {}),
    continue_url: `${origin}/cart/${record.id}`,
    expires_at: record.expires_at.toISOString(),
  };
}
