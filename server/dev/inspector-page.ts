/**
 * `http://localhost:8080/dev/`: the request inspector as a page (docs/sandbox.md). The server sends
 * the frame (shop picker, an empty list, the limits); `/dev/inspector.js` (inspector-page.js, a
 * small plain script, no build step) reads `/dev/shops/{shop}/requests` and follows it with
 * `?since=` once a second while the tab is visible. The policy allows that one script from this
 * origin and nothing inline but styles, like the platform's other pages (server/http/html-security.ts).
 */
import { readFileSync } from 'node:fs';
import type { Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { BODY_MAX_CHARS, RING_SIZE } from '../http/inspector/store.ts';

const SCRIPT = readFileSync(new URL('./inspector-page.js', import.meta.url), 'utf8');
const CSP = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem;color:#1a1a1a}
h1{font-size:1.3rem;margin:.2rem 0 .6rem}
form{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center;margin-bottom:.6rem}
select,button{font:inherit;padding:.3rem .5rem}
select{min-width:0;max-width:100%;flex:1 1 12rem}
#status{color:#555;font-size:.9rem;margin:.3rem 0}
ol{list-style:none;padding:0;margin:0}
li.ex{border:1px solid #ccc;border-radius:6px;margin:.4rem 0;padding:.4rem .6rem}
li.ex.noted{border-color:#b35c00;background:#fff8ef}
.line{display:flex;flex-wrap:wrap;gap:.2rem .7rem;align-items:baseline}
.op{font-weight:600;word-break:break-all}
.tr{font-size:.8rem;border-radius:4px;padding:0 .35rem;background:#e6eefc}
.st{font-variant-numeric:tabular-nums;font-weight:600}.st.bad{color:#b00020}.st.ok{color:#1b6e20}
.meta{color:#555;font-size:.85rem;word-break:break-all}
ul.notes{margin:.3rem 0 0;padding-left:1.1rem;color:#7a3d00}
ul.notes li{margin:.15rem 0}
details{margin-top:.3rem}
pre{white-space:pre-wrap;word-break:break-all;background:#f5f5f5;padding:.4rem;border-radius:4px;font-size:.8rem;max-height:24rem;overflow:auto}
`;

export async function inspectorPage(c: Context<AppEnv>): Promise<Response> {
  const shops = await c.get('db').selectFrom('shops').select(['id', 'domain']).orderBy('domain').limit(500).execute();
  const chosen = c.req.query('shop') ?? shops.find((s) => s.id === 'shop_demo')?.id ?? shops[0]?.id ?? '';
  const options = shops.map((s) => `<option value="${esc(s.id)}"${s.id === chosen || s.domain === chosen ? ' selected' : ''}>${esc(s.domain)} (${esc(s.id)})</option>`).join('');
  c.header('Content-Security-Policy', CSP);
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  return c.html(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Request inspector · UCP storefront</title><style>${STYLE}</style></head>
<body>
<h1>Request inspector</h1>
<form method="get" action="/dev/"><label for="shop">Shop</label> <select id="shop" name="shop">${options}</select> <button type="submit">Show</button></form>
<p id="status" role="status" aria-live="polite">Loading…</p>
<noscript><p>This page follows the shop's exchanges with a script; without it, read <code>/dev/shops/SHOP/requests</code>.</p></noscript>
<ol id="exchanges" aria-label="Exchanges, newest first"></ol>
<p class="meta">Development only. The last ${RING_SIZE} exchanges per shop of this process (REST, MCP, host.js on the shop's pages, the embedded cart), bodies cut at ${BODY_MAX_CHARS} characters, secrets redacted. Notes are what the agent's own sequence says about it (docs/sandbox.md).</p>
<script type="module" src="/dev/inspector.js"></script>
</body></html>`);
}

export function inspectorScript(c: Context<AppEnv>): Response {
  c.header('Cache-Control', 'no-store');
  c.header('X-Content-Type-Options', 'nosniff');
  return c.body(SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
}
