/**
 * The shopper and embedded-cart flows, written once over ./driver.ts and run in Chromium
 * (e2e/engines.spec.ts, Playwright), Firefox ESR and WebKit (e2e/engines/run.ts). Each flow ends
 * with a screenshot (kept under test-results/engines/<engine>/) and fails on any uncaught page
 * error. docs/host-js.md "Browsers".
 */
import { mkdirSync } from 'node:fs';
import { FIND, until, type Driver } from './driver.ts';

export interface Flow {
  name: string;
  run(d: Driver, shop: string): Promise<void>;
}

const text = (path: string[]) => `() => ((${FIND_SRC})(${JSON.stringify(path)}) || {}).textContent || ''`;
const FIND_SRC = FIND;
const has = (path: string[], words = '') => `() => { const el = (${FIND_SRC})(${JSON.stringify(path)}); return !!el && (el.textContent || '').includes(${JSON.stringify(words)}); }`;
const urlHas = (part: string) => `() => location.href.includes(${JSON.stringify(part)}) && document.readyState === 'complete'`;
const agentOf = (shop: string) => shop.replace('//demo.', '//agent.');

export const SHOT_DIR = 'test-results/engines';
async function shot(d: Driver, name: string) {
  mkdirSync(`${SHOT_DIR}/${d.engine}`, { recursive: true });
  await d.screenshot(`${SHOT_DIR}/${d.engine}/${name}.png`);
}
async function noErrors(d: Driver) {
  const errs = await d.errors();
  if (errs.length) throw new Error(`${d.engine}: uncaught page errors: ${errs.join(' | ')}`);
}

/**
 * Opens the MCP Apps test host (e2e/apps-host/: the official AppBridge of ext-apps 2.x and the v2 MCP
 * client, its sandbox proxy on another origin) two ports up from the shop, in one era: `auto`
 * negotiation (2026-07-28: server/discover, no initialize) or `era=2025` (the initialize handshake).
 * Waits until the host has listed the tools and checks the version it negotiated.
 */
async function openAppsHost(d: Driver, shop: string, era: '2026-07-28' | '2025-11-25') {
  const port = Number(new URL(shop).port) + 2;
  const q = new URLSearchParams({ shop, sandbox: `http://sandbox.localhost:${port}`, ...(era === '2025-11-25' ? { era: '2025' } : {}) });
  await d.viewport(600, 900);
  await d.goto(`http://localhost:${port}/host.html?${q}`);
  await until(d, 'the host', '() => !!(window.host && window.host.isReady)');
  const version = await d.eval<string>('() => (window.host.log.find((e) => e.kind === "era") || {}).version');
  if (version !== era) throw new Error(`${d.engine}: the host negotiated ${version}, not ${era}`);
}

/** What the host does when its model calls a tool: the call, then the view; resolves once the view has drawn (it reports its size). */
async function runInHost(d: Driver, tool: string, args: object) {
  await d.eval(`() => { window.host.run(${JSON.stringify(tool)}, ${JSON.stringify(args)}); return true; }`);
  await until(d, 'the view', '() => window.host.log.some((e) => e.kind === "size")');
}

/** The checkout link the view asked the host to open (`ui/open-link`): the shop's cart page. */
async function openedCheckout(d: Driver) {
  const url = await until<string>(d, 'the checkout link opened by the host', '() => (window.host.log.find((e) => e.kind === "open-link") || {}).url');
  if (!/\/cart\/cart_[\w-]+/.test(url)) throw new Error(`checkout opened ${url}`);
}

const P = ['ucp-product'];
const CART = ['ucp-cart'];

export const FLOWS: Flow[] = [
  {
    name: 'product page: picker error then valid, add, cart dialog, quantity and code, checkout handoff',
    async run(d, shop) {
      await d.viewport(1280, 900);
      await d.goto(`${shop}/products/engraved-flask`);
      await until(d, 'the picker', has([...P, 'input[type=text]']));
      await d.click([...P, 'button[part~=add]']);
      await until(d, 'the field errors', `() => !!(${FIND_SRC})(['ucp-product', '[aria-invalid=true]'])`);
      await d.type([...P, 'input[type=text]'], 'Happy trails');
      await d.click([...P, 'input[type=radio][value=kraft]']);
      await d.click([...P, 'button[part~=add]']);
      await until(d, 'the added status', has([...P, '[part=status]'], 'Added Engraved Steel Flask'));
      await d.click([...CART, 'button[part~=open]']);
      await until(d, 'the cart dialog', has([...CART, 'dialog[open] [part=line]'], 'Engraved Steel Flask'));
      await d.click([...CART, '[part=line] button[aria-label^="Increase"]']);
      await until(d, 'quantity 2', `() => (${FIND_SRC})(['ucp-cart', '[part=line] input[type=number]'])?.value === '2'`);
      await d.type([...CART, '[part=discount] input'], 'WELCOME10');
      await d.click([...CART, '[part=discount] button[type=submit]']);
      await until(d, 'the applied code', has([...CART, '[part=codes]'], 'WELCOME10'));
      // The lines add up to the Subtotal (docs/carts.md "What a line shows").
      const sums = await d.eval<[string, string]>(`() => { const r = (${FIND_SRC})(['ucp-cart']).shadowRoot; return [r.querySelector('[part=line] > .p').textContent, r.querySelector('[data-total=subtotal]').textContent]; }`);
      if (sums[0] !== sums[1]) throw new Error(`line ${sums[0]} != subtotal ${sums[1]}`);
      await shot(d, 'cart-dialog');
      await d.click([...CART, '[part=checkout]']);
      await until(d, 'the handoff preview', urlHas('/handoff-preview'));
      await until(d, 'the handed-over table', `() => (document.querySelector('table') || {}).textContent?.includes('Engraving: Happy trails')`);
      await shot(d, 'handoff');
      await noErrors(d);
    },
  },
  {
    name: '<ucp-search>: search, category, paging, and Back, with the URL following',
    async run(d, shop) {
      await d.viewport(1280, 900);
      await d.goto(`${shop}/`);
      const S = ['ucp-search'];
      await until(d, 'the search form', `() => !!(${FIND_SRC})(['ucp-search', 'form input[name=q]'])`);
      await d.type([...S, 'input[name=q]'], 'linen');
      await d.click([...S, 'form button[type=submit]']);
      await until(d, '?q=linen', urlHas('q=linen'));
      // Each wait below also waits for the element to settle (not aria-busy): while a search runs,
      // the previous results stay in view (the first page has linen products too) and the form is
      // drawn again when the answer arrives, taking what was typed into it meanwhile.
      const idle = `!document.querySelector('ucp-search').hasAttribute('aria-busy')`;
      await until(d, 'linen results', `() => ${idle} && [...(${FIND_SRC})(['ucp-search']).shadowRoot.querySelectorAll('li h3')].some((h) => /linen/i.test(h.textContent))`);
      await d.type([...S, 'input[name=q]'], '');
      await d.click([...S, 'form button[type=submit]']);
      await until(d, 'the whole catalog', `() => ${idle} && !location.search.includes('q=') && (${FIND_SRC})(['ucp-search']).shadowRoot.querySelectorAll('li').length === 12`);
      // A category (choosing one searches at once), then all products again.
      const cat = await d.eval<string>(`() => (${FIND_SRC})(['ucp-search', 'select[name=category] option:nth-child(2)']).value`);
      await d.select([...S, 'select[name=category]'], cat);
      await until(d, `?category=${cat}`, urlHas(`category=${encodeURIComponent(cat)}`));
      await until(d, `the ${cat} heading`, has([...S, 'h2'], cat));
      await d.select([...S, 'select[name=category]'], '');
      await until(d, 'all products again', `() => ${idle} && !location.search.includes('category=') && (${FIND_SRC})(['ucp-search']).shadowRoot.querySelectorAll('li').length === 12`);
      const first = await d.eval<string>(text([...S, 'li h3']));
      await d.click([...S, 'nav button:last-of-type']);
      await until(d, '?page=2', urlHas('page=2'));
      await until(d, 'page 2', `() => { const r = (${FIND_SRC})(['ucp-search']).shadowRoot; return ${idle} && r.querySelector('nav [aria-current]')?.textContent === 'Page 2' && r.querySelector('li h3')?.textContent !== ${JSON.stringify(first)}; }`);
      await shot(d, 'search-page-2');
      await d.back();
      const page1 = `() => !location.search.includes('page=') && !!document.querySelector('ucp-search') && ${idle} && (${FIND_SRC})(['ucp-search', 'li h3'])?.textContent === ${JSON.stringify(first)} && (${FIND_SRC})(['ucp-search', 'nav [aria-current]'])?.textContent === 'Page 1'`;
      await until(d, 'page 1 again', page1);
      // Page 2 again, reloaded (the server's HTML, without the element), then Back: the element's
      // page 1, not page 2 under page 1's address (public/storefront.js, docs/host-js.md).
      await d.click([...S, 'nav button:last-of-type']);
      await until(d, '?page=2 again', urlHas('page=2'));
      await d.reload();
      await until(d, 'the server\'s page 2', `() => !document.querySelector('ucp-search') && document.querySelector('main .pager [aria-current]')?.textContent === 'Page 2'`);
      await d.back();
      await until(d, 'page 1 after the reload', page1);
      await noErrors(d);
    },
  },
  {
    name: 'language and currency persist across reloads; the shop\'s own currency re-prices back',
    async run(d, shop) {
      await d.viewport(1280, 900);
      await d.goto(`${shop}/products/classic-tee`);
      await until(d, 'the widget', has([...P, 'button[part~=add]']));
      await d.click([...P, 'button[part~=add]']);
      await until(d, 'added', has([...P, '[part=status]'], 'Added'));
      await d.select(['#currency-switch'], 'EUR');
      await until(d, 'prices in euros', has([...P, '[part=price]'], '€'));
      await d.reload();
      await until(d, 'euros after a reload', has([...P, '[part=price]'], '€'));
      // The language switch reloads the page: mark this one, then wait for a fresh one.
      await d.eval('() => { window.__old = 1; }');
      await d.select(['#lang-switch'], 'fr');
      await until(d, 'French after the switch reloads', `() => !window.__old && document.documentElement.lang === 'fr' && document.readyState === 'complete'`);
      await until(d, 'French words', has([...P, 'button[part~=add]'], 'Ajouter au panier'));
      await d.select(['#currency-switch'], 'USD');
      await until(d, 'dollars again', has([...P, '[part=price]'], '$'));
      await d.reload();
      await d.click([...CART, 'button[part~=open]']);
      await until(d, 'the cart back in dollars', `() => { const t = (${FIND_SRC})(['ucp-cart', '[data-total=total]']); return !!t && t.textContent.includes('$') && !t.textContent.includes('€'); }`);
      await d.eval('() => { window.__old = 1; }');
      await d.select(['#lang-switch'], 'en');
      await until(d, 'English again', `() => !window.__old && document.documentElement.lang === 'en' && document.readyState === 'complete'`);
      await noErrors(d);
    },
  },
  {
    name: 'an agent page on another origin frames the shop\'s cart (UCP.openCart): handshake, a change, complete',
    async run(d, shop) {
      await d.viewport(1280, 900);
      await d.goto(agentOf(shop));
      await until(d, 'host.js loaded', `() => (document.querySelector('#hostjs') || {}).textContent?.includes('loaded')`);
      await d.click(['#stay']);
      await d.click(['button#open']);
      await until(d, 'start', `() => !!document.querySelector('#log li[data-type="ucp:cart:start"]')`);
      const ready = await d.eval<string>(`() => document.querySelector('#log li[data-type="ucp:cart:ready"] pre').textContent`);
      if (!ready.includes('"port"')) throw new Error(`handshake without the port upgrade: ${ready}`);
      await d.inFrame(async (f) => {
        await until(f, 'the framed cart', has(['ucp-cart', '[part=line]']));
        await f.click(['ucp-cart', '[part=line] button[aria-label^="Increase"]']);
      });
      await until(d, 'change', `() => [...document.querySelectorAll('#log li[data-type="ucp:cart:change"] pre')].some((p) => JSON.parse(p.textContent).cart.line_items[0].quantity === 2)`);
      await shot(d, 'agent-framed-cart');
      await d.inFrame((f) => f.click(['ucp-cart', '[part=checkout]']));
      await until(d, 'complete', `() => !!document.querySelector('#log li[data-type="ucp:cart:complete"]')`);
      await noErrors(d);
    },
  },
  {
    name: '390 px: no horizontal overflow on the home, product, cart and handoff pages',
    async run(d, shop) {
      await d.viewport(390, 844);
      for (const [path, ready] of [
        ['/', `() => !!(${FIND_SRC})(['ucp-search', 'li h3'])`],
        ['/products/engraved-flask', `() => !!(${FIND_SRC})(['ucp-product', 'input[type=text]'])`],
        ['/?page=2', `() => !!document.querySelector('.cards h3')`],
        ['/nope', `() => !!document.querySelector('h1')`],
      ] as const) {
        await d.goto(`${shop}${path}`);
        await until(d, `${path} ready`, ready);
        const [scroll, inner] = await d.eval<[number, number]>('() => [document.documentElement.scrollWidth, innerWidth]');
        if (scroll > inner) throw new Error(`${path}: ${scroll} px wide in a ${inner} px viewport`);
      }
      await d.goto(`${shop}/products/engraved-flask`);
      await until(d, 'the widget', has([...P, 'input[type=text]']));
      await shot(d, 'product-390');
      await d.click([...CART, 'button[part~=open]']);
      await until(d, 'the dialog', `() => !!(${FIND_SRC})(['ucp-cart', 'dialog[open]'])`);
      const [w, inner] = await d.eval<[number, number]>(`() => [(${FIND_SRC})(['ucp-cart', 'dialog']).getBoundingClientRect().right, innerWidth]`);
      if (w > inner) throw new Error(`the cart dialog reaches ${w} px in a ${inner} px viewport`);
      await noErrors(d);
    },
  },
  {
    name: 'MCP Apps view in the official AppBridge, 2026-07-28: search, options and customizations, add, code, checkout link',
    async run(d, shop) {
      await openAppsHost(d, shop, '2026-07-28');
      await runInHost(d, 'search_catalog', { catalog: { query: 'engraved flask' } });
      const V = ['#app'];
      await d.inFrame(async (v) => {
        await until(v, 'the product cards', has([...V, 'li.pc h2'], 'Engraved Steel Flask'));
        await v.click([...V, 'li.pc button']);
        await until(v, 'the product view', has([...V, '#pv-t'], 'Engraved Steel Flask'));
        await until(v, 'the picker', has([...V, 'input[type=text]']));
        await v.select([...V, 'select[part=variant]'], 'var_flask_black');
        await v.click([...V, 'button[part~=add]']);
        await until(v, 'the field errors', `() => !!(${FIND_SRC})(['#app', '[aria-invalid=true]'])`);
        await v.type([...V, 'input[type=text]'], 'Happy trails');
        await v.click([...V, 'input[type=radio][value=kraft]']);
        await v.click([...V, 'button[part~=add]']);
        await until(v, 'the added status', has([...V, '[part=status]'], 'Added Engraved Steel Flask'));
        await v.click([...V, 'button.to-cart']);
        await until(v, 'the cart', has([...V, '[part=line]'], 'Engraved Steel Flask'));
        await v.type([...V, '[part=discount] input'], 'WELCOME10');
        await v.click([...V, '[part=discount] button[type=submit]']);
        await until(v, 'the code applied', has([...V, '[part=codes]'], 'WELCOME10'));
        await v.click([...V, 'button[part=checkout]']);
      }, 'app');
      await openedCheckout(d);
      const told = await d.eval<string>('() => window.host.log.filter((e) => e.kind === "model-context").map((e) => e.params.content[0].text).pop() || ""');
      if (!told.includes('Engraved Steel Flask') || !told.includes('WELCOME10')) throw new Error(`the model was told: ${told}`);
      await shot(d, 'mcp-apps-cart');
      await noErrors(d);
    },
  },
  {
    name: 'MCP Apps view in the official AppBridge, 2025 handshake: a cart result drawn, a change, checkout link',
    async run(d, shop) {
      await openAppsHost(d, shop, '2025-11-25');
      await runInHost(d, 'create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] } });
      const V = ['#app'];
      await d.inFrame(async (v) => {
        // The tool result (the host's create_cart), drawn by the view; then a call of its own through the host.
        await until(v, 'the cart from the tool result', has([...V, '[part=line]'], 'Classic Tee'));
        await v.click([...V, '[part=line] button[aria-label^="Increase"]']);
        await until(v, 'quantity 2', `() => (${FIND_SRC})(['#app', '[part=line] input[type=number]'])?.value === '2'`);
        await v.click([...V, 'button[part=checkout]']);
      }, 'app');
      await openedCheckout(d);
      const calls = await d.eval<string[]>('() => window.host.log.filter((e) => e.kind === "call").map((e) => e.name)');
      if (!calls.includes('update_cart')) throw new Error(`the view's calls through the host: ${calls.join(', ')}`);
      await shot(d, 'mcp-apps-cart-2025');
      await noErrors(d);
    },
  },
];
