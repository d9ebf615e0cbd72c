/*
 * Demo agent (host role). Loads host.js from the demo shop's origin (always http://demo.localhost,
 * on this page's port: the development server that serves this page serves the shop too; never a
 * name derived from this page's host, issue 47), creates a cart through the shop's UCP REST
 * API (CORS, done by UCP.openCart) and opens it with UCP.openCart; logs every `ucp:cart:*` event.
 * Tests read the on-screen log: each entry is <li data-type="ucp:cart:…"> with the event detail as JSON.
 */
const SHOP = new URL(`http://demo.localhost${location.port ? `:${location.port}` : ''}`).origin;
const $ = (id) => document.getElementById(id);
$('shop').textContent = SHOP;

const EVENTS = ['ready', 'start', 'change', 'complete', 'error', 'fallback', 'close'].map((e) => `ucp:cart:${e}`);

let logged = 0;
function log(type, detail) {
  logged += 1;
  const li = document.createElement('li');
  li.dataset.type = type;
  const head = document.createElement('strong');
  head.textContent = `${new Date().toISOString().slice(11, 23)} ${type}`;
  li.append(head);
  const cart = detail && detail.cart;
  if (cart) {
    const total = (cart.totals || []).find((t) => t.type === 'total');
    li.append(` cart ${cart.id}: ${cart.line_items.length} line(s), total ${total ? total.amount : '?'} ${cart.currency}${detail.kind ? ` (${detail.kind})` : ''}`);
    if (cart.messages && cart.messages.length) li.append(` · messages: ${cart.messages.map((m) => `${m.code || m.type}${m.path ? ` @ ${m.path}` : ''}`).join(', ')}`);
  }
  if (detail !== undefined) {
    const pre = document.createElement('pre');
    pre.textContent = JSON.stringify(detail, null, 2);
    // The detail scrolls when long: keyboard users must be able to reach and scroll it, and a
    // screen reader user to tell the entries apart (one labelled region each).
    pre.tabIndex = 0;
    pre.setAttribute('role', 'region');
    pre.setAttribute('aria-label', `Event ${logged}: ${type}`);
    li.append(pre);
  }
  $('log').append(li);
}

for (const type of EVENTS) {
  document.addEventListener(type, (e) => {
    log(type, e.detail);
    if (type === 'ucp:cart:complete' && $('stay').checked) e.preventDefault();
  });
}

let handle = null;
function openWith(opts) {
  if (handle) handle.close();
  const scheme = $('scheme').value;
  log('agent:open', opts);
  handle = window.UCP.openCart({ shopOrigin: SHOP, ...(scheme ? { colorScheme: scheme } : {}), ...opts });
}

$('create').addEventListener('submit', (e) => {
  e.preventDefault();
  const quantity = Math.max(1, Math.min(999, Number($('qty').value) || 1));
  openWith({ lineItems: [{ item: { id: $('variant').value }, quantity }] });
});
$('existing').addEventListener('submit', (e) => {
  e.preventDefault();
  const cartId = $('cart-id').value.trim();
  if (cartId) openWith({ cartId });
});
$('clear').addEventListener('click', () => $('log').replaceChildren());

/*
 * Load host.js the way a third-party page should: read the shop's manifest (/ucp/host.json, CORS),
 * load the immutable entry as a module with SRI, and pin the chunks it imports lazily (the host role
 * on the first UCP.openCart) with an import map's `integrity`. Without the manifest, fall back to
 * the short-cache URL without SRI.
 */
async function hostJs() {
  try {
    const r = await fetch(`${SHOP}/ucp/host.json`, { credentials: 'omit' });
    if (!r.ok) throw new Error(String(r.status));
    const m = await r.json();
    if (m.chunks && m.chunks.length && HTMLScriptElement.supports && HTMLScriptElement.supports('importmap')) {
      const map = document.createElement('script');
      map.type = 'importmap';
      map.nonce = document.querySelector('script[nonce]')?.nonce ?? ''; // the page's CSP admits scripts by nonce
      map.textContent = JSON.stringify({ imports: {}, integrity: Object.fromEntries(m.chunks.map((c) => [c.url, c.integrity])) });
      document.head.append(map);
    }
    return { src: m.url, integrity: m.integrity };
  } catch {
    return { src: `${SHOP}/ucp/host.js`, integrity: '' };
  }
}

hostJs().then(({ src, integrity }) => {
  const s = document.createElement('script');
  s.type = 'module';
  s.crossOrigin = 'anonymous';
  if (integrity) s.integrity = integrity;
  s.src = src;
  s.onload = () => {
    const ok = !!(window.UCP && window.UCP.openCart);
    $('hostjs').textContent = ok ? `loaded (UCP ${window.UCP.version || ''})` : 'loaded, but no UCP.openCart';
    log('agent:hostjs', { src: s.src, ok });
    if (ok) for (const b of document.querySelectorAll('button[disabled]')) b.disabled = false;
  };
  s.onerror = () => {
    $('hostjs').textContent = `failed to load ${s.src}`;
    log('agent:hostjs', { src: s.src, ok: false });
  };
  document.head.append(s);
});
