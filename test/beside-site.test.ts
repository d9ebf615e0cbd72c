/**
 * docs/deploy.md "Beside an existing site": the shop's own domain, with the protocol's paths served
 * by this server and everything else by the site the shop already has. Debian's real nginx and
 * Caddy run the very files the doc shows (docs/examples/nginx-beside-site.conf and
 * Caddyfile-beside-site), with only the ports, names and certificate swapped in, in front of this
 * server (TRUST_PROXY on) and a stand-in "existing site" that answers every path with its own body.
 * Requests go over TLS, as in production, so the forwarded scheme is checked too.
 *
 * A missing nginx or caddy FAILS this file (scripts/test-all.sh installs both); it never skips.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { startTestServer, type TestServer } from './support/server.ts';
import { makeLocalhostCert } from './support/tls-localhost.ts';
import { fileSources, runImport } from '../server/import/run.ts';

const ROOT = join(import.meta.dirname, '..');
const NGINX_CONF = join(ROOT, 'docs/examples/nginx-beside-site.conf');
const CADDYFILE = join(ROOT, 'docs/examples/Caddyfile-beside-site');
const DEMO = 'demo.localhost';
/** A shop imported with --storefront-url: its products link to the existing site's pages. */
const BESIDE = { id: 'shop_beside_site', domain: 'beside.localhost', storefrontUrl: 'https://beside.localhost' };
const SITE_BODY = 'EXISTING SITE';

/** Debian puts nginx in /usr/sbin, which a non-root PATH lacks. */
function findBinary(name: string): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin', '/sbin'];
  for (const d of dirs) {
    if (!d) continue;
    try {
      accessSync(join(d, name), constants.X_OK);
      return join(d, name);
    } catch {
      // next
    }
  }
  throw new Error(`${name} is not installed (looked in PATH and /usr/sbin): this test runs Debian's ${name} in front of the server. Install it with \`apt-get install ${name}\` (scripts/test-all.sh does).`);
}

/** The doc's file with one exact string swapped; a string the file no longer holds fails loudly. */
function swap(text: string, file: string, from: string, to: string): string {
  const n = text.split(from).length - 1;
  if (n !== 1) throw new Error(`${file} holds ${JSON.stringify(from)} ${n} times (expected once): update test/beside-site.test.ts with the doc`);
  return text.replace(from, () => to);
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** Resolves once `port` accepts connections; rejects when the process exits first or after 15 s. */
async function listening(proc: ChildProcess, port: number, log: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`the proxy exited (${proc.exitCode ?? proc.signalCode}) before listening:\n${log()}`);
    const ok = await new Promise<boolean>((r) => {
      const sock = connect(port, '127.0.0.1');
      sock.once('connect', () => (sock.destroy(), r(true)));
      sock.once('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the proxy did not listen on ${port} within 15 s:\n${log()}`);
}

async function stop(proc: ChildProcess | undefined): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM'); // nginx: fast shutdown; caddy: graceful stop
  const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(t);
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

interface Proxy {
  name: string;
  port: number;
  close(): Promise<void>;
}

let server: TestServer;
let site: Server;
let sitePort: number;
let dir: string;
let cert: { keyFile: string; certFile: string };
const proxies = new Map<string, Proxy>();
const failures = new Map<string, Error>();

/** A request to a proxy over TLS, for `host` (SNI and Host both name it, with the proxy's port). */
function via(proxy: Proxy, host: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const h: Record<string, string> = { host: `${host}:${proxy.port}`, ...headers };
  if (payload !== undefined && !('content-type' in h)) h['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const r = httpsRequest({ host: '127.0.0.1', port: proxy.port, servername: host, ca: readFileSync(cert.certFile), method, path, headers: h, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
    });
    r.on('error', reject);
    if (payload !== undefined) r.write(payload);
    r.end();
  });
}

const fromSite = (a: Answer) => a.headers['x-existing-site'] === '1';

async function startNginx(): Promise<Proxy> {
  const nginx = findBinary('nginx');
  const port = await freePort();
  const file = 'docs/examples/nginx-beside-site.conf';
  let site = readFileSync(NGINX_CONF, 'utf8');
  site = swap(site, file, 'server 127.0.0.1:8080;', `server 127.0.0.1:${server.port};`);
  site = swap(site, file, 'server 127.0.0.1:8081;', `server 127.0.0.1:${sitePort};`);
  site = swap(site, file, 'listen 443 ssl http2;', `listen 127.0.0.1:${port} ssl http2;`);
  site = swap(site, file, 'listen [::]:443 ssl http2;', ''); // a CI container may have no IPv6
  site = swap(site, file, 'server_name shop.example.com;', `server_name ${DEMO} ${BESIDE.domain};`);
  site = swap(site, file, '/etc/letsencrypt/live/shop.example.com/fullchain.pem', cert.certFile);
  site = swap(site, file, '/etc/letsencrypt/live/shop.example.com/privkey.pem', cert.keyFile);
  const ndir = join(dir, 'nginx');
  writeFileSync(join(dir, 'nginx-site.conf'), site);
  // What Debian's /etc/nginx/nginx.conf provides around a site file, with every path in the temp dir.
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    [
      ...(process.getuid?.() === 0 ? ['user root;'] : []), // the temp dir is root's own (mkdtemp: 0700)
      'worker_processes 1;',
      `error_log ${join(dir, 'nginx-error.log')} info;`,
      'events { worker_connections 128; }',
      'http {',
      `  access_log ${join(dir, 'nginx-access.log')};`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${ndir}-${t};`),
      `  include ${join(dir, 'nginx-site.conf')};`,
      '}',
    ].join('\n'),
  );
  const proc = spawn(nginx, ['-p', dir, '-c', conf, '-e', join(dir, 'nginx-error.log'), '-g', `daemon off; pid ${join(dir, 'nginx.pid')};`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const log = () => {
    let e = '';
    try {
      e = readFileSync(join(dir, 'nginx-error.log'), 'utf8');
    } catch {
      // not written yet
    }
    return `${out}\n${e}`;
  };
  await listening(proc, port, log);
  return { name: 'nginx', port, close: () => stop(proc) };
}

async function startCaddy(): Promise<Proxy> {
  const caddy = findBinary('caddy');
  const port = await freePort();
  const file = 'docs/examples/Caddyfile-beside-site';
  let conf = readFileSync(CADDYFILE, 'utf8');
  conf = swap(conf, file, 'reverse_proxy 127.0.0.1:8080', `reverse_proxy 127.0.0.1:${server.port}`);
  conf = swap(conf, file, 'reverse_proxy 127.0.0.1:8081', `reverse_proxy 127.0.0.1:${sitePort}`);
  // The doc's site address gets its certificate from Let's Encrypt; here, the test's own.
  conf = swap(conf, file, 'shop.example.com {', `https://${DEMO}:${port}, https://${BESIDE.domain}:${port} {\n\ttls ${cert.certFile} ${cert.keyFile}`);
  // No admin endpoint, no trust-store installs, nothing written outside the temp dir.
  const global = `{\n\tadmin off\n\tskip_install_trust\n\tauto_https disable_redirects\n\tstorage file_system ${join(dir, 'caddy-data')}\n\tlog {\n\t\toutput file ${join(dir, 'caddy.log')}\n\t}\n}\n`;
  const path = join(dir, 'Caddyfile');
  writeFileSync(path, global + conf);
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CONFIG_HOME: join(dir, 'xdg-config') };
  const proc = spawn(caddy, ['run', '--config', path, '--adapter', 'caddyfile'], { stdio: ['ignore', 'pipe', 'pipe'], env, cwd: dir });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const log = () => {
    let l = '';
    try {
      l = readFileSync(join(dir, 'caddy.log'), 'utf8');
    } catch {
      // not written yet
    }
    return `${out}\n${l}`;
  };
  await listening(proc, port, log);
  return { name: 'caddy', port, close: () => stop(proc) };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'beside-site-'));
  cert = makeLocalhostCert(dir, [DEMO, BESIDE.domain]);
  server = await startTestServer({ trustProxy: true });
  // The existing site: every path, every method, its own body; it says what Host it was asked for.
  site = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-existing-site': '1' });
      res.end(`${SITE_BODY} ${req.method} ${req.url} host=${req.headers.host}`);
    });
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  sitePort = (site.address() as AddressInfo).port;
  // A shop imported with --storefront-url (docs/catalog-import.md "The shop").
  await runImport(server.db, { sources: fileSources(['test/fixtures/import/shopify/product_template.csv']), shop: { ...BESIDE, currency: 'USD' } });
  // A proxy that cannot start (not installed, a config it refuses) fails each of its tests with the
  // reason; thrown here, vitest would report the tests as skipped.
  for (const [name, start] of [['nginx', startNginx], ['caddy', startCaddy]] as const) {
    try {
      proxies.set(name, await start());
    } catch (e) {
      failures.set(name, e as Error);
    }
  }
}, 60_000);

afterAll(async () => {
  for (const p of proxies.values()) await p.close();
  await new Promise((r) => (site ? site.close(r) : r(undefined)));
  await server?.close();
  if (dir && !process.env.KEEP_BESIDE) rmSync(dir, { recursive: true, force: true });
});

describe.each(['nginx', 'caddy'])('beside an existing site, behind %s (docs/deploy.md)', (name) => {
  const proxy = () => {
    const p = proxies.get(name);
    if (!p) throw failures.get(name) ?? new Error(`${name} did not start`);
    return p;
  };
  const origin = () => `https://${DEMO}:${proxy().port}`;

  it('serves discovery from this server, naming the public origin (scheme, host and port the proxy forwarded)', async () => {
    const r = await via(proxy(), DEMO, 'GET', '/.well-known/ucp');
    expect(r.status).toBe(200);
    expect(fromSite(r)).toBe(false);
    const services = r.body.ucp.services['dev.ucp.shopping'] as Array<{ transport: string; endpoint?: string }>;
    expect(services.find((s) => s.transport === 'rest')?.endpoint).toBe(`${origin()}/api/ucp`);
    expect(services.find((s) => s.transport === 'mcp')?.endpoint).toBe(`${origin()}/mcp`);
    expect(r.text).not.toContain('127.0.0.1');
    // An older version's profile, under /.well-known/ucp/.
    const [version, leaf] = Object.entries(r.body.ucp.supported_versions as Record<string, string>)[0];
    expect(leaf).toBe(`${origin()}/.well-known/ucp/${version}`);
    const old = await via(proxy(), DEMO, 'GET', `/.well-known/ucp/${version}`);
    expect(old.status).toBe(200);
    expect(fromSite(old)).toBe(false);
  });

  it('answers catalog search through the proxy', async () => {
    const r = await via(proxy(), DEMO, 'POST', '/api/ucp/catalog/search', { query: 'mug' });
    expect(r.status).toBe(200);
    expect(r.body.products.length).toBeGreaterThan(0);
    expect(r.body.products[0].url).toMatch(new RegExp(`^${origin().replaceAll('.', '\\.')}/products/`));
  });

  it("links an imported shop's products to the existing site's pages (--storefront-url), which the site answers", async () => {
    const r = await via(proxy(), BESIDE.domain, 'POST', '/api/ucp/catalog/search', { query: 'shirt' });
    expect(r.status).toBe(200);
    const url = new URL(r.body.products[0].url as string);
    expect(url.origin).toBe(BESIDE.storefrontUrl);
    expect(url.pathname).toBe('/products/example-shirt');
    const page = await via(proxy(), BESIDE.domain, 'GET', url.pathname);
    expect(fromSite(page)).toBe(true);
    expect(page.text).toBe(`${SITE_BODY} GET ${url.pathname} host=${BESIDE.domain}:${proxy().port}`);
  });

  it("gives a cart whose continue_url names the shop's domain, and serves that page, its assets and the checkout handoff", async () => {
    const r = await via(proxy(), DEMO, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] });
    expect(r.status, r.text).toBe(201);
    expect(r.body.continue_url).toBe(`${origin()}/cart/${r.body.id}`);
    const page = await via(proxy(), DEMO, 'GET', `/cart/${r.body.id}`, undefined, { accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(fromSite(page)).toBe(false);
    expect(page.text).toContain(`cart-id="${r.body.id}"`);
    for (const asset of ['/storefront.css', '/storefront.js']) {
      const a = await via(proxy(), DEMO, 'GET', asset);
      expect([asset, a.status, fromSite(a)]).toEqual([asset, 200, false]);
    }
    const checkout = await via(proxy(), DEMO, 'GET', `/cart/${r.body.id}/checkout`, undefined, { accept: 'text/html' });
    expect(fromSite(checkout)).toBe(false);
    expect(checkout.status).toBeLessThan(500);
  });

  it('answers MCP tools/list through the proxy (JSON or event stream accepted)', async () => {
    const r = await via(proxy(), DEMO, 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json, text/event-stream' });
    expect(r.status).toBe(200);
    expect(fromSite(r)).toBe(false);
    const tools = (r.body?.result?.tools ?? []) as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toContain('search_catalog');
  });

  it('serves host.js', async () => {
    const r = await via(proxy(), DEMO, 'GET', '/ucp/host.js');
    expect(r.status).toBe(200);
    expect(fromSite(r)).toBe(false);
    expect(String(r.headers['content-type'])).toMatch(/javascript/);
  });

  it("refuses a body over the server's own limit (1 MiB) at the proxy, and passes one just under it", async () => {
    const over = await via(proxy(), DEMO, 'POST', '/api/ucp/catalog/search', JSON.stringify({ query: 'x'.repeat(1_100_000) }));
    expect(over.status).toBe(413);
    const mcp = await via(proxy(), DEMO, 'POST', '/mcp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(1_100_000) } }));
    expect(mcp.status).toBe(413);
    // Just under: it reaches the server, which answers it (whatever it makes of a 1 MB query).
    const under = await via(proxy(), DEMO, 'POST', '/api/ucp/catalog/search', JSON.stringify({ query: 'x'.repeat(1_000_000) }));
    expect(under.status).not.toBe(413);
    expect(under.status).toBeLessThan(500);
    expect(under.body?.code ?? 'answered').not.toBe('request_too_large');
  });

  it('leaves every other path to the existing site, the platform\'s too', async () => {
    for (const path of ['/', '/products/anything', '/wp-admin', '/wp-admin/post.php?x=1', '/cart', '/cart/add', '/cart.js', '/api/other', '/ucpx', '/mcp/x', '/oauth2/authorize', '/admin', '/merchants/m/3.0/products', '/metrics', '/favicon.ico']) {
      const r = await via(proxy(), DEMO, 'GET', path);
      expect([path, r.status, fromSite(r)]).toEqual([path, 200, true]);
      expect(r.text).toBe(`${SITE_BODY} GET ${path} host=${DEMO}:${proxy().port}`);
    }
  });
});
