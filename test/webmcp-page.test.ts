// @vitest-environment happy-dom
/**
 * The WebMCP chunk's page side (src/webmcp/) against a stubbed shop: what the browser flow in
 * e2e/webmcp.spec.ts cannot easily provoke — line numbers mapped back to the agent's own when its
 * lines were merged into the shopper's cart, a refused request leaving the shopper's cart and its
 * message line alone, a handler that throws, and registration that never throws or logs.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fieldErrors, linesOf } from '../src/client/api.ts';
import { make as pickerKit } from '../src/views/customize.tsx';
import { kit } from '../src/views/kit.ts';

const { fieldText } = pickerKit(kit);
import { adoptStyles } from '../src/views/styles.ts';
import { money, Store } from '../src/state/store.ts';
import { handlers, type Deps } from '../src/webmcp/tools.ts';
import { guarded, registerTools } from '../src/webmcp/webmcp.ts';

afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

type Reply = { status?: number; body: unknown };
function stubShop(reply: (method: string, path: string, body: any) => Reply) {
  const calls: Array<{ method: string; path: string; body: any }> = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    const path = new URL(url).pathname;
    const body = init.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method: init.method ?? 'GET', path, body });
    const r = reply(init.method ?? 'GET', path, body);
    return new Response(JSON.stringify(r.body), { status: r.status ?? 200, headers: { 'content-type': 'application/json' } });
  });
  return calls;
}

const cart = (lines: any[]) => ({
  ucp: { version: '2026-04-08' }, id: 'c1', currency: 'USD', continue_url: 'http://w.test/cart/c1', expires_at: '',
  totals: [{ type: 'total', amount: 100 }],
  line_items: lines.map((l, i) => ({ id: `li_${i + 1}`, item: { id: l.item.id, title: 'T', price: 100 }, quantity: l.quantity, totals: [] })),
});

function deps(origin: string): Deps {
  return { store: new Store(origin), fieldErrors, fieldText, money, linesOf, adoptStyles };
}

describe('WebMCP cart tools on the shopper\'s cart', () => {
  it('create_cart merges into the shopper\'s cart and reports errors at the agent\'s own line numbers', async () => {
    localStorage.setItem('ucp:cart:http://w.test', 'c1');
    const calls = stubShop((m, path, body) => {
      if (m === 'GET') return { body: cart([{ item: { id: 'v_a' }, quantity: 1 }]) };
      if (path === '/api/ucp/catalog/product') return { body: { ucp: { version: '2026-04-08' }, product: { id: 'p', variants: [{ id: 'v_b', metadata: { customizations: [{ id: 'engraving', type: 'text', label: 'Engraving', required: true, max_length: 20 }] } }] } } };
      expect(body.line_items).toHaveLength(2);
      return {
        body: {
          ucp: { version: '2026-04-08', status: 'error' },
          messages: [{ type: 'error', code: 'customization_required', path: '$.line_items[1].customizations', content: "'engraving' (Engraving) is required" }],
        },
      };
    });
    const d = deps('http://w.test');
    const r: any = await handlers(d).create_cart({ cart: { line_items: [{ item: { id: 'v_b' }, quantity: 1 }] } }, {});
    expect(calls.find((c) => c.method === 'PUT')!.body.line_items.map((l: any) => l.item.id)).toEqual(['v_a', 'v_b']);
    expect(r.isError).toBe(true);
    expect(r.structuredContent.messages[0].path).toBe('$.line_items[0].customizations');
    expect(r.content[1].text).toContain("$.cart.line_items[0].customizations 'engraving' (Engraving): This field is required.");
    // Nothing changed in the page.
    expect(d.store.cart.value!.line_items).toHaveLength(1);
  });

  it('a refused request is re-rooted at the arguments and is not shown as the shopper\'s cart error', async () => {
    localStorage.setItem('ucp:cart:http://w2.test', 'c1');
    stubShop((m) =>
      m === 'GET'
        ? { body: cart([{ item: { id: 'v_a' }, quantity: 1 }]) }
        : { status: 400, body: { code: 'invalid_request', content: 'The request has 1 invalid field: $.line_items[1].quantity', messages: [{ type: 'error', code: 'invalid_type', path: '$.line_items[1].quantity', content: 'expected number' }] } },
    );
    const d = deps('http://w2.test');
    await d.store.load();
    const shown = [{ type: 'error' as const, content: 'earlier' }];
    d.store.error.value = shown;
    const r: any = await handlers(d).create_cart({ cart: { line_items: [{ item: { id: 'v_b' }, quantity: 'x' }] } }, {});
    expect(r).toMatchObject({ isError: true, structuredContent: { code: 'invalid_request', content: 'The request has 1 invalid field: $.cart.line_items[0].quantity', messages: [{ path: '$.cart.line_items[0].quantity' }] } });
    expect(d.store.error.value).toBe(shown);
    expect(d.store.busy.value).toBe(false);
  });

  it('refuses another cart\'s id, and a malformed one, without a request', async () => {
    const calls = stubShop(() => ({ body: {} }));
    const h = handlers(deps('http://w3.test'));
    expect(await h.get_cart({ id: 'c_other' }, {})).toMatchObject({ isError: true, structuredContent: { messages: [{ code: 'not_found' }] } });
    expect(await h.begin_checkout({ id: 7 }, {})).toMatchObject({ isError: true, structuredContent: { messages: [{ path: '$.id' }] } });
    expect(await h.begin_checkout({}, {})).toMatchObject({ isError: true, structuredContent: { messages: [{ code: 'not_found' }] } });
    expect(await h.update_cart({ cart: 'x' }, {})).toMatchObject({ isError: true, structuredContent: { messages: [{ path: '$.cart' }] } });
    expect(calls).toEqual([]);
  });

  it('a declined confirmation changes nothing (the agent\'s abort closes the question as a no)', async () => {
    localStorage.setItem('ucp:cart:http://w4.test', 'c1');
    const calls = stubShop(() => ({ body: cart([{ item: { id: 'v_a' }, quantity: 2 }]) }));
    const h = handlers(deps('http://w4.test'));
    const ac = new AbortController();
    const pending = h.cancel_cart({}, { signal: ac.signal });
    await vi.waitFor(() => expect(document.body.querySelector('div')?.shadowRoot?.querySelector('dialog')).toBeTruthy());
    ac.abort();
    expect(await pending).toMatchObject({ isError: true, structuredContent: { messages: [{ code: 'declined' }] } });
    expect(calls.map((c) => c.method)).toEqual(['GET']);
    expect(document.body.querySelector('div')).toBeNull();
  });

  it('asks through the agent\'s requestUserInteraction when the client offers it', async () => {
    localStorage.setItem('ucp:cart:http://w5.test', 'c1');
    stubShop(() => ({ body: cart([{ item: { id: 'v_a' }, quantity: 1 }]) }));
    const d = deps('http://w5.test');
    const handed: string[] = [];
    d.store.handoff = (c) => handed.push(c.id);
    let asked = 0;
    const client = {
      requestUserInteraction: async (ask: () => Promise<boolean>) => {
        asked++;
        const answer = ask();
        document.body.querySelector('div')!.shadowRoot!.querySelector('dialog')!.close('yes');
        return answer;
      },
    };
    const r: any = await handlers(d).begin_checkout({}, client);
    expect(asked).toBe(1);
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent.id).toBe('c1');
    await vi.waitFor(() => expect(handed).toEqual(['c1']));
  });
});

describe('registration', () => {
  it('a handler that throws becomes an error result', async () => {
    const r = await guarded(async () => {
      throw new Error('boom');
    })(null, undefined);
    expect(r).toMatchObject({ isError: true, structuredContent: { messages: [{ code: 'internal_error', severity: 'unrecoverable' }] } });
  });

  it('registers the listed tools it knows; a refused list or a taken name registers nothing and throws nothing', async () => {
    const tools = [{ name: 'get_cart', description: 'd', inputSchema: { type: 'object' } }, { name: 'not_ours', description: 'd', inputSchema: {} }];
    const registered: string[] = [];
    const mc = { registerTool: vi.fn(async (t: { name: string }) => { if (registered.includes(t.name)) throw new DOMException('Duplicate tool name', 'InvalidStateError'); registered.push(t.name); }) };
    stubShop(() => ({ status: 404, body: { code: 'webmcp_disabled' } }));
    await registerTools(mc, deps('http://w6.test'));
    expect(mc.registerTool).not.toHaveBeenCalled();
    stubShop(() => ({ body: { version: '2026-04-08', tools } }));
    await registerTools(mc, deps('http://w6.test'));
    await registerTools(mc, deps('http://w6.test'));
    expect(registered).toEqual(['get_cart']);
    expect(mc.registerTool).toHaveBeenCalledTimes(2);
    vi.stubGlobal('fetch', async () => { throw new TypeError('offline'); });
    await expect(registerTools(mc, deps('http://w6.test'))).resolves.toBeUndefined();
  });
});
