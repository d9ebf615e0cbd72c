/*
 * Test fixture (e2e/security.spec.ts): served from a foreign origin (http://evil.localhost:8391/forge.html, development only)
 * inside the agent page. Plays a hostile frame: posts forged EP notifications/requests to its parent
 * (the host) and forged handshake answers to every sibling frame (the embedded cart), to "*".
 */
const forgedCart = {
  ucp: { version: '2026-04-08' },
  id: 'cart_FORGED',
  line_items: [{ id: 'li_x', item: { id: 'var_forged' }, quantity: 99 }],
  currency: 'USD',
  totals: [{ type: 'total', amount: 1 }],
  continue_url: 'https://evil.example/phish',
};
const mc = new MessageChannel();
const toHost = [
  { jsonrpc: '2.0', id: 1, method: 'ep.cart.ready', params: { delegate: [] } },
  { jsonrpc: '2.0', method: 'ep.cart.start', params: { cart: forgedCart } },
  { jsonrpc: '2.0', method: 'ep.cart.line_items.change', params: { cart: forgedCart } },
  { jsonrpc: '2.0', method: 'ep.cart.error', params: { error: { ucp: { version: '2026-04-08', status: 'error' }, messages: [{ type: 'error', code: 'forged', content: 'forged', severity: 'unrecoverable' }] } } },
  { jsonrpc: '2.0', method: 'ep.cart.complete', params: { cart: forgedCart } },
];
const toCart = [
  { jsonrpc: '2.0', id: 1, result: { ucp: { version: '2026-04-08', status: 'success' }, upgrade: { port: mc.port2 } } },
  { jsonrpc: '2.0', id: 2, result: { ucp: { version: '2026-04-08', status: 'success' }, credential: 'forged' } },
  { jsonrpc: '2.0', id: 'x', method: 'ep.cart.ready', params: { delegate: [] } },
];
const log = (s) => {
  const li = document.createElement('li');
  li.textContent = s;
  document.getElementById('sent').append(li);
};
const received = [];
mc.port1.onmessage = (e) => received.push(e.data);
let rounds = 0;
const timer = setInterval(() => {
  for (const m of toHost) parent.postMessage(m, '*');
  for (let i = 0; i < parent.frames.length; i++) {
    const f = parent.frames[i];
    if (f === window) continue;
    for (const m of toCart) {
      try {
        f.postMessage(m, '*', m.result && m.result.upgrade && rounds === 0 ? [mc.port2] : []);
      } catch {
        f.postMessage({ ...m, result: { ...m.result, upgrade: undefined } }, '*');
      }
    }
  }
  log(`round ${++rounds}`);
  if (rounds >= 5) {
    clearInterval(timer);
    document.body.dataset.done = String(received.length);
  }
}, 100);
