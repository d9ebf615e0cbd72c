// The request inspector page's script (served at /dev/inspector.js; server/dev/inspector-page.ts).
// Reads the chosen shop's exchanges, then asks for newer ones (?since=) once a second while the tab
// is visible. Everything shown is text content: bodies are the agent's and the server's data.
const list = document.getElementById('exchanges');
const status = document.getElementById('status');
const select = document.getElementById('shop');
const shop = select.value;
let since = 0;
let timer;

select.addEventListener('change', () => select.form.submit());

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function pretty(body) {
  if (body === null) return '(none read)';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function part(title, side) {
  const d = el('details');
  d.append(el('summary', '', `${title}${side.truncated ? ' (cut)' : ''}`));
  const headers = Object.entries(side.headers).map(([k, v]) => `${k}: ${v}`).join('\n');
  d.append(el('pre', '', `${headers}\n\n${pretty(side.body)}`));
  return d;
}

function row(x) {
  const li = el('li', x.notes.length ? 'ex noted' : 'ex');
  li.dataset.id = String(x.id);
  const line = el('div', 'line');
  line.append(el('span', 'st ' + (x.status >= 400 ? 'bad' : 'ok'), String(x.status)), el('span', 'op', x.operation), el('span', 'tr', x.transport));
  line.append(el('span', 'meta', `${new Date(x.at).toLocaleTimeString()} · ${x.duration_ms} ms · ${x.method} ${x.path}`));
  li.append(line);
  const who = [`agent: ${x.agent ?? 'none named'}`, `idempotency key: ${x.idempotency_key ?? 'none'}`, `#${x.id}`];
  li.append(el('div', 'meta', who.join(' · ')));
  if (x.notes.length) {
    const ul = el('ul', 'notes');
    ul.setAttribute('aria-label', 'Notes');
    for (const n of x.notes) ul.append(el('li', '', `⚠ ${n.message}`));
    li.append(ul);
  }
  li.append(part('Request', x.request), part('Response', x.response));
  return li;
}

async function poll() {
  clearTimeout(timer);
  if (!shop) {
    status.textContent = 'No shops yet.';
    return;
  }
  try {
    const r = await fetch(`/dev/shops/${encodeURIComponent(shop)}/requests?since=${since}`, { headers: { Accept: 'application/json' } });
    const body = await r.json();
    if (!r.ok) throw new Error(body.content ?? `HTTP ${r.status}`);
    const fresh = body.exchanges.slice().reverse();
    for (const x of fresh) list.prepend(row(x));
    while (list.children.length > body.kept.exchanges_per_shop) list.lastElementChild.remove();
    since = body.since;
    status.textContent = !body.recording ? 'This server records nothing (UCP_INSPECTOR=off).' : list.children.length ? `${body.shop.domain}: ${list.children.length} exchanges, newest first. Following…` : `${body.shop.domain}: no exchanges yet. Send one (search, a cart) and it appears here.`;
  } catch (e) {
    status.textContent = `Cannot read the exchanges: ${e.message}. Retrying…`;
  }
  if (!document.hidden) timer = setTimeout(poll, 1000);
}

document.addEventListener('visibilitychange', () => {
  if (!document.hidden) poll();
});
poll();
