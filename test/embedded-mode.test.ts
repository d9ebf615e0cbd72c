// @vitest-environment happy-dom
/** Mode selection (detectEmbedded), origin rules and the embedded side of the handshake. */
import { afterEach, describe, expect, it } from 'vitest';
import { detectEmbedded, startEmbedded } from '../src/embedded/index.ts';
import { embedUrl, originAllowed, stripEp } from '../src/embedded/origins.ts';

const AGENT = 'http://agent.localhost:8391';
const SHOP = 'http://demo.localhost:8391';
const ALLOWED = ['http://agent.localhost:*'];

describe('detectEmbedded', () => {
  it('embedded iff ep_version (or ec_version) is present', () => {
    expect(detectEmbedded({ search: '' })).toBeNull();
    expect(detectEmbedded({ search: '?foo=1&ep_versionx=1' })).toBeNull();
    expect(detectEmbedded({ search: '?ep_version=2026-04-08' })).toEqual({ version: '2026-04-08', delegate: [] });
    expect(detectEmbedded({ search: '?ec_version=2026-04-08&ec_delegate=window.open' })).toEqual({ version: '2026-04-08', delegate: ['window.open'] });
  });

  it('reads ep_auth, ep_cart_delegate and a valid ep_color_scheme', () => {
    expect(detectEmbedded({ search: '?ep_version=2026-04-08&ep_auth=a%2Bb&ep_cart_delegate=x,%20y,&ep_color_scheme=dark' })).toEqual({
      version: '2026-04-08', auth: 'a+b', delegate: ['x', 'y'], colorScheme: 'dark',
    });
    expect(detectEmbedded({ search: '?ep_version=2026-04-08&ep_color_scheme=purple' })?.colorScheme).toBeUndefined();
  });
});

describe('origin rules', () => {
  it('exact origins, :* port wildcard, self; nothing else', () => {
    expect(originAllowed(AGENT, ALLOWED)).toBe(true);
    expect(originAllowed('http://agent.localhost', ALLOWED)).toBe(true);
    expect(originAllowed('https://agent.localhost:8391', ALLOWED)).toBe(false);
    expect(originAllowed('http://evil.agent.localhost:8391', ALLOWED)).toBe(false);
    expect(originAllowed('http://other.localhost:8391', ALLOWED)).toBe(false);
    expect(originAllowed(AGENT, ['http://agent.localhost:8080'])).toBe(false);
    expect(originAllowed(AGENT, [AGENT])).toBe(true);
    expect(originAllowed(SHOP, ["'self'"], SHOP)).toBe(true);
    expect(originAllowed('null', ['*', 'null'])).toBe(false);
    expect(originAllowed('http://agent.example', ['http://agent.example'])).toBe(false); // plain http only for local hosts
    expect(originAllowed('https://agent.example', ['https://agent.example'])).toBe(true);
  });

  it('builds the embed URL: own query kept, stale ep_* replaced; strips it for hand-off', () => {
    const u = embedUrl(`${SHOP}/cart/c1?ref=x&ep_version=old&ep_auth=stale`, { version: '2026-04-08', colorScheme: 'dark' });
    const q = new URL(u).searchParams;
    expect(q.get('ref')).toBe('x');
    expect(q.get('ep_version')).toBe('2026-04-08');
    expect(q.get('ep_cart_delegate')).toBe('');
    expect(q.get('ep_color_scheme')).toBe('dark');
    expect(q.has('ep_auth')).toBe(false);
    expect(stripEp(u)).toBe(`${SHOP}/cart/c1?ref=x`);
  });
});

/** A fake framed window: `parent` records what it is sent; `deliver` plays incoming messages. */
function frame(opts: { ancestor?: string; referrer?: string; framed?: boolean } = {}) {
  const et = new EventTarget();
  const posted: Array<{ msg: any; opts: any }> = [];
  const parent = { postMessage: (msg: any, o: any) => posted.push({ msg, opts: o }) };
  const w: any = {
    addEventListener: et.addEventListener.bind(et),
    removeEventListener: et.removeEventListener.bind(et),
    location: { ancestorOrigins: opts.ancestor ? [opts.ancestor] : undefined, origin: SHOP, href: `${SHOP}/cart/c1?ep_version=2026-04-08` },
    document: { referrer: opts.referrer ?? '', documentElement: document.documentElement },
    opener: null,
  };
  w.parent = opts.framed === false ? w : parent;
  const deliver = (data: unknown, source: unknown = parent, origin = opts.ancestor ?? opts.referrer) =>
    et.dispatchEvent(Object.assign(new Event('message'), { data, source, origin }));
  return { w: w as Window, parent, posted, deliver };
}
const tick = () => new Promise((r) => setTimeout(r, 0));
const PARAMS = { version: '2026-04-08', delegate: [] };
const success = { version: '2026-04-08', status: 'success' };

describe('startEmbedded', () => {
  afterEach(() => {
    document.documentElement.removeAttribute('style');
    delete document.documentElement.dataset.colorScheme;
  });

  it('not framed => null, nothing posted (plain page)', async () => {
    const f = frame({ framed: false, ancestor: AGENT });
    expect(await startEmbedded(PARAMS, { allowedOrigins: ALLOWED }, f.w)).toBeNull();
    expect(f.posted).toEqual([]);
  });

  it('framed by a disallowed origin => null, nothing posted', async () => {
    const f = frame({ ancestor: 'http://other.localhost:8391' });
    expect(await startEmbedded(PARAMS, { allowedOrigins: ALLOWED }, f.w)).toBeNull();
    expect(f.posted).toEqual([]);
  });

  it('parent origin unknown (no ancestorOrigins, no referrer) => null; never posts to "*"', async () => {
    const f = frame({});
    expect(await startEmbedded(PARAMS, { allowedOrigins: ['*', ...ALLOWED] }, f.w)).toBeNull();
    expect(f.posted).toEqual([]);
  });

  it('handshake with port upgrade; forged messages ignored; notifications on the port', async () => {
    const f = frame({ ancestor: AGENT });
    const started = startEmbedded({ ...PARAMS, delegate: ['window.open'], colorScheme: 'dark' }, { allowedOrigins: ALLOWED }, f.w);
    await tick();
    expect(document.documentElement.dataset.colorScheme).toBe('dark');
    expect(f.posted).toHaveLength(1);
    const { msg, opts } = f.posted[0];
    expect(opts.targetOrigin).toBe(AGENT);
    expect(msg).toEqual({ jsonrpc: '2.0', id: 1, method: 'ep.cart.ready', params: { delegate: [] } });

    // Forgeries: wrong source, wrong origin. Both must be ignored.
    const evil = new MessageChannel();
    f.deliver({ jsonrpc: '2.0', id: 1, result: { ucp: success, upgrade: { port: evil.port2 } } }, {}, AGENT);
    f.deliver({ jsonrpc: '2.0', id: 1, result: { ucp: success, upgrade: { port: evil.port2 } } }, f.parent, 'http://other.localhost:8391');
    await tick();

    const mc = new MessageChannel();
    const onPort: any[] = [];
    mc.port1.onmessage = (e) => {
      onPort.push(e.data);
      if (e.data.method === 'ep.cart.ready') mc.port1.postMessage({ jsonrpc: '2.0', id: e.data.id, result: { ucp: success, credential: 'ignored?' } });
    };
    f.deliver({ jsonrpc: '2.0', id: 1, result: { ucp: success, upgrade: { port: mc.port2 }, credential: 'must-be-ignored' } });
    const session = await started;
    expect(session).not.toBeNull();
    expect(session!.channel).toBe('port');
    expect(onPort[0]).toMatchObject({ method: 'ep.cart.ready', params: { delegate: [] } });
    expect(session!.credential).toBe('ignored?'); // from the second (port) answer only
    expect(session!.colorScheme).toBe('dark');

    const cart = { ucp: { version: '2026-04-08' }, id: 'c1', line_items: [], currency: 'USD', totals: [] };
    session!.start(cart);
    session!.lineItemsChanged(cart);
    session!.messagesChanged(cart);
    session!.buyerChanged(cart);
    session!.complete(cart);
    session!.error({ ucp: { version: 'x', status: 'error' }, messages: [{ type: 'error', code: 'not_found', content: 'gone', severity: 'unrecoverable' }] });
    session!.start(cart); // dead after error: not sent
    await new Promise((r) => setTimeout(r, 20));
    expect(onPort.slice(1).map((m) => m.method)).toEqual([
      'ep.cart.start', 'ep.cart.line_items.change', 'ep.cart.messages.change', 'ep.cart.buyer.change', 'ep.cart.complete', 'ep.cart.error',
    ]);
    expect(onPort[1].params.cart).toEqual(cart);
    expect(onPort.at(-1).params.error.ucp).toEqual({ version: '2026-04-08', status: 'error' });
    expect(f.posted).toHaveLength(1); // nothing more on the window after the upgrade
    mc.port1.close();
    evil.port1.close();
  });

  it('uses document.referrer when ancestorOrigins is missing (Firefox) and keeps ep_auth over credential', async () => {
    const f = frame({ referrer: `${AGENT}/some/page` });
    const started = startEmbedded({ ...PARAMS, auth: 'url-token' }, { allowedOrigins: ALLOWED, authType: 'oauth' }, f.w);
    await tick();
    expect(f.posted[0].opts.targetOrigin).toBe(AGENT);
    expect(f.posted[0].msg.params).toEqual({ delegate: [] }); // ep_auth present: no auth request
    f.deliver({ jsonrpc: '2.0', id: 1, result: { ucp: success } }, f.parent, AGENT);
    const s = await started;
    expect(s?.channel).toBe('window');
    expect(s?.credential).toBe('url-token');
  });

  it('asks for auth when configured and gets the credential', async () => {
    const f = frame({ ancestor: AGENT });
    const started = startEmbedded(PARAMS, { allowedOrigins: ALLOWED, authType: 'oauth' }, f.w);
    await tick();
    expect(f.posted[0].msg.params).toEqual({ delegate: [], auth: { type: 'oauth' } });
    f.deliver({ jsonrpc: '2.0', id: 1, result: { ucp: success, credential: 'tok' } });
    expect((await started)?.credential).toBe('tok');
  });

  it('a handshake error_response => null and silence', async () => {
    const f = frame({ ancestor: AGENT });
    const started = startEmbedded(PARAMS, { allowedOrigins: ALLOWED }, f.w);
    await tick();
    f.deliver({ jsonrpc: '2.0', id: 1, result: { ucp: { version: '2026-04-08', status: 'error' }, messages: [{ type: 'error', code: 'security_error', content: 'no', severity: 'unrecoverable' }] } });
    expect(await started).toBeNull();
    expect(f.posted).toHaveLength(1);
  });

  it('no answer within the timeout => null', async () => {
    const f = frame({ ancestor: AGENT });
    expect(await startEmbedded(PARAMS, { allowedOrigins: ALLOWED, timeout: 20 }, f.w)).toBeNull();
  });

  it('an unsupported version => ep.cart.error version_unsupported to the allowed parent, then null', async () => {
    const f = frame({ ancestor: AGENT });
    expect(await startEmbedded({ ...PARAMS, version: '2025-01-01' }, { allowedOrigins: ALLOWED }, f.w)).toBeNull();
    expect(f.posted[0].msg).toMatchObject({ method: 'ep.cart.error', params: { error: { messages: [{ code: 'version_unsupported' }], continue_url: `${SHOP}/cart/c1` } } });
  });

  it('answers host requests with -32601 (none exist at this version)', async () => {
    const f = frame({ ancestor: AGENT });
    const started = startEmbedded(PARAMS, { allowedOrigins: ALLOWED }, f.w);
    await tick();
    f.deliver({ jsonrpc: '2.0', id: 'h1', method: 'ep.cart.refresh', params: {} });
    f.deliver({ jsonrpc: '2.0', method: 'ep.cart.theme', params: {} });
    await tick();
    expect(f.posted[1].msg).toEqual({ jsonrpc: '2.0', id: 'h1', error: { code: -32601, message: 'Method not found: ep.cart.refresh' } });
    expect(f.posted).toHaveLength(2);
    f.deliver({ jsonrpc: '2.0', id: 1, result: { ucp: success } });
    expect(await started).not.toBeNull();
  });

  it('native webview channel: defines EmbeddedCartProtocol before sending ready', async () => {
    const f = frame({ framed: false });
    const sent: string[] = [];
    (f.w as any).EmbeddedCartProtocolConsumer = {
      postMessage: (s: string) => {
        expect(typeof (f.w as any).EmbeddedCartProtocol?.postMessage).toBe('function');
        sent.push(s);
      },
    };
    const started = startEmbedded(PARAMS, { allowedOrigins: [] }, f.w);
    await tick();
    const req = JSON.parse(sent[0]);
    expect(req.method).toBe('ep.cart.ready');
    (f.w as any).EmbeddedCartProtocol.postMessage(JSON.stringify({ jsonrpc: '2.0', id: req.id, result: { ucp: success } }));
    expect((await started)?.channel).toBe('native');
  });
});
