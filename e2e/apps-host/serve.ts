/**
 * The MCP Apps test host's web server (e2e/mcp-apps.spec.ts, e2e/engines/flows.ts): builds
 * ./host.ts (the official AppBridge and MCP client) and ./sandbox.ts with Vite, then serves
 *   http://localhost:PORT/host.html            the host page (a chat host's part, driven by tests)
 *   http://sandbox.localhost:PORT/sandbox.html the sandbox proxy, on another origin, with the
 *                                              view's CSP as a header, built from `?csp=` (the
 *                                              resource's `_meta.ui.csp`) exactly as the
 *                                              specification's host rules say
 *   npx tsx e2e/apps-host/serve.ts [PORT]      (default 8393)
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));
const out = fileURLToPath(new URL('../../.tmp/apps-host/', import.meta.url));
const PORT = Number(process.argv[2] ?? process.env.APPS_HOST_PORT ?? 8393);

for (const name of ['host', 'sandbox']) {
  await build({
    configFile: false,
    logLevel: 'warn',
    publicDir: false,
    build: { outDir: out, emptyOutDir: false, target: 'es2022', minify: false, lib: { entry: `${here}${name}.ts`, formats: ['es'], fileName: () => `${name}.js` }, rolldownOptions: { output: { codeSplitting: false } } },
    define: { 'process.env.NODE_ENV': '"production"' },
  });
}

/** The view's CSP from its resource metadata: the specification's defaults, loosened only by what it declares. */
export function viewCsp(csp: { connectDomains?: string[]; resourceDomains?: string[]; frameDomains?: string[]; baseUriDomains?: string[] } = {}): string {
  const list = (xs?: string[]) => (xs ?? []).filter((x) => /^https?:\/\/[\w.*:-]+$/.test(x)).join(' ');
  const res = list(csp.resourceDomains);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${res}`,
    `style-src 'self' 'unsafe-inline' ${res}`,
    `img-src 'self' data: ${res}`,
    `font-src 'self' ${res}`,
    `media-src 'self' data: ${res}`,
    `connect-src ${list(csp.connectDomains) || "'none'"}`,
    `frame-src ${list(csp.frameDomains) || "'none'"}`,
    "object-src 'none'",
    `base-uri ${list(csp.baseUriDomains) || "'self'"}`,
  ].join('; ');
}

const HOST_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>MCP Apps test host</title>
<style>body{margin:0;font:15px system-ui;background:#f3f3f3}body.dark{background:#202124;color:#eee}#views{display:flex;flex-direction:column;gap:12px;padding:8px}h1{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}iframe{border:1px solid #8884;border-radius:8px;width:100%;height:120px;display:block;background:transparent}</style>
</head><body><main aria-label="Conversation"><h1 class="sr">MCP Apps test host</h1><div id="views"></div></main><script type="module" src="/host.js"></script></body></html>`;

createServer((req, res) => {
  const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
  const send = (type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
    res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
    res.end(body);
  };
  if (url.pathname === '/host.html') return send('text/html; charset=utf-8', HOST_PAGE);
  if (url.pathname === '/host.js' || url.pathname === '/sandbox.js') return send('text/javascript', readFileSync(`${out}${url.pathname.slice(1)}`));
  if (url.pathname === '/sandbox.html') {
    let csp = {};
    try {
      csp = JSON.parse(url.searchParams.get('csp') ?? '{}');
    } catch {}
    return send('text/html; charset=utf-8', '<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;height:100%;overflow:hidden}iframe{border:0;width:100%;height:100%;display:block}</style></head><body><script src="/sandbox.js"></script></body></html>', {
      'Content-Security-Policy': viewCsp(csp),
    });
  }
  res.writeHead(404).end();
}).listen(PORT, '127.0.0.1', () => console.log(`MCP Apps test host on http://localhost:${PORT}/host.html`));
