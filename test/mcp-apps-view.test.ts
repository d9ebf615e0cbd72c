// @vitest-environment happy-dom
/**
 * The MCP Apps view's own parts, where a browser host cannot make them fail on demand (the flows
 * with the official AppBridge are e2e/mcp-apps.spec.ts and e2e/engines/flows.ts): the bridge's
 * deadline and its answers to the host's requests, how a tool result is read, the retry with the
 * model's agent profile, and the cart in words for the model.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Bridge, BridgeError, PROTOCOL_VERSION, TIMEOUT } from '../src/apps/bridge.ts';
import { callFailure, readToolResult, ToolClient, twinOf } from '../src/apps/tools.ts';
import { cartSummary } from '../src/apps/shell.ts';
import type { Cart } from '../src/wire/cart.ts';

/** A stand-in for the host's window: what the view posts to it, and messages "from" it. */
function fakeHost() {
  const sent: any[] = [];
  const win = { postMessage: (m: unknown) => sent.push(m) } as unknown as Window;
  const from = (data: unknown, source: unknown = win) => window.dispatchEvent(new MessageEvent('message', { data, source: source as Window }));
  return { win, sent, from };
}

afterEach(() => vi.useRealTimers());

describe('Bridge', () => {
  it('a request unanswered by its deadline fails with TIMEOUT; a late answer is ignored', async () => {
    vi.useFakeTimers();
    const h = fakeHost();
    const b = new Bridge(h.win, 1000);
    const p = b.request('tools/call', { name: 'get_cart' });
    const caught = p.catch((e: BridgeError) => e);
    vi.advanceTimersByTime(1001);
    const e = (await caught) as BridgeError;
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.code).toBe(TIMEOUT);
    expect(e.message).toContain('no answer from the host within 1 s');
    h.from({ jsonrpc: '2.0', id: h.sent[0].id, result: {} });
    expect(callFailure(e).messages[0]).toMatchObject({ code: 'timeout', content: 'The chat app did not answer in time. Please try again.' });
  });

  it('an error answer rejects with its code, message and data; a result resolves', async () => {
    const h = fakeHost();
    const b = new Bridge(h.win);
    const bad = b.request('tools/call').catch((e: BridgeError) => e);
    const good = b.request('ui/open-link', { url: 'https://shop.example/cart/1' });
    h.from({ jsonrpc: '2.0', id: h.sent[0].id, error: { code: -32000, message: 'Link opening denied by user', data: { x: 1 } } });
    h.from({ jsonrpc: '2.0', id: h.sent[1].id, result: { ok: true } });
    const e = (await bad) as BridgeError;
    expect([e.code, e.message, e.data]).toEqual([-32000, 'Link opening denied by user', { x: 1 }]);
    expect(await good).toEqual({ ok: true });
  });

  it('reads only messages from its host window, and only JSON-RPC', async () => {
    vi.useFakeTimers();
    const h = fakeHost();
    const b = new Bridge(h.win, 500);
    const seen: unknown[] = [];
    b.on('ui/notifications/tool-result', (p) => seen.push(p));
    const p = b.request('ping').catch((e: BridgeError) => e.code);
    h.from({ jsonrpc: '2.0', id: h.sent[0].id, result: {} }, window); // another window: ignored
    h.from({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { a: 1 } }, window);
    h.from('not json-rpc');
    h.from({ method: 'ui/notifications/tool-result', params: { b: 1 } }); // no "jsonrpc": ignored
    h.from({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { c: 1 } });
    vi.advanceTimersByTime(501);
    expect(await p).toBe(TIMEOUT);
    expect(seen).toEqual([{ c: 1 }]);
  });

  it("answers the host's teardown after the view's last words, ping, and -32601 for anything else", () => {
    const h = fakeHost();
    const b = new Bridge(h.win);
    const order: string[] = [];
    b.onTeardown = () => order.push('teardown ran');
    h.from({ jsonrpc: '2.0', id: 7, method: 'ui/resource-teardown', params: { reason: 'closed' } });
    order.push('answered');
    h.from({ jsonrpc: '2.0', id: 8, method: 'ping' });
    h.from({ jsonrpc: '2.0', id: 9, method: 'sampling/createMessage', params: {} });
    expect(order).toEqual(['teardown ran', 'answered']);
    expect(h.sent).toEqual([
      { jsonrpc: '2.0', id: 7, result: {} },
      { jsonrpc: '2.0', id: 8, result: {} },
      { jsonrpc: '2.0', id: 9, error: { code: -32601, message: 'Method not found: sampling/createMessage' } },
    ]);
  });

  it('initializes with the protocol version and its display modes, then says initialized', async () => {
    const h = fakeHost();
    const b = new Bridge(h.win);
    const init = b.initialize({ name: 'v', version: '1' });
    expect(h.sent[0]).toMatchObject({ method: 'ui/initialize', params: { protocolVersion: PROTOCOL_VERSION, appCapabilities: { availableDisplayModes: ['inline', 'fullscreen'] } } });
    h.from({ jsonrpc: '2.0', id: h.sent[0].id, result: { hostContext: { theme: 'dark' } } });
    expect((await init).hostContext).toEqual({ theme: 'dark' });
    expect(h.sent[1]).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} });
  });
});

describe('reading a tool result', () => {
  const ucp = { version: '2026-04-08' };
  it('a UCP body is the answer; a UCP error (or isError) is a failure with its messages', () => {
    expect(readToolResult({ structuredContent: { ucp, id: 'cart_1' } })).toEqual({ ok: true, data: { ucp, id: 'cart_1' } });
    const messages = [{ type: 'error', code: 'not_found', content: 'Product not found.' }];
    expect(readToolResult({ isError: true, structuredContent: { ucp, messages } })).toMatchObject({ ok: false, messages });
    expect(readToolResult({ structuredContent: { ucp: { ...ucp, status: 'error' }, messages } })).toMatchObject({ ok: false, messages });
  });

  it('anything that is not a UCP response is a clear failure, never a throw', () => {
    for (const bad of [null, 'text', 42, [], {}, { structuredContent: { hello: 1 } }, { structuredContent: { ucp: {} } }, { structuredContent: { ucp: { version: 5 } } }]) {
      const r = readToolResult(bad);
      expect(r.ok, JSON.stringify(bad)).toBe(false);
      if (!r.ok) expect(r.messages[0].code).toBe('invalid_response');
    }
    // An isError result with no UCP body: its text is the reason.
    const r = readToolResult({ isError: true, content: [{ type: 'text', text: 'Tool get_cart failed: boom' }] });
    expect(!r.ok && r.messages[0].content).toBe('Tool get_cart failed: boom');
  });

  it('each REST operation the views use is its twin tool', () => {
    expect(twinOf('POST', '/catalog/product', { id: 'p' })).toEqual({ name: 'get_product', arguments: { catalog: { id: 'p' } } });
    expect(twinOf('POST', '/catalog/search', { query: 'q' })).toEqual({ name: 'search_catalog', arguments: { catalog: { query: 'q' } } });
    expect(twinOf('POST', '/catalog/lookup', { ids: ['a'] })).toEqual({ name: 'lookup_catalog', arguments: { catalog: { ids: ['a'] } } });
    expect(twinOf('POST', '/carts', { line_items: [] })).toEqual({ name: 'create_cart', arguments: { cart: { line_items: [] } } });
    expect(twinOf('GET', '/carts/cart_a%2Fb')).toEqual({ name: 'get_cart', arguments: { id: 'cart_a/b' } });
    expect(twinOf('PUT', '/carts/cart_1', { line_items: [] })).toEqual({ name: 'update_cart', arguments: { id: 'cart_1', cart: { line_items: [] } } });
    expect(twinOf('POST', '/carts/cart_1/cancel', {})).toBeNull();
    expect(twinOf('DELETE', '/carts/cart_1')).toBeNull();
  });
});

describe('ToolClient', () => {
  const refusal = { code: -32001, message: 'arguments.meta is missing', data: { code: 'invalid_profile_url' } };
  const agent = { profile: 'https://agent.example/.well-known/ucp' };

  it("after the server's invalid_profile_url, calls again once with the model's agent, and keeps it", async () => {
    const h = fakeHost();
    const client = new ToolClient(new Bridge(h.win), () => agent);
    const answer = (i: number, m: object) => setTimeout(() => h.from({ jsonrpc: '2.0', id: h.sent[i].id, ...m }));
    const first = client.getCart('cart_1');
    answer(0, { error: refusal });
    await vi.waitFor(() => expect(h.sent).toHaveLength(2));
    expect(h.sent[0].params.arguments.meta).toBeUndefined();
    expect(h.sent[1].params.arguments.meta).toEqual({ 'ucp-agent': agent });
    answer(1, { result: { structuredContent: { ucp: { version: '2026-04-08' }, id: 'cart_1' } } });
    expect((await first).ok).toBe(true);
    const second = client.getCart('cart_1');
    expect(h.sent[2].params.arguments.meta).toEqual({ 'ucp-agent': agent });
    answer(2, { result: { structuredContent: { ucp: { version: '2026-04-08' }, id: 'cart_1' } } });
    expect((await second).ok).toBe(true);
  });

  it('a declined call is not repeated, and says so', async () => {
    const h = fakeHost();
    const client = new ToolClient(new Bridge(h.win), () => agent);
    const r = client.updateCart('cart_1', { line_items: [] });
    h.from({ jsonrpc: '2.0', id: h.sent[0].id, error: { code: -32000, message: 'The buyer declined this change.' } });
    const out = await r;
    expect(h.sent).toHaveLength(1);
    expect(!out.ok && out.messages[0]).toMatchObject({ code: 'declined', content: 'This action was not carried out: The buyer declined this change.' });
  });
});

describe('the cart in words for the model', () => {
  it('names the cart, its lines with customizations and ids, the codes, the total, checkout and the tools', () => {
    const cart = {
      ucp: { version: '2026-04-08' },
      id: 'cart_9',
      currency: 'USD',
      line_items: [
        { id: 'l1', item: { id: 'var_flask_black', title: 'Engraved Steel Flask', price: 3400 }, quantity: 2, customizations: [{ id: 'engraving', value: 'Hi', display_text: 'Engraving: Hi' }], totals: [{ type: 'subtotal', amount: 6800 }] },
      ],
      totals: [{ type: 'subtotal', amount: 6800 }, { type: 'discount', amount: 680 }, { type: 'total', amount: 6120 }],
      discounts: { codes: ['WELCOME10'], applied: [] },
      continue_url: 'https://shop.example/cart/cart_9',
      expires_at: '2026-12-01T00:00:00Z',
    } as Cart;
    expect(cartSummary(cart)).toBe(
      'The shopper changed cart cart_9 in the shop\'s view. It holds 2 × Engraved Steel Flask (Engraving: Hi) [var_flask_black]: $68.00. Discount codes: WELCOME10. Total $61.20 (USD). Checkout: https://shop.example/cart/cart_9. Use get_cart or update_cart with id "cart_9" for this cart.',
    );
    expect(cartSummary({ ...cart, line_items: [], totals: [] })).toBe('The shopper changed cart cart_9 in the shop\'s view. It is empty. Discount codes: WELCOME10. Use get_cart or update_cart with id "cart_9" for this cart.');
  });
});

describe('links the view hands to its host (src/apps/links.ts)', () => {
  it('only absolute http(s) addresses go to ui/open-link: a tool result cannot make Checkout run javascript:', async () => {
    const { webAddress } = await import('../src/apps/links.ts');
    expect(webAddress('https://woo.example.com/?p=45')).toBe(true);
    expect(webAddress('http://demo.localhost:8080/cart/c1')).toBe(true);
    for (const bad of ['javascript:alert(1)', 'JavaScript:alert(1)', ' javascript:alert(1)', 'data:text/html,<script>1</script>', '/cart/c1', 'vbscript:x', '', undefined, 42]) expect(webAddress(bad)).toBe(false);
  });
});

describe('tool results the view cannot draw (src/apps/shell.ts, the wire view shapes)', () => {
  const ucp = { version: '2026-04-08' };
  const goodCart = {
    ucp,
    id: 'cart_1',
    currency: 'USD',
    line_items: [{ id: 'li_1', item: { id: 'var_1', title: 'Mug', price: 1200 }, quantity: 1, totals: [{ type: 'subtotal', amount: 1200 }] }],
    totals: [{ type: 'total', amount: 1200 }],
    continue_url: 'https://shop.example/cart/cart_1',
  };
  const search = { ucp, products: [{ id: 'p1', title: 'Mug', price_range: { min: { amount: 1200, currency: 'USD' }, max: { amount: 1200, currency: 'USD' } }, variants: [{ id: 'var_1', title: 'Mug', price: { amount: 1200, currency: 'USD' }, availability: { available: true } }] }], pagination: { has_next_page: false } };
  const result = (body: unknown) => ({ content: [{ type: 'text', text: '' }], structuredContent: body });

  it.each([
    ['a line without item', { ...goodCart, line_items: [{ quantity: 1 }] }],
    ['a quantity that is not a number', { ...goodCart, line_items: [{ quantity: 'x' }] }],
    ['discount codes that are not a list', { ...goodCart, discounts: { codes: 'x', applied: [] } }],
    ['a product without variants', { ucp, products: [{ id: 'p', title: 'x', price_range: search.products[0].price_range, variants: [] }] }],
  ])('%s: a notice, the last good screen kept, and the next good result drawn', async (_, bad) => {
    const { Shell } = await import('../src/apps/shell.ts');
    const h = fakeHost();
    const shell = new Shell(new Bridge(h.win, 1000));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    shell.toolResult(result(search));
    expect(shell.screen.value).toBe('cards');
    shell.toolResult(result(bad));
    expect(shell.screen.value).toBe('cards');
    expect(shell.notice.value).not.toBe('');
    expect(warn).toHaveBeenCalled();
    shell.toolResult(result(goodCart));
    expect(shell.screen.value).toBe('cart');
    expect(shell.notice.value).toBe('');
    expect(shell.store.cart.value?.id).toBe('cart_1');
    warn.mockRestore();
  });
});
