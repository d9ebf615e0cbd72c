// @vitest-environment happy-dom
/**
 * What a shopper reads and does in host.js's widgets (issue 28's rough edges), against a stubbed
 * shop: availability in words, capped quantities said, a single variant named once, the variant
 * select labelled by option names; the cart's lines before discounts, applied codes with remove,
 * grouped extras, the announced quantity the cart holds, and the shop's own currency re-pricing.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineElements } from '../src/host/elements.tsx';

afterEach(() => {
  document.body.innerHTML = '';
  vi.unstubAllGlobals();
  localStorage.clear();
});

type Handler = (method: string, path: string, body: any) => unknown;
/** The shop's transport: answers what `handler` returns, and records every request. */
function serve(handler: Handler) {
  const seen: Array<{ method: string; path: string; body: any }> = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    const path = new URL(url).pathname.replace(/^\/api\/ucp/, '');
    const body = init.body ? JSON.parse(String(init.body)) : undefined;
    seen.push({ method, path, body });
    const out = handler(method, path, body);
    return new Response(JSON.stringify({ ucp: { version: '2026-04-08' }, ...(out as object) }), { status: 200, headers: { 'content-type': 'application/json' } });
  });
  return seen;
}

const price = (amount: number) => ({ amount, currency: 'USD' });
const variant = (id: string, title: string, over: Record<string, unknown> = {}) => ({
  id, title, description: { plain: '' }, price: price(2000), availability: { available: true, status: 'in_stock' }, ...over,
});
const productOf = (variants: unknown[], over: Record<string, unknown> = {}) => ({
  product: { id: 'prod_x', handle: 'x', title: 'Brass Padlock', description: { plain: '' }, url: '', categories: [], price_range: { min: price(2000), max: price(2000) }, variants, ...over },
});

let shops = 0;
/** A widget on a fresh shop origin (one store per origin); `cart`: the cart id the page remembers. */
async function element(tag: 'ucp-product' | 'ucp-cart', attrs: Record<string, string> = {}, cart?: string) {
  defineElements();
  const el = document.createElement(tag);
  el.setAttribute('shop', `http://shopper${++shops}.test`);
  if (cart) localStorage.setItem(`ucp:cart:${el.getAttribute('shop')}`, cart);
  if (tag === 'ucp-product') el.setAttribute('product-id', 'prod_x');
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  document.body.append(el);
  return { el, root: el.shadowRoot! };
}
const cartOf = (over: Record<string, unknown> = {}) => ({
  id: 'c_1', currency: 'USD', continue_url: 'http://shop/cart/c_1', expires_at: '',
  line_items: [{ id: 'li_1', item: { id: 'var_a', title: 'Flask', price: 5244 }, quantity: 2, totals: [{ type: 'subtotal', amount: 10488 }, { type: 'items_discount', amount: -1356 }, { type: 'total', amount: 9132 }] }],
  totals: [{ type: 'subtotal', amount: 10488 }, { type: 'items_discount', amount: -1356 }, { type: 'total', amount: 9132 }],
  discounts: { codes: ['WELCOME10', 'SAVE5'], applied: [{ code: 'WELCOME10', title: '10% off', amount: 1049 }, { code: 'SAVE5', title: '$5 off', amount: 307 }] },
  ...over,
});

describe('<ucp-product>', () => {
  it('says out of stock in words (no "Quantity 0"), and pre-order / backorder for items that are not on the shelf', async () => {
    serve(() => productOf([variant('v_a', 'A', { availability: { available: false, status: 'out_of_stock' }, metadata: { quantity_available: 0 } })]));
    const { root } = await element('ucp-product');
    await vi.waitFor(() => expect(root.querySelector('[part=availability]')?.textContent).toBe('Out of stock'));
    const qty = root.querySelector<HTMLInputElement>('input.qty')!;
    expect(qty.value).toBe('1');
    expect(qty.disabled).toBe(true);
    expect(root.querySelector<HTMLButtonElement>('[part~=add]')!.disabled).toBe(true);
    for (const [status, words] of [['preorder', 'Pre-order: ships when released'], ['backorder', 'Backorder: ships when back in stock']]) {
      serve(() => productOf([variant('v_a', 'A', { availability: { available: true, status } })]));
      const { root: r } = await element('ucp-product');
      await vi.waitFor(() => expect(r.querySelector('[part=availability]')?.textContent).toBe(words));
      expect(r.querySelector<HTMLButtonElement>('[part~=add]')!.disabled).toBe(false);
    }
    serve(() => productOf([variant('v_a', 'A')]));
    const { root: plain } = await element('ucp-product');
    await vi.waitFor(() => expect(plain.querySelector('[part~=add]')).not.toBeNull());
    expect(plain.querySelector('[part=availability]')).toBeNull();
  });

  it('labels the variant select by the product\'s option names', async () => {
    serve(() => productOf([variant('v_a', 'S / Navy'), variant('v_b', 'M / Navy')], { options: [{ name: 'Size', values: [] }, { name: 'Color', values: [] }] }));
    const { root } = await element('ucp-product');
    await vi.waitFor(() => expect(root.querySelector('select')).not.toBeNull());
    expect(root.querySelector(`label[for="${root.querySelector('select')!.id}"]`)!.textContent).toBe('Size / Color');
  });

  it('several options every variant names: a choice per option, and the variant with every chosen value is added', async () => {
    const opt = (size: string, color: string) => ({ options: [{ name: 'Size', label: size, id: size.toLowerCase() }, { name: 'Color', label: color, id: color.toLowerCase() }] });
    const seen = serve((method, path) =>
      path.startsWith('/catalog')
        ? productOf([variant('v_s_navy', 'S / Navy', opt('S', 'Navy')), variant('v_l_white', 'L / White', opt('L', 'White')), variant('v_l_navy', 'L / Navy', { ...opt('L', 'Navy'), availability: { available: false, status: 'out_of_stock' } })], {
            options: [{ name: 'Size', values: [{ id: 's', label: 'S' }, { id: 'l', label: 'L' }] }, { name: 'Color', values: [{ id: 'navy', label: 'Navy' }, { id: 'white', label: 'White' }] }],
          })
        : cartOf(),
    );
    const { root } = await element('ucp-product');
    await vi.waitFor(() => expect(root.querySelectorAll('select[part=option]')).toHaveLength(2));
    const [size, color] = [...root.querySelectorAll<HTMLSelectElement>('select[part=option]')];
    expect(root.querySelector(`label[for="${size.id}"]`)!.textContent).toBe('Size');
    expect(root.querySelector(`label[for="${color.id}"]`)!.textContent).toBe('Color');
    size.value = 'l';
    size.dispatchEvent(new Event('change'));
    // L with the chosen Navy cannot be bought: said on its option.
    await vi.waitFor(() => expect(root.querySelector<HTMLSelectElement>('select[part=option]')!.value).toBe('l'));
    expect([...root.querySelectorAll<HTMLSelectElement>('select[part=option]')[1].options].map((o) => o.textContent)).toEqual(['Navy (unavailable)', 'White']);
    const c = root.querySelectorAll<HTMLSelectElement>('select[part=option]')[1];
    c.value = 'white';
    c.dispatchEvent(new Event('change'));
    await vi.waitFor(() => expect(root.querySelectorAll<HTMLSelectElement>('select[part=option]')[1].value).toBe('white'));
    root.querySelector<HTMLFormElement>('form')!.dispatchEvent(new Event('submit', { cancelable: true }));
    await vi.waitFor(() => expect(seen.some((r) => r.method === 'POST' && r.path === '/carts')).toBe(true));
    expect(seen.find((r) => r.method === 'POST' && r.path === '/carts')!.body.line_items[0].item.id).toBe('v_l_white');
  });

  it('a single variant is named once; more than the stock left is added as what is left, and said', async () => {
    const seen = serve((method, path, body) =>
      path.startsWith('/catalog') ? productOf([variant('v_a', 'Brass Padlock', { metadata: { quantity_available: 2 } })]) : cartOf({ line_items: [{ ...cartOf().line_items[0], quantity: body.line_items[0].quantity }] }),
    );
    const { root } = await element('ucp-product');
    await vi.waitFor(() => expect(root.querySelector('input.qty')).not.toBeNull());
    const qty = root.querySelector<HTMLInputElement>('input.qty')!;
    qty.value = '50';
    qty.dispatchEvent(new Event('input'));
    await vi.waitFor(() => expect(root.querySelector<HTMLInputElement>('input.qty')!.value).toBe('50'));
    root.querySelector<HTMLFormElement>('form')!.dispatchEvent(new Event('submit', { cancelable: true }));
    await vi.waitFor(() => expect(root.querySelector('[part=status]')!.textContent).toBe('Added Brass Padlock to the cart. Only 2 left: 2 added.'));
    expect(seen.find((r) => r.method === 'POST' && r.path === '/carts')!.body.line_items[0].quantity).toBe(2);
  });
});

describe('<ucp-cart>', () => {
  async function openCart(handler: Handler, attrs: Record<string, string> = {}) {
    const seen = serve(handler);
    const { root } = await element('ucp-cart', attrs, 'c_1');
    // (Generous waits: the body is a dynamically imported chunk, transformed on first use under vitest.)
    await vi.waitFor(() => expect(root.querySelector('[part~=open]')!.textContent).toMatch(/\([1-9]\d*\)/), { timeout: 5000 });
    root.querySelector<HTMLButtonElement>('[part~=open]')!.click();
    await vi.waitFor(() => expect(root.querySelector('[part=lines]')).not.toBeNull(), { timeout: 5000 });
    return { seen, root };
  }

  it('lines show their amount before discounts (2 × $52.44 = $104.88), adding up to the Subtotal', async () => {
    const { root } = await openCart(() => cartOf());
    expect(root.querySelector('[part=line] > .p')!.textContent).toBe('$104.88');
    expect(root.querySelector('[data-total=subtotal]')!.textContent).toBe('$104.88');
    expect(root.querySelector('[data-total=items_discount]')!.textContent).toBe('-$13.56');
    expect(root.querySelector('[data-total=total]')!.textContent).toBe('$91.32');
  });

  it('lists the applied codes, each with a Remove button that drops only that code', async () => {
    const { root, seen } = await openCart((method, _p, body) => (method === 'PUT' ? cartOf({ discounts: { codes: body.discounts.codes, applied: [] } }) : cartOf()));
    const items = [...root.querySelectorAll('[part=codes] li')];
    expect(items.map((li) => li.querySelector('span')!.textContent)).toEqual(['WELCOME10 10% off (-$10.49)', 'SAVE5 $5 off (-$3.07)']);
    const remove = items[0].querySelector<HTMLButtonElement>('[part=remove-code]')!;
    expect(remove.getAttribute('aria-label')).toBe('Remove code WELCOME10');
    remove.click();
    await vi.waitFor(() => expect(seen.some((r) => r.method === 'PUT')).toBe(true));
    expect(seen.find((r) => r.method === 'PUT')!.body.discounts.codes).toEqual(['SAVE5']);
    await vi.waitFor(() => expect([...root.querySelectorAll('[part=codes] li b')].map((b) => b.textContent)).toEqual(['SAVE5']));
  });

  it('groups a field\'s choices: "Extras: Greeting card, Ribbon"', async () => {
    const line = { ...cartOf().line_items[0], customizations: [{ id: 'engraving', value: 'Sam', display_text: 'Engraving: Sam' }, { id: 'extras', value: 'card', display_text: 'Extras: Greeting card' }, { id: 'extras', value: 'ribbon', display_text: 'Extras: Ribbon' }] };
    const { root } = await openCart(() => cartOf({ line_items: [line] }));
    expect(root.querySelector('[part=line] .m')!.textContent).toBe('Engraving: Sam; Extras: Greeting card, Ribbon');
  });

  it('announces the quantity the cart now holds (capped to stock), with the reason', async () => {
    const capped = cartOf({
      line_items: [{ ...cartOf().line_items[0], quantity: 7 }],
      messages: [{ type: 'warning', code: 'out_of_stock', path: '$.line_items[0].quantity', content: 'Only 7 of Flask left: quantity set to 7.' }],
    });
    const { root } = await openCart((method) => (method === 'PUT' ? capped : cartOf()));
    const input = root.querySelector<HTMLInputElement>('[part=line] input[type=number]')!;
    input.value = '500';
    input.dispatchEvent(new Event('change'));
    await vi.waitFor(() => expect(root.querySelector('[aria-live=polite]')!.textContent).toContain('Quantity of Flask: 7.'));
    expect(root.querySelector('[aria-live=polite]')!.textContent).toContain('Only 7 of Flask left');
    expect(root.querySelector('[aria-live=polite]')!.textContent).not.toContain('500');
  });

  it('the shop\'s own currency named again re-prices a cart left in another one', async () => {
    const seen = serve((method, _p, body) => (method === 'PUT' ? cartOf({ currency: body.context.currency }) : cartOf({ currency: 'EUR' })));
    await element('ucp-cart', { currency: 'USD' }, 'c_1');
    await vi.waitFor(() => expect(seen.some((r) => r.method === 'PUT')).toBe(true));
    expect(seen.find((r) => r.method === 'PUT')!.body.context.currency).toBe('USD');
  });
});
