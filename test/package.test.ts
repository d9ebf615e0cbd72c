/**
 * The package as agent builders get it: `npm pack` (its prepack builds host.js and dist/lib), the
 * tarball installed into an empty project, and then, with nothing from this checkout:
 *  - `ucp-storefront start` from that install runs the demo server (development mode, loopback
 *    http profile URLs allowed, a throwaway data directory);
 *  - a plain Node script (no tsx, no DNS help) drives it with `ucp-storefront/client` over REST and
 *    MCP at `http://demo.localhost:PORT` (the client maps *.localhost to loopback itself);
 *  - the copyable CI spec (examples/ci) runs from that project with two Playwright workers on the
 *    `ucp-storefront/testing/playwright` fixture (docs/ci.md);
 *  - the TypeScript compiler checks a consumer's code against the shipped .d.ts (the client, the
 *    wire schemas, host.d.ts), including calls that must not compile.
 * The only help from the checkout: its TypeScript compiler and its @playwright/test (linked, not
 * installed, to keep the run offline); this test process's own requests use
 * test/support/localhost-dns.mjs.
 */
import './support/localhost-dns.mjs';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformProfile } from './support/platform.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

let dir: string;
let proj: string;
let server: ChildProcess | undefined;
let profileServer: Server;
let port = 0;
let profileUrl = '';
let banner = '';

/** Runs a command to its end without blocking this process (the profile server lives here). */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}\n${stdout}\n${stderr}`))));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ucp-pack-'));
  proj = join(dir, 'proj');
  await run('npm', ['pack', '--pack-destination', dir, '--silent'], ROOT);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
  mkdirSync(proj);
  writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', join(dir, tarball), '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], proj);

  // The agent's platform profile, on loopback http (allowed in development with the setting below).
  profileServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(platformProfile()));
  });
  await new Promise<void>((r) => profileServer.listen(0, '127.0.0.1', r));
  profileUrl = `http://127.0.0.1:${(profileServer.address() as { port: number }).port}/.well-known/ucp`;

  server = spawn(process.execPath, [join(proj, 'node_modules/ucp-storefront/bin/ucp-storefront.mjs'), 'start', '--port', '0'], {
    cwd: proj,
    env: { ...process.env, DATA_DIR: join(dir, 'data'), DATABASE_URL: '', NODE_ENV: 'development', UCP_ALLOW_INSECURE_PROFILE_URLS: '1', PORT: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      banner += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(banner);
      if (m && banner.includes('agent demo')) {
        port = Number(m[1]);
        resolve();
      }
    };
    server!.stdout!.on('data', onData);
    server!.stderr!.on('data', (d) => (banner += d));
    server!.once('exit', (code) => reject(new Error(`server exited ${code}\n${banner}`)));
  });
}, 600_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server!.once('exit', r));
  }
  profileServer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm pack → npm install → use', () => {
  it('the installed server starts from the package and serves host.js and host.d.ts', async () => {
    expect(banner).toContain(`http://demo.localhost:${port}/`);
    const get = (path: string) => fetch(`http://demo.localhost:${port}${path}`);
    const js = await get('/ucp/host.js');
    expect(js.status).toBe(200);
    const dts = await get('/ucp/host.d.ts');
    expect(dts.status).toBe(200);
    expect(await dts.text()).toBe(readFileSync(join(proj, 'node_modules/ucp-storefront/types/host.d.ts'), 'utf8'));
    // public/ is found from the package, not from the working directory.
    const page = await fetch(`http://agent.localhost:${port}/`);
    expect(page.status).toBe(200);
  });

  it('a plain Node script drives the running demo with ucp-storefront/client over REST and MCP', async () => {
    writeFileSync(
      join(proj, 'agent.mjs'),
      `import { createUcpClient } from 'ucp-storefront/client';
const out = {};
for (const transport of ['rest', 'mcp']) {
  const shop = createUcpClient({ business: process.argv[2], profile: process.argv[3], transport });
  const search = await shop.searchCatalog({ query: 'tee', context: { language: 'fr' } });
  if (!search.ok) throw new Error(transport + ' search: ' + JSON.stringify(search.messages));
  const variant = 'var_tee_m_navy';
  const cart = await shop.createCart({ line_items: [{ item: { id: variant }, quantity: 2 }] });
  if (!cart.ok) throw new Error(transport + ' create: ' + JSON.stringify(cart.messages));
  const updated = await shop.updateCart(cart.data.id, { line_items: [{ item: { id: variant }, quantity: 1 }], discounts: { codes: ['NOPE'] } });
  const cancelled = await shop.cancelCart(cart.data.id);
  const missing = await shop.getProduct({ id: 'prod_nope' });
  out[transport] = {
    titles: search.data.products.map((p) => p.title),
    cart: cart.data.id,
    continue_url: cart.data.continue_url,
    updated: updated.ok && updated.data.line_items[0].quantity,
    cancelled: cancelled.ok,
    missing: missing.ok ? null : missing.messages[0].code,
  };
  await shop.close();
}
console.log(JSON.stringify(out));
`,
    );
    const stdout = await run(process.execPath, ['agent.mjs', `http://demo.localhost:${port}`, profileUrl], proj, { NODE_OPTIONS: '' });
    const out = JSON.parse(stdout.trim().split('\n').pop()!);
    for (const t of ['rest', 'mcp']) {
      expect(out[t].titles.length, t).toBeGreaterThan(0);
      expect(out[t].continue_url, t).toContain(`http://demo.localhost:${port}/`);
      expect(out[t].updated, t).toBe(1);
      expect(out[t].cancelled, t).toBe(true);
      expect(out[t].missing, t).toBe('not_found');
    }
    expect(out.mcp.titles).toEqual(out.rest.titles);
    expect(out.mcp.cart).not.toBe(out.rest.cart);
  });

  it('consumers type-check against the shipped declarations (client, wire, host.d.ts)', async () => {
    writeFileSync(
      join(proj, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, lib: ['ES2023', 'DOM'], types: [] }, files: ['agent.ts', 'page.ts', 'sandbox.ts'] }),
    );
    writeFileSync(
      join(proj, 'agent.ts'),
      `import { createUcpClient, type Cart, type Result } from 'ucp-storefront/client';
import { CreateCartRequest, MessageSchema } from 'ucp-storefront/wire';
const shop = createUcpClient({ business: 'https://shop.example', profile: 'https://me.example/.well-known/ucp', transport: 'mcp' });
export async function go(): Promise<string> {
  const r: Result<Cart> = await shop.createCart({ line_items: [{ item: { id: 'v' }, quantity: 1 }] });
  const parsed = CreateCartRequest.safeParse({ line_items: [] });
  void MessageSchema;
  if (!r.ok) return r.messages.map((m) => m.code ?? m.content).join() + String(parsed.success);
  // @ts-expect-error quantity is a number
  await shop.updateCart(r.data.id, { line_items: [{ item: { id: 'v' }, quantity: 'two' }] });
  // @ts-expect-error no such transport
  createUcpClient({ business: 'x', profile: 'y', transport: 'grpc' });
  return r.data.totals.find((t) => t.type === 'total')!.amount.toFixed(0);
}
`,
    );
    writeFileSync(
      join(proj, 'page.ts'),
      `/// <reference types="ucp-storefront/host" />
const handle = window.UCP.openCart({ shopOrigin: 'https://shop.example', lineItems: [{ item: { id: 'v' }, quantity: 1 }] });
document.body.addEventListener('ucp:cart:complete', (e) => {
  const url: string = e.detail.continue_url;
  e.preventDefault();
  console.log(url, e.detail.cart.id);
  handle.close();
});
document.querySelector('ucp-cart')?.addEventListener('ucp:cart:add', (e) => console.log(e.detail.variantId, e.detail.quantity));
// @ts-expect-error openCart needs a shopOrigin
window.UCP.openCart({});
export {};
`,
    );
    writeFileSync(
      join(proj, 'sandbox.ts'),
      `import { startSandbox, connectSandbox, type Sandbox, type SandboxShop } from 'ucp-storefront/testing';
export async function withSandbox(): Promise<string> {
  const sandbox: Sandbox = await startSandbox({ port: 0, dataDir: 'temp', env: { SANDBOX_FAULTS: '1' } });
  const shop: SandboxShop = await sandbox.newShop({ domain: 'mine-1.localhost' });
  await sandbox.reset(shop.id);
  await sandbox.stop();
  // @ts-expect-error port is a number
  await startSandbox({ port: '0' });
  return shop.url + sandbox.shopUrl('strict.localhost') + sandbox.demoAgentProfile + connectSandbox('http://localhost:8080').url;
}
`,
    );
    await expect(run(process.execPath, [TSC, '-p', 'tsconfig.json'], proj)).resolves.toBe('');
  }, 120_000);

  it('ships what runs, not the repository: no tests, docs or host.js sources', () => {
    const pkg = join(proj, 'node_modules/ucp-storefront');
    const top = readdirSync(pkg).sort();
    expect(top).toEqual(['README.md', 'bin', 'dist', 'package.json', 'public', 'server', 'src', 'tsconfig.json', 'types']);
    expect(readdirSync(join(pkg, 'src')).sort()).toEqual(['format', 'wire']);
    expect(JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).private).toBeUndefined();
  });

  it('the copyable CI spec (examples/ci) passes from that project with two workers, one sandbox each', async () => {
    cpSync(join(ROOT, 'examples/ci'), join(proj, 'ci'), { recursive: true });
    mkdirSync(join(proj, 'node_modules/@playwright'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules/@playwright/test'), join(proj, 'node_modules/@playwright/test'));
    const cli = join(proj, 'node_modules/@playwright/test/cli.js');
    const env = { CHROMIUM_PATH: '/usr/bin/chromium', NODE_OPTIONS: '', DATABASE_URL: '', DATA_DIR: '', PORT: '', NODE_ENV: '' };
    const out = await run(process.execPath, [cli, 'test', '-c', 'ci/playwright.config.ts', '--workers=2', '--reporter=line'], proj, env);
    expect(out).toMatch(/5 passed/);
  }, 400_000);
});
