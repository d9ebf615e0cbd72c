/**
 * What each WebMCP tool does in the page (docs/webmcp.md). Everything goes through the page's own
 * store and REST client (src/state, src/client), so an agent's change is the shopper's cart
 * changing: the page re-renders it, `<ucp-cart>` fires `ucp:cart:change`, the live region announces
 * it; and the shopper's own changes are what the agent reads next. The server validates arguments
 * (same zod wire schemas as REST and MCP); results are shaped in ./results.ts.
 */
import type { Store } from '../state/store.ts';
import type { fieldErrors, linesOf, UcpClient } from '../client/api.ts';
import type { PickerKit } from '../views/customize.tsx';
import type { money } from '../state/store.ts';
import type { Cart, LineItemInput } from '../wire/cart.ts';
import type { Message } from '../wire/common.ts';
import { fromRest, invalid, outcome, result, type ToolResult } from './results.ts';
import { askShopper, words } from './confirm.ts';

/** What the entry hands the chunk (a chunk never imports the entry, docs/host-js.md). */
export interface Deps {
  store: Store;
  fieldErrors: typeof fieldErrors;
  fieldText: PickerKit['fieldText'];
  money: typeof money;
  linesOf: typeof linesOf;
  adoptStyles: (root: ShadowRoot) => void;
}

type Args = Record<string, any>;
/** The agent's side of a call: Chromium passes `{signal}`; the draft adds `requestUserInteraction`. */
export interface ToolClient {
  signal?: AbortSignal;
  requestUserInteraction?(ask: () => Promise<boolean>): Promise<unknown>;
}
export type Handler = (args: Args, client: ToolClient) => Promise<ToolResult>;

/** How long begin_checkout waits, after answering, before the page leaves for checkout. */
const LEAVE_AFTER_MS = 300;

const isObj = (x: unknown): x is Args => typeof x === 'object' && x !== null && !Array.isArray(x);
/** `$.line_items[j]…` → `$.line_items[map(j)]…` (map: the request's line index → the agent's). */
const relines = (map: Map<number, number>) => (p: string) => p.replace(/^\$\.line_items\[(\d+)\]/, (m, j) => (map.has(+j) ? `$.line_items[${map.get(+j)}]` : m));

const lang = (d: Deps) => d.store.lang.value;
/**
 * The store's client, its requests labelled `webmcp` so the development request inspector tells an
 * in-page agent's calls from the shopper's own (docs/sandbox.md). Loads and product reads the page
 * shares with the widget go through the store's own client and read as the page's.
 */
const agents = new WeakMap<Store, UcpClient>();
const agent = ({ store }: Deps) => {
  let c = agents.get(store);
  if (!c) agents.set(store, (c = store.client.labelled('webmcp')));
  return c;
};
/** The page's language and currency, overridden by what the agent passed (a non-object is sent as is, for the server to refuse). */
const context = (d: Deps, c: unknown) => (c === undefined ? d.store.context() : isObj(c) ? { ...d.store.context(), ...c } : c);
const total = (d: Deps, cart: Cart) => {
  const t = cart.totals.find((x) => x.type === 'total');
  return t ? d.money(t.amount, cart.currency, lang(d)) : '';
};

/** The catalog tools: the agent's `catalog` object, in the page's language and currency unless it says otherwise. */
const catalog = (d: Deps, op: string): Handler => async (a) => {
  const c = a.catalog;
  return fromRest(await agent(d).call('POST', `/catalog/${op}`, isObj(c) ? { ...c, context: context(d, c.context) } : (c ?? null)), '$.catalog');
};

/** The shopper's cart (loaded), or the refusal of an `id` naming another cart. */
async function mine({ store }: Deps, a: Args): Promise<{ cart: Cart | null } | { refused: ToolResult }> {
  await store.load();
  const cart = store.cart.value;
  if (a.id === undefined || a.id === cart?.id) return { cart };
  if (typeof a.id !== 'string') return { refused: invalid('$.id', 'id must be the shopper\'s cart id (a string), or left out.') };
  return { refused: outcome('not_found', `The tools on this page act on the shopper's cart only${cart ? ` ('${cart.id}')` : ' (there is none yet)'}; leave \`id\` out.`) };
}

/** The widget's own wording of customization errors, per field, for the agent's lines. */
async function fieldNotes(d: Deps, messages: Message[], lines: LineItemInput[], map: Map<number, number>): Promise<string[]> {
  const out: string[] = [];
  for (const [j, i] of map) {
    const line = lines[j];
    if (!messages.some((m) => m.path?.startsWith(`$.line_items[${j}].customizations`))) continue;
    const id = line.item.id;
    const p = await d.store.product(id);
    const defs = (p.ok ? p.data.variants.find((v) => v.id === id) : undefined)?.metadata?.customizations ?? [];
    const errs = d.fieldErrors(messages, j, line.customizations, (m, c) => d.fieldText(lang(d), m, defs.find((x) => x.id === c)));
    for (const [c, text] of Object.entries(errs)) {
      const def = defs.find((x) => x.id === c);
      out.push(`$.cart.line_items[${i}]${c ? `.customizations '${c}'${def ? ` (${def.label})` : ''}` : ''}: ${text}`);
    }
  }
  return out.length ? [`As the page words it for the shopper: ${out.join(' | ')}`] : [];
}

/** One write of the shopper's cart with the agent's lines (map: request line → agent line). */
async function write(d: Deps, a: Args, lines: LineItemInput[], map: Map<number, number>): Promise<ToolResult> {
  const { store } = d;
  const { line_items: _l, ...rest } = a;
  const before = store.error.value;
  const had = new Set(store.cart.value?.discounts?.applied.map((x) => x.code?.toUpperCase()));
  const r = await store.commit(lines, undefined, { ...rest, context: context(d, a.context) }, agent(d));
  // The agent's invalid request is not a problem of the shopper's cart: keep the cart's own message line.
  if (!r.ok && r.status >= 400 && r.status < 500) store.error.value = before;
  // The shopper hears which codes the agent applied, by name and title (the cart lists them too).
  const added = r.ok ? (r.data.discounts?.applied ?? []).filter((x) => x.code && !had.has(x.code.toUpperCase())).map((x) => `${x.code} (${x.title})`) : [];
  if (r.ok) store.announce(words(lang(d)).changed(total(d, r.data), added));
  const res = fromRest(r, '$.cart', relines(map));
  if (!r.ok && r.status === 200 && Array.isArray(lines)) res.content.push(...(await fieldNotes(d, r.messages, lines, map).catch(() => []).then((n) => n.map((text) => ({ type: 'text' as const, text })))));
  return res;
}

/** Asks the shopper, through the agent's client when it offers that (WebMCP draft), else directly. */
async function ask(d: Deps, kind: 'checkout' | 'cancel', cart: Cart, client: ToolClient): Promise<boolean> {
  const n = cart.line_items.reduce((s, l) => s + l.quantity, 0);
  const run = () => askShopper(kind, lang(d), words(lang(d)).items(n, total(d, cart)), d.adoptStyles, client.signal);
  return (await (client.requestUserInteraction ? client.requestUserInteraction(run) : run())) === true;
}
const declined = () => outcome('declined', 'The shopper declined. Nothing was changed; ask them before trying again.', 'forbidden');

/** create_cart: the agent's lines go into the shopper's cart (there is one cart per page). */
async function createCart(d: Deps, a: Args): Promise<ToolResult> {
  const c = a.cart;
  if (!isObj(c)) return invalid('$.cart', 'cart must be an object: {line_items: [{item: {id}, quantity, customizations?}], ...}.');
  await d.store.load();
  const lines = d.linesOf(d.store.cart.value);
  const map = new Map<number, number>();
  if (!Array.isArray(c.line_items)) return write(d, c, c.line_items, map);
  // Into the shopper's cart: a line like one already there (variant + customizations) adds to it, as the widget's Add does.
  const key = (l: any) => JSON.stringify([l?.item?.id, l?.customizations ?? []]);
  c.line_items.forEach((l: any, i: number) => {
    let j = lines.findIndex((x) => key(x) === key(l));
    if (j >= 0 && Number.isInteger(l?.quantity)) lines[j] = { ...lines[j], quantity: lines[j].quantity + l.quantity };
    else j = lines.push(l) - 1;
    map.set(j, i);
  });
  return write(d, c, lines, map);
}

async function updateCart(d: Deps, a: Args): Promise<ToolResult> {
  const m = await mine(d, a);
  if ('refused' in m) return m.refused;
  const c = a.cart;
  if (!isObj(c)) return invalid('$.cart', 'cart must be an object: {line_items: [...every line to keep], ...}.');
  const lines = c.line_items;
  return write(d, c, lines, new Map(Array.isArray(lines) ? lines.map((_: unknown, i: number) => [i, i]) : []));
}

async function getCart(d: Deps, a: Args): Promise<ToolResult> {
  const { store } = d;
  const m = await mine(d, a);
  if ('refused' in m) return m.refused;
  if (!m.cart) return outcome('not_found', 'The shopper has no cart yet; create_cart starts one.');
  const r = await agent(d).getCart(m.cart.id);
  // Up to date for the page too (another tab may have changed it); an unchanged cart is not a change.
  if (r.ok && JSON.stringify(r.data) !== JSON.stringify(store.cart.value)) store.cart.value = r.data;
  return fromRest(r, '$');
}

async function cancelCart(d: Deps, a: Args, client: ToolClient): Promise<ToolResult> {
  const { store } = d;
  const m = await mine(d, a);
  if ('refused' in m) return m.refused;
  const cart = m.cart;
  if (!cart) return outcome('not_found', 'The shopper has no cart.');
  if (!(await ask(d, 'cancel', cart, client))) return declined();
  const r = await agent(d).call<Cart>('POST', `/carts/${encodeURIComponent(cart.id)}/cancel`);
  if (r.ok) {
    store.cart.value = null;
    store.remember(null);
    store.announce(words(lang(d)).canceled);
  }
  return fromRest(r, '$');
}

async function beginCheckout(d: Deps, a: Args, client: ToolClient): Promise<ToolResult> {
  const m = await mine(d, a);
  if ('refused' in m) return m.refused;
  const cart = m.cart;
  if (!cart?.line_items.length) return outcome('not_found', 'The shopper\'s cart is empty: there is nothing to check out (create_cart first).');
  if (!(await ask(d, 'checkout', cart, client))) return declined();
  // After this result has gone back to the agent: the page leaves, exactly as the Checkout button
  // makes it. Not at once: an agent reading results through the browser (CDP, an extension) takes
  // a second round trip, and a page gone first lost it ("execution context destroyed", seen in CI).
  setTimeout(() => d.store.checkout(), LEAVE_AFTER_MS);
  return result(cart, false);
}

/** Each tool's handler, over the page's store and the widget's helpers the entry handed over. */
export function handlers(d: Deps): Record<string, Handler> {
  return {
    search_catalog: catalog(d, 'search'),
    lookup_catalog: catalog(d, 'lookup'),
    get_product: catalog(d, 'product'),
    create_cart: (a) => createCart(d, a),
    update_cart: (a) => updateCart(d, a),
    get_cart: (a) => getCart(d, a),
    cancel_cart: (a, client) => cancelCart(d, a, client),
    begin_checkout: (a, client) => beginCheckout(d, a, client),
  };
}
