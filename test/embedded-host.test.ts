// @vitest-environment happy-dom
// @vitest-environment-options {"settings":{"disableIframePageLoading":true,"disableJavaScriptFileLoading":true,"disableCSSFileLoading":true,"handleDisabledFileLoadingAsSuccess":true}}
/** Host role (openCart) in happy-dom: handshake answers, origin/source checks, events, fallback. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openCart } from '../src/embedded/index.ts';

const SHOP = 'http://demo.localhost:8391';
const CONTINUE = `${SHOP}/cart/cart_1`;
const success = { version: '2026-04-08', status: 'success' };
const cart = { ucp: { version: '2026-04-08' }, id: 'cart_1', line_items: [], currency: 'USD', totals: [], continue_url: CONTINUE };
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

function setup(extra: Record<string, unknown> = {}) {
  const events: Array<{ type: string; detail: any }> = [];
  const types = ['ready', 'start', 'change', 'complete', 'error', 'fallback', 'close'].map((t) => `ucp:cart:${t}`);
  const on = (e: Event) => {
    events.push({ type: e.type, detail: (e as CustomEvent).detail });
    if (e.type === 'ucp:cart:complete') e.preventDefault(); // no navigation in tests
  };
  for (const t of types) document.addEventListener(t, on);
  const handle = openCart({ shopOrigin: SHOP, continueUrl: CONTINUE, ...extra });
  const box = document.querySelector('[data-ucp-cart]')!;
  const root = box.shadowRoot!;
  return { handle, root, events, off: () => types.forEach((t) => document.removeEventListener(t, on)) };
}

/** happy-dom loads no iframe page: give every iframe one fake contentWindow that records posts. */
function fakeFrameWindow() {
  const posted: Array<{ m: any; o: any }> = [];
  const win = { postMessage: (m: any, o: any) => posted.push({ m, o }) };
  const d = Object.getOwnPropertyDescriptor(HTMLIFrameElement.prototype, 'contentWindow');
  Object.defineProperty(HTMLIFrameElement.prototype, 'contentWindow', { configurable: true, get: () => win });
  return { win: win as unknown as Window, posted, restore: () => d && Object.defineProperty(HTMLIFrameElement.prototype, 'contentWindow', d) };
}

/** Deliver a message to the host window as if posted by `source` from `origin`. */
const deliver = (data: unknown, source: unknown, origin = SHOP) =>
  window.dispatchEvent(Object.assign(new Event('message'), { data, source, origin }));

describe('openCart (host role)', () => {
  let cleanup: () => void = () => {};
  afterEach(() => {
    cleanup();
    document.body.replaceChildren();
  });

  it('renders a labelled modal dialog with a sandboxed, credentialless iframe at continue_url + ep_*', async () => {
    const s = setup({ colorScheme: 'dark', auth: 'tok' });
    cleanup = () => { s.handle.close(); s.off(); };
    await tick();
    const dialog = s.root.querySelector('dialog')!;
    expect(dialog.getAttribute('aria-labelledby')).toBe('t');
    expect(s.root.getElementById('t')!.textContent).toContain('demo.localhost:8391');
    const f = s.root.querySelector('iframe')!;
    expect(f.getAttribute('sandbox')).toBe('allow-scripts allow-forms allow-same-origin');
    expect(f.hasAttribute('credentialless')).toBe(true);
    const u = new URL(f.getAttribute('src')!);
    expect(u.origin + u.pathname).toBe(CONTINUE);
    expect(Object.fromEntries(u.searchParams)).toEqual({ ep_version: '2026-04-08', ep_cart_delegate: '', ep_color_scheme: 'dark', ep_auth: 'tok' });
  });

  it('answers ready with a port upgrade, then ready on the port; re-emits notifications; ignores forgeries', async () => {
    const fw = fakeFrameWindow();
    const s = setup();
    cleanup = () => { s.handle.close(); s.off(); fw.restore(); };
    await tick();
    const { win, posted } = fw;

    // Forged: wrong origin, wrong source; and notifications before the handshake.
    deliver({ jsonrpc: '2.0', id: 1, method: 'ep.cart.ready', params: { delegate: [] } }, win, 'http://other.localhost:8391');
    deliver({ jsonrpc: '2.0', id: 1, method: 'ep.cart.ready', params: { delegate: [] } }, window, SHOP);
    deliver({ jsonrpc: '2.0', method: 'ep.cart.start', params: { cart } }, win);
    await tick();
    expect(posted).toEqual([]);
    expect(s.events).toEqual([]);

    deliver({ jsonrpc: '2.0', id: 1, method: 'ep.cart.ready', params: { delegate: [] } }, win);
    await tick();
    expect(posted).toHaveLength(1);
    expect(posted[0].o.targetOrigin).toBe(SHOP);
    const port: MessagePort = posted[0].m.result.upgrade.port;
    expect(posted[0].m).toMatchObject({ jsonrpc: '2.0', id: 1, result: { ucp: success } });
    expect(posted[0].m.result.credential).toBeUndefined();
    expect(posted[0].o.transfer).toEqual([port]);

    // After the upgrade the window channel is closed.
    deliver({ jsonrpc: '2.0', method: 'ep.cart.start', params: { cart } }, win);
    const answers: any[] = [];
    port.onmessage = (e) => answers.push(e.data);
    port.postMessage({ jsonrpc: '2.0', id: 2, method: 'ep.cart.ready', params: { delegate: [] } });
    await tick(20);
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 2, result: { ucp: success } }]);
    expect(s.events.map((e) => e.type)).toEqual(['ucp:cart:ready']);

    port.postMessage({ jsonrpc: '2.0', method: 'ep.cart.start', params: { cart } });
    port.postMessage({ jsonrpc: '2.0', method: 'ep.cart.line_items.change', params: { cart } });
    port.postMessage({ jsonrpc: '2.0', method: 'ep.cart.messages.change', params: { cart: { ...cart, messages: [{ type: 'error', code: 'invalid', content: 'x', path: '$.line_items[0]' }] } } });
    port.postMessage({ jsonrpc: '2.0', method: 'ep.cart.buyer.change', params: { cart } });
    port.postMessage({ jsonrpc: '2.0', method: 'ep.cart.line_items.change', params: { cart: { id: 'partial' } } }); // invalid: ignored
    port.postMessage({ jsonrpc: '2.0', method: 'ep.cart.totals.change', params: { cart } }); // unknown notification: ignored
    port.postMessage({ jsonrpc: '2.0', id: 3, method: 'ep.cart.nope', params: {} });
    port.postMessage({ jsonrpc: '2.0', id: 4, method: 'ep.cart.ready', params: { delegate: 'x' } });
    await tick(20);
    expect(s.events.map((e) => [e.type, e.detail.kind])).toEqual([
      ['ucp:cart:ready', undefined], ['ucp:cart:start', undefined], ['ucp:cart:change', 'line_items'], ['ucp:cart:change', 'messages'], ['ucp:cart:change', 'buyer'],
    ]);
    expect(s.events[1].detail.cart).toEqual(cart);
    expect(s.events[3].detail.cart.messages[0].path).toBe('$.line_items[0]');
    expect(answers.slice(1)).toEqual([
      { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found: ep.cart.nope' } },
      { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'Invalid params' } },
    ]);

    // complete: same-origin continue_url only (a foreign one falls back to the loaded continue_url).
    port.postMessage({ jsonrpc: '2.0', method: 'ep.cart.complete', params: { cart: { ...cart, continue_url: 'javascript:alert(1)' } } });
    await tick(20);
    const done = s.events.find((e) => e.type === 'ucp:cart:complete')!;
    expect(done.detail.continue_url).toBe(CONTINUE);
    expect(s.events.at(-1)!.type).toBe('ucp:cart:close');
    expect(document.querySelector('[data-ucp-cart]')).toBeNull();
  });

  it('refuses unrequested delegations with an error_response and tears down', async () => {
    const fw = fakeFrameWindow();
    const s = setup();
    cleanup = () => { s.handle.close(); s.off(); fw.restore(); };
    await tick();
    const win = fw.win;
    const posted = fw.posted.map((p) => p.m);
    const sync = () => posted.splice(0, posted.length, ...fw.posted.map((p) => p.m));
    deliver({ jsonrpc: '2.0', id: 1, method: 'ep.cart.ready', params: { delegate: ['window.open'] } }, win);
    await tick();
    sync();
    expect(posted[0].result).toMatchObject({ ucp: { status: 'error' }, messages: [{ code: 'not_supported_error', severity: 'unrecoverable' }] });
    expect(s.events.map((e) => e.type)).toEqual(['ucp:cart:error']);
    expect(s.root.querySelector('iframe')).toBeNull();
    expect(s.root.querySelector('a')!.getAttribute('href')).toBe(CONTINUE);
  });

  it('ep.cart.error (either shape) tears down and offers continue_url', async () => {
    const fw = fakeFrameWindow();
    const s = setup();
    cleanup = () => { s.handle.close(); s.off(); fw.restore(); };
    await tick();
    const win = fw.win;
    const error = { ucp: { version: '2026-04-08', status: 'error' }, messages: [{ type: 'error', code: 'not_found', content: 'Cart not found.', severity: 'unrecoverable' }], continue_url: CONTINUE };
    deliver({ jsonrpc: '2.0', method: 'ep.cart.error', params: error }, win);
    await tick();
    expect(s.events).toEqual([{ type: 'ucp:cart:error', detail: { error } }]);
    expect(s.root.querySelector('[role=status]')!.textContent).toContain('Cart not found.');
    expect(s.root.querySelector('iframe')).toBeNull();
  });

  it('no ready within the timeout => fallback with popup offer and plain link', async () => {
    const s = setup({ readyTimeout: 30 });
    cleanup = () => { s.handle.close(); s.off(); };
    await tick(60);
    expect(s.events).toEqual([{ type: 'ucp:cart:fallback', detail: { reason: 'timeout', continue_url: CONTINUE } }]);
    expect(s.root.querySelector('iframe')).toBeNull();
    expect(s.root.querySelector('[role=status] button')!.textContent).toBe('Open in a new window');
    expect(s.root.querySelector('[role=status] a')!.getAttribute('href')).toBe(CONTINUE);
  });

  it('creates the cart over REST, and opens the plain link when the cart has no embedded binding', async () => {
    const fetchMock = vi.fn(async () => new Response(JSON.stringify({ ...cart, ucp: { version: '2026-04-08' } }), { status: 201 }));
    vi.stubGlobal('fetch', fetchMock);
    const s = setup({ continueUrl: undefined, lineItems: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] });
    cleanup = () => { s.handle.close(); s.off(); vi.unstubAllGlobals(); };
    await tick(10);
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe(`${SHOP}/api/ucp/carts`);
    expect(init.method).toBe('POST');
    expect(init.credentials).toBe('omit');
    expect(JSON.parse(init.body as string)).toEqual({ line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] });
    expect(s.events).toEqual([{ type: 'ucp:cart:fallback', detail: { reason: 'not_embeddable', continue_url: CONTINUE } }]);
    expect(s.root.querySelector('iframe')).toBeNull();
  });
});
