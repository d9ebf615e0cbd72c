// @vitest-environment happy-dom
/**
 * host.js components and mode selection in happy-dom: the customization picker (counters,
 * required markers, price modifiers, min/max), error mapping from the server's message paths,
 * the product widget's add flow against a stubbed fetch, and the cart dialog; the widget's own
 * words in French and English (elements rendered with a stubbed shop).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { render } from 'preact';
import { act } from 'preact/test-utils';
import { fieldErrors, linesOf } from '../src/client/api.ts';
import { make as pickerKit } from '../src/views/customize.tsx';
import { kit } from '../src/views/kit.ts';
import { messageText, t } from '../src/views/i18n.ts';
import { defineElements } from '../src/host/elements.tsx';
import { validateCustomizations } from '../server/core/carts/customizations.ts';
import type { CustomizationDef as StoredDef } from '../server/formats/types.ts';
import { money, Store, storeFor } from '../src/state/store.ts';
import { allowedHosts, selectMode } from '../src/host/mode.ts';

// The picker chunk over the entry's Preact and words, as host.js makes it (src/views/lazy.ts).
const { entries, fieldText, modifiers, Picker } = pickerKit(kit);
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

describe('the Checkout action (Store.checkout: the cart\'s button and WebMCP begin_checkout)', () => {
  const cart = {
    ucp: { version: '2026-04-08' }, id: 'c_go', currency: 'USD', continue_url: 'http://go.test/cart/c_go', expires_at: '',
    line_items: [{ id: 'li_1', item: { id: 'v1', title: 'T', price: 100 }, quantity: 1, totals: [{ type: 'total', amount: 100 }] }],
    totals: [{ type: 'total', amount: 100 }],
  };

  it('the Checkout button runs the store\'s one action: the cart goes to the handoff target', async () => {
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify(cart), { status: 200, headers: { 'content-type': 'application/json' } }));
    localStorage.setItem('ucp:cart:http://go.test', 'c_go');
    defineElements();
    const el = document.createElement('ucp-cart');
    el.setAttribute('shop', 'http://go.test');
    document.body.append(el);
    const root = el.shadowRoot!;
    // The body (a lazily loaded chunk) is rendered once the dialog is opened, not before.
    await vi.waitFor(() => expect(root.querySelector('[part~=open]')!.textContent).toMatch(/\(\d+\)/));
    expect(root.querySelector('[part=cart]')).toBeNull();
    root.querySelector<HTMLButtonElement>('[part~=open]')!.click();
    await vi.waitFor(() => expect(root.querySelector('[part=checkout]')).not.toBeNull(), { timeout: 5000 });
    const seen: Array<[string, string]> = [];
    storeFor('http://go.test').handoff = (c) => seen.push([c.id, c.continue_url]);
    root.querySelector<HTMLButtonElement>('button[part=checkout]')!.click();
    expect(seen).toEqual([['c_go', 'http://go.test/cart/c_go/checkout']]);
  });

  it('without a handoff it navigates to the shop\'s checkout handoff; with no lines it does nothing', () => {
    const s = new Store('http://go2.test');
    const assign = vi.spyOn(location, 'assign').mockImplementation(() => {});
    expect(s.checkout()).toBeNull();
    s.cart.value = cart as any;
    expect(s.checkout()).toBe('http://go2.test/cart/c_go/checkout');
    expect(assign).toHaveBeenCalledWith('http://go2.test/cart/c_go/checkout');
    assign.mockRestore();
  });
});

describe('widget language (src/views/i18n.ts)', () => {
  // A product as the server returns it in French (catalog texts are localized by the server; the
  // widget's own words come from its table), and the same definitions as stored in the catalog,
  // so the error messages below are the server's real ones (English `content`, stable `code`).
  const STORED = [
    { id: 'engraving', type: 'text', label: { en: 'Engraving', fr: 'Gravure' }, required: true, max_length: 20 },
    { id: 'gift_box', type: 'single_select', label: { en: 'Gift box', fr: 'Coffret' }, required: true, options: [{ id: 'none', label: { en: 'No box', fr: 'Sans coffret' } }, { id: 'kraft', label: { en: 'Kraft box', fr: 'Coffret kraft' } }] },
    { id: 'extras', type: 'multi_select', label: { en: 'Extras', fr: 'Extras' }, required: false, min_selections: 2, max_selections: 2, options: [{ id: 'card', label: 'Card' }, { id: 'ribbon', label: 'Ribbon' }, { id: 'funnel', label: 'Funnel' }] },
  ] as const;
  const product = (lang: string) => {
    const fr = lang.startsWith('fr');
    const defs = STORED.map((d) => ({ ...d, label: fr ? d.label.fr : d.label.en, ...('options' in d ? { options: d.options.map((o) => ({ id: o.id, label: typeof o.label === 'string' ? o.label : fr ? o.label.fr : o.label.en })) } : {}) }));
    const variant = (id: string, title: string) => ({ id, title, description: { plain: '' }, price: { amount: 3400, currency: 'EUR' }, availability: { available: true, status: 'in_stock' }, metadata: { customizations: defs } });
    return {
      ucp: { version: '2026-04-08' },
      product: {
        id: 'prod_flask', handle: 'flask', title: fr ? 'Flasque en acier gravée' : 'Engraved Steel Flask', description: { plain: '' }, url: '', categories: [],
        price_range: { min: { amount: 3400, currency: 'EUR' }, max: { amount: 3400, currency: 'EUR' } },
        variants: [variant('var_steel', fr ? 'Acier brossé' : 'Brushed steel'), variant('var_black', fr ? 'Noir' : 'Black')],
      },
    };
  };
  /** The shop: product in the requested language; adding a line is checked by the server's own validator. */
  function stubShop() {
    const langs: string[] = [];
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      const path = new URL(url).pathname;
      const body = init.body ? JSON.parse(String(init.body)) : undefined;
      let out: unknown;
      if (path.endsWith('/catalog/product')) {
        langs.push(body.context.language);
        out = product(body.context.language);
      } else {
        const { issues } = validateCustomizations(STORED as unknown as StoredDef[], body.line_items[0].customizations, '$.line_items[0]');
        out = { ucp: { version: '2026-04-08', status: 'error' }, messages: issues.map((i) => ({ type: 'error', severity: 'requires_buyer_input', ...i })) };
      }
      return new Response(JSON.stringify(out), { status: 200, headers: { 'content-type': 'application/json' } });
    });
    return langs;
  }
  let shops = 0;
  async function mount(attrs: Record<string, string>) {
    defineElements();
    const el = document.createElement('ucp-product');
    el.setAttribute('shop', `http://lang${++shops}.test`);
    el.setAttribute('product-id', 'prod_flask');
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    document.body.append(el);
    const root = el.shadowRoot!;
    await vi.waitFor(() => expect(root.querySelector('button[type=submit]')).not.toBeNull());
    return { el, root };
  }
  const submit = (root: ShadowRoot) => root.querySelector<HTMLButtonElement>('button[type=submit]')!;
  afterEach(() => {
    document.documentElement.lang = '';
  });

  it('a product widget with lang="fr" shows French words', async () => {
    stubShop();
    const { root } = await mount({ lang: 'fr' });
    expect(submit(root).textContent).toBe('Ajouter au panier');
    expect(root.querySelector('h2')!.textContent).toBe('Flasque en acier gravée');
    const labels = [...root.querySelectorAll('label.t, legend')].map((l) => l.textContent);
    expect(labels).toEqual(['Variante', 'Gravure *(obligatoire)', 'Coffret *(obligatoire)', 'Extras']);
    expect(root.querySelector('label[for$=-q]')!.textContent).toBe('Quantité');
    expect(root.querySelector('[id$=-engraving-c]')!.textContent).toBe('0/20 caractères');
    expect(root.textContent).toContain('De 2 à 2 choix');
    expect(root.querySelector('[part=price]')!.textContent).toMatch(/34,00\s€/);
  });

  it('customization errors on a French page are French (by code), and follow a language change', async () => {
    const langs = stubShop();
    document.documentElement.lang = 'fr-FR';
    const { root } = await mount({});
    act(() => submit(root).click());
    await vi.waitFor(() => expect(root.querySelector('[id$=-engraving-e]')).not.toBeNull());
    const err = (id: string) => root.querySelector(`[id$=-${id}-e]`)?.textContent;
    expect(err('engraving')).toBe('Ce champ est obligatoire.');
    expect(err('gift_box')).toBe('Veuillez choisir une option.');
    expect(root.querySelector('[role=status]')!.textContent).toBe('Veuillez corriger les champs signalés.');
    expect(root.querySelector('[id$=-engraving]')!.getAttribute('aria-invalid')).toBe('true');
    expect(root.textContent).not.toMatch(/is required|Add to cart/);

    // Too long, too few: the limits come from the definitions.
    const text = root.querySelector<HTMLInputElement>('[id$=-engraving]')!;
    act(() => {
      text.value = 'x'.repeat(21);
      text.dispatchEvent(new Event('input', { bubbles: true }));
    });
    act(() => root.querySelector<HTMLInputElement>('input[value=kraft]')!.click());
    act(() => root.querySelector<HTMLInputElement>('input[value=card]')!.click());
    act(() => submit(root).click());
    await vi.waitFor(() => expect(err('engraving')).toBe('20 caractères au maximum.'));
    expect(err('gift_box')).toBeUndefined();
    expect(err('extras')).toBe('Au moins 2 choix.');

    // The page switches to English at run time: the product is re-fetched, the words follow.
    document.documentElement.lang = 'en';
    await vi.waitFor(() => expect(root.querySelector('h2')!.textContent).toBe('Engraved Steel Flask'));
    expect(langs).toEqual(['fr-FR', 'en']);
    expect(submit(root).textContent).toBe('Add to cart');
    expect(err('engraving')).toBe('At most 20 characters.');
    expect(err('extras')).toBe('Choose at least 2.');
    expect(root.querySelector('[role=status]')!.textContent).toBe('Please correct the highlighted fields.');
  });

  it('when the store cannot be reached, a French page says so in French', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    const el = document.createElement('ucp-product');
    defineElements();
    el.setAttribute('shop', `http://lang${++shops}.test`);
    el.setAttribute('product-id', 'prod_flask');
    el.setAttribute('lang', 'fr');
    document.body.append(el);
    await vi.waitFor(() => expect(el.shadowRoot!.querySelector('.err')?.textContent).toBe('La boutique est injoignable.'));
    expect(messageText('en', { code: 'network_error', content: 'x' })).toBe('The store could not be reached.');
    expect(messageText('fr', { code: 'invalid_response', content: 'x' })).toBe('La boutique a envoyé une réponse inattendue.');
    expect(messageText('fr', { code: 'discount_code_expired', content: 'Le code a expiré.' })).toBe('Le code a expiré.'); // the server's words
  });

  it('an element whose own lang is removed follows the page language from then on', async () => {
    stubShop();
    document.documentElement.lang = 'en';
    const { el, root } = await mount({ lang: 'fr' });
    expect(submit(root).textContent).toBe('Ajouter au panier');
    document.documentElement.lang = 'en-GB'; // the element's own lang wins
    await new Promise((r) => setTimeout(r, 20));
    expect(submit(root).textContent).toBe('Ajouter au panier');
    act(() => el.removeAttribute('lang'));
    await vi.waitFor(() => expect(submit(root).textContent).toBe('Add to cart'));
    document.documentElement.lang = 'fr';
    await vi.waitFor(() => expect(submit(root).textContent).toBe('Ajouter au panier'));
  });

  it('an unknown language falls back to English', async () => {
    stubShop();
    const { root } = await mount({ lang: 'xx' });
    expect(submit(root).textContent).toBe('Add to cart');
    expect(root.querySelector('label.t')!.textContent).toBe('Variant');
    act(() => submit(root).click());
    await vi.waitFor(() => expect(root.querySelector('[id$=-engraving-e]')?.textContent).toBe('This field is required.'));
    expect(t('de-DE', 'checkout')).toBe('Checkout');
    expect(t('FR-ca', 'checkout')).toBe('Passer au paiement');
    expect(t('fr', 'no_such_key')).toBe('no_such_key');
  });

  it('maps every customization code; unknown codes and fields keep the server text', () => {
    const [engraving, gift, extras] = DEFS;
    const m = (code: string, content = 'server text') => ({ type: 'error' as const, code, content });
    expect(fieldText('fr', m('customization_required'), engraving)).toBe('Ce champ est obligatoire.');
    expect(fieldText('fr', m('customization_required'), gift)).toBe('Veuillez choisir une option.');
    expect(fieldText('fr', m('customization_required'), extras)).toBe('Au moins 1 choix.');
    expect(fieldText('fr', m('customization_too_long'), engraving)).toBe('20 caractères au maximum.');
    expect(fieldText('fr', m('customization_too_short'), { ...engraving, min_length: 3 } as CustomizationDef)).toBe('3 caractères au minimum.');
    expect(fieldText('fr', m('customization_too_many_selections'), extras)).toBe('Au plus 2 choix.');
    expect(fieldText('fr', m('customization_too_many_selections'), gift)).toBe('Au plus 1 choix.');
    expect(fieldText('fr', m('customization_too_few_selections'), extras)).toBe('Au moins 1 choix.');
    for (const c of ['customization_invalid_option', 'customization_duplicate', 'customization_unknown']) expect(fieldText('fr', m(c), gift)).toBe('Veuillez vérifier ce choix.');
    expect(fieldText('fr', m('customization_too_long'), gift)).toBe('server text');
    expect(fieldText('fr', m('out_of_stock'), gift)).toBe('server text');
    expect(fieldText('fr', m('customization_required'))).toBe('server text');
  });

  it('the cart in French: buttons, heading, discount field, totals (the widget\'s words over the server\'s English labels)', async () => {
    const cart = {
      ucp: { version: '2026-04-08' }, id: 'c_fr', currency: 'EUR', continue_url: 'http://shop/cart/c_fr', expires_at: '',
      line_items: [{ id: 'li_1', item: { id: 'var_steel', title: 'Flasque en acier gravée', price: 3400 }, quantity: 1, totals: [{ type: 'total', amount: 3400 }] }],
      totals: [{ type: 'subtotal', amount: 3400 }, { type: 'tax', amount: 680, display_text: 'Estimated tax' }, { type: 'total', amount: 4080 }],
    };
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify(cart), { status: 200, headers: { 'content-type': 'application/json' } }));
    localStorage.setItem('ucp:cart:http://cart-fr.test', 'c_fr');
    defineElements();
    const el = document.createElement('ucp-cart');
    el.setAttribute('shop', 'http://cart-fr.test');
    el.setAttribute('lang', 'fr');
    document.body.append(el);
    const root = el.shadowRoot!;
    await vi.waitFor(() => expect(root.querySelector('[part~=open]')!.textContent).toBe('Panier (1)'));
    root.querySelector<HTMLButtonElement>('[part~=open]')!.click();
    await vi.waitFor(() => expect(root.querySelector('[part=checkout]')).not.toBeNull(), { timeout: 5000 });
    expect(root.querySelector('h2')!.textContent).toBe('Votre panier');
    expect(root.querySelector('[part=close]')!.textContent).toBe('Fermer');
    expect(root.querySelector('[part=checkout]')!.textContent).toBe('Passer au paiement');
    expect(root.querySelector('[part=discount] label')!.textContent).toBe('Code de réduction');
    expect(root.querySelector('[part=discount] button')!.textContent).toBe('Appliquer');
    expect(root.querySelector('[part=remove]')!.textContent).toBe('Retirer Flasque en acier gravée');
    expect([...root.querySelectorAll('dt')].map((d) => d.textContent!.trim())).toEqual(['Sous-total', 'Taxes', 'Total']);

    // English keeps the server's own label.
    el.setAttribute('lang', 'en');
    await vi.waitFor(() => expect(root.querySelector('[part=checkout]')!.textContent).toBe('Checkout'));
    expect([...root.querySelectorAll('dt')].map((d) => d.textContent!.trim())).toEqual(['Subtotal', 'Estimated tax', 'Total']);
  });
});

describe('the option picker (src/views/options.tsx)', () => {
  const { optionSelects } = pickerKit(kit);
  const price = { amount: 1000, currency: 'USD' };
  const variant = (id: string, color: [string, string], size: [string, string]) => ({
    id, title: `${color[1]} / ${size[1]}`, price, availability: { available: true, status: 'in_stock' },
    options: [{ name: 'Color', id: color[0], label: color[1] }, { name: 'Size', id: size[0], label: size[1] }],
  });
  const product = {
    id: 'p', handle: 'p', title: 'Tee', description: { plain: '' }, url: '', categories: [], price_range: { min: price, max: price },
    options: [
      { name: 'Color', values: [{ id: 'red', label: 'Red' }, { id: 'blue', label: 'Blue' }] },
      { name: 'Size', values: [{ id: 's', label: 'S' }, { id: 'm', label: 'M' }, { id: 'l', label: 'L' }] },
    ],
    variants: [variant('red-s', ['red', 'Red'], ['s', 'S']), variant('red-m', ['red', 'Red'], ['m', 'M']), variant('blue-l', ['blue', 'Blue'], ['l', 'L'])],
  };

  it('a value no variant has with the current choices names what it comes with, and choosing it shows that variant', () => {
    const host = document.createElement('div');
    const ui = { variantId: { value: 'red-s' }, rejected: { value: null } } as never;
    act(() => render(<div>{optionSelects(product as never, product.variants[0] as never, 'en', 'o', ui)}</div>, host));
    const labels = (i: number) => [...host.querySelectorAll(`#o-o${i} option`)].map((o) => o.textContent);
    expect(labels(0)).toEqual(['Red', 'Blue (with L)']);
    expect(labels(1)).toEqual(['S', 'M', 'L (with Blue)']);
    const color = host.querySelector<HTMLSelectElement>('#o-o0')!;
    color.value = 'blue';
    act(() => void color.dispatchEvent(new Event('change')));
    expect((ui as { variantId: { value: string } }).variantId.value).toBe('blue-l');
  });

  it('says it in French too', () => {
    const host = document.createElement('div');
    act(() => render(<div>{optionSelects(product as never, product.variants[0] as never, 'fr', 'o', { variantId: { value: 'red-s' }, rejected: { value: null } } as never)}</div>, host));
    expect([...host.querySelectorAll('#o-o0 option')].map((o) => o.textContent)).toEqual(['Red', 'Blue (avec L)']);
  });
});
