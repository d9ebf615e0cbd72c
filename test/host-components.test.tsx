// @vitest-environment happy-dom
/**
 * host.js components and mode selection in happy-dom: the customization picker (counters,
 * required markers, price modifiers, min/max), error mapping from the server's message paths,
 * the product widget's add flow against a stubbed fetch, and the cart dialog.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { fieldErrors, linesOf } from '../src/client/api.ts';
import { entries, modifiers, Picker } from '../src/views/customize.tsx';
import { money, Store } from '../src/state/store.ts';
import { allowedHosts, selectMode } from '../src/host/mode.ts';
import type { CustomizationDef } from '../src/wire/catalog.ts';

const DEFS: CustomizationDef[] = [
  { id: 'engraving', type: 'text', label: 'Engraving', required: true, min_length: 1, max_length: 20 },
  {
    id: 'gift_box', type: 'single_select', label: 'Gift box', required: true,
    options: [{ id: 'none', label: 'No box' }, { id: 'kraft', label: 'Kraft box', price_modifier: { amount: 300, currency: 'USD' } }],
  },
  {
    id: 'extras', type: 'multi_select', label: 'Extras', required: false, min_selections: 1, max_selections: 2,
    options: [
      { id: 'card', label: 'Card', price_modifier: { amount: 250, currency: 'USD' } },
      { id: 'ribbon', label: 'Ribbon', price_modifier: { amount: 150, currency: 'USD' } },
      { id: 'funnel', label: 'Funnel', price_modifier: { amount: 400, currency: 'USD' } },
    ],
  },
];

afterEach(() => {
  document.body.innerHTML = '';
  vi.unstubAllGlobals();
});

describe('mode selection', () => {
  it('ep_version or ec_version ⇒ embedded, else widget', () => {
    expect(selectMode({ search: '?ep_version=2026-04-08' })).toBe('embedded');
    expect(selectMode({ search: '?x=1&ec_version=2026-04-08' })).toBe('embedded');
    expect(selectMode({ search: '' })).toBe('widget');
    expect(selectMode({ search: '?version=2026-04-08' })).toBe('widget');
  });
  it('reads allowed hosts from the cart element', () => {
    const el = document.createElement('ucp-cart');
    el.setAttribute('allowed-hosts', ' http://agent.localhost:*  https://a.example ');
    expect(allowedHosts(el)).toEqual(['http://agent.localhost:*', 'https://a.example']);
    expect(allowedHosts(document.createElement('ucp-cart'))).toEqual([]);
  });
});

describe('customization entries and errors', () => {
  it('builds one entry per multi_select choice and sums modifiers', () => {
    const values = { engraving: 'Hi', gift_box: 'kraft', extras: ['card', 'ribbon'] };
    expect(entries(DEFS, values)).toEqual([
      { id: 'engraving', value: 'Hi' },
      { id: 'gift_box', value: 'kraft' },
      { id: 'extras', value: 'card' },
      { id: 'extras', value: 'ribbon' },
    ]);
    expect(modifiers(DEFS, values)).toBe(700);
    expect(entries(DEFS, { engraving: '' })).toEqual([]);
  });

  it('maps message paths back to customization ids', () => {
    const sent = [{ id: 'gift_box' }, { id: 'extras' }, { id: 'extras' }, { id: 'extras' }];
    const errs = fieldErrors(
      [
        { type: 'error', path: '$.line_items[1].customizations', content: "'engraving' (Engraving) is required." },
        { type: 'error', path: '$.line_items[1].customizations[3]', content: 'at most 2' },
        { type: 'error', path: '$.line_items[1].customizations[0].value', content: 'bad option' },
        { type: 'error', path: '$.line_items[0].customizations[0].value', content: 'other line' },
        { type: 'warning', path: '$.line_items[1].customizations[0].value', content: 'not an error' },
        { type: 'error', path: '$.line_items[1].quantity', content: 'too many' },
      ],
      1,
      sent,
    );
    expect(errs).toEqual({ engraving: "'engraving' (Engraving) is required.", extras: 'at most 2', gift_box: 'bad option', '': 'too many' });
  });

  it('formats minor units per currency exponent', () => {
    expect(money(3850, 'USD', 'en')).toBe('$38.50');
    expect(money(500, 'JPY', 'en')).toBe('¥500');
  });
});

describe('<Picker>', () => {
  it('renders counters, required markers, price modifiers and errors; enforces max selections', () => {
    const host = document.createElement('div');
    document.body.append(host);
    const onChange = vi.fn();
    const values = { engraving: 'Hello', extras: ['card', 'ribbon'] };
    act(() => render(<Picker defs={DEFS} values={values} errors={{ gift_box: 'Choose a box.' }} lang="en" uid="t" onChange={onChange} />, host));
    const text = host.querySelector<HTMLInputElement>('#t-engraving')!;
    expect(text.maxLength).toBe(20);
    expect(text.getAttribute('aria-required')).toBe('true');
    expect(host.querySelector('#t-engraving-c')!.textContent).toBe('5/20 characters');
    expect(host.querySelector('label[for=t-engraving]')!.textContent).toContain('(required)');
    expect(host.textContent).toContain('Kraft box (+$3.00)');
    const group = host.querySelector('fieldset[role=radiogroup]')!;
    expect(group.getAttribute('aria-invalid')).toBe('true');
    expect(host.querySelector('#t-gift_box-e')!.textContent).toBe('Choose a box.');
    expect(group.getAttribute('aria-describedby')).toContain('t-gift_box-e');
    const boxes = [...host.querySelectorAll<HTMLInputElement>('input[type=checkbox]')];
    expect(boxes.map((b) => b.disabled)).toEqual([false, false, true]);
    expect(host.textContent).toContain('Choose 1 to 2');

    act(() => {
      text.value = 'Hello!';
      text.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(onChange).toHaveBeenCalledWith('engraving', 'Hello!');
    act(() => boxes[0].click());
    expect(onChange).toHaveBeenCalledWith('extras', ['ribbon']);
  });
});

describe('Store', () => {
  function stubFetch(handler: (method: string, path: string, body: any) => unknown) {
    const calls: Array<{ method: string; path: string; body: any }> = [];
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      const path = new URL(url).pathname;
      const body = init.body ? JSON.parse(String(init.body)) : undefined;
      calls.push({ method: init.method!, path, body });
      return new Response(JSON.stringify(handler(init.method!, path, body)), { status: 200, headers: { 'content-type': 'application/json' } });
    });
    return calls;
  }
  const cart = (lines: any[], extra: object = {}) => ({
    ucp: { version: '2026-04-08' }, id: 'c1', currency: 'USD', continue_url: 'http://shop/cart/c1', expires_at: '',
    totals: [{ type: 'total', amount: 100 }],
    line_items: lines.map((l, i) => ({ id: `li_${i + 1}`, item: { id: l.item.id, title: 'T', price: 100 }, quantity: l.quantity, totals: [], customizations: l.customizations })),
    ...extra,
  });

  it('adds (create, then full-replacement PUT merging identical lines), keeps the id in storage', async () => {
    const calls = stubFetch((m, _p, b) => cart(b.line_items));
    const s = new Store('http://shop');
    await s.add({ item: { id: 'v1' }, quantity: 1 });
    const { index } = await s.add({ item: { id: 'v1' }, quantity: 2 });
    expect(index).toBe(0);
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /api/ucp/carts', 'PUT /api/ucp/carts/c1']);
    expect(calls[1].body.line_items).toEqual([{ id: 'li_1', item: { id: 'v1' }, quantity: 3 }]);
    expect(localStorage.getItem('ucp:cart:http://shop')).toBe('c1');
    expect(linesOf(s.cart.value)).toHaveLength(1);
  });

  it('an error_response changes nothing and returns the line index for field mapping', async () => {
    stubFetch(() => ({ ucp: { version: '2026-04-08', status: 'error' }, messages: [{ type: 'error', path: '$.line_items[0].customizations', content: "'engraving' is required" }] }));
    const s = new Store('http://shop2');
    const { result, index } = await s.add({ item: { id: 'v1' }, quantity: 1 });
    expect(result.ok).toBe(false);
    expect(index).toBe(0);
    expect(s.cart.value).toBeNull();
  });

  it('drops rejected discount codes (warnings at $.discounts.codes[i]) when applying the next', async () => {
    const calls = stubFetch((_m, _p, b) => cart(b.line_items, {
      discounts: { codes: b.discounts.codes, applied: [] },
      messages: b.discounts.codes[0] === 'BAD' ? [{ type: 'warning', code: 'discount_code_invalid', path: '$.discounts.codes[0]', content: 'Unknown code' }] : [],
    }));
    const s = new Store('http://shop3');
    await s.add({ item: { id: 'v1' }, quantity: 1 });
    await s.applyCode('BAD');
    await s.applyCode('GOOD');
    expect(calls.at(-1)!.body.discounts.codes).toEqual(['GOOD']);
  });

  it('tells the embedded observer about every change, and about message changes', async () => {
    stubFetch((_m, _p, b) => cart(b.line_items, b.line_items.length > 1 ? { messages: [{ type: 'info', content: 'x' }] } : {}));
    const s = new Store('http://shop4');
    const seen: Array<[string, boolean]> = [];
    s.observer = { changed: (c, m) => seen.push([c.id, m]) };
    await s.add({ item: { id: 'v1' }, quantity: 1 });
    await s.add({ item: { id: 'v2' }, quantity: 1 });
    expect(seen).toEqual([['c1', false], ['c1', true]]);
  });
});
