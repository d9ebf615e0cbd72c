/**
 * `ucp-storefront/testing` (src/testing/sandbox.ts): `startSandbox()` runs the package's bin as a
 * child process on a free port with a throwaway data directory, ready when it resolves; its URLs,
 * demo agent profile, `newShop()` (per-test isolation), `reset()` and `stop()` (port free, directory
 * gone) work against that real server; a sandbox that cannot start says why and leaves nothing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUcpClient, localhostFetch } from '../src/client/index.ts';
import { startSandbox, type Sandbox } from '../src/testing/index.ts';

let sandbox: Sandbox;
const lines: string[] = [];
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, dataDir: 'temp', onOutput: (l) => lines.push(l) });
}, 180_000);
afterAll(() => sandbox?.stop());

const refused = (port: number) =>
  fetch(`http://127.0.0.1:${port}/readyz`).then(
    () => false,
    (e) => /ECONNREFUSED/.test(String(e?.cause?.code ?? e?.cause?.message)),
  );

describe('startSandbox', () => {
  it('is ready when it resolves: its port, URLs and the demo agent profile answer', async () => {
    expect(sandbox.port).toBeGreaterThan(0);
    expect(sandbox.url).toBe(`http://localhost:${sandbox.port}`);
    expect(sandbox.shopUrl()).toBe(`http://demo.localhost:${sandbox.port}`);
    expect(sandbox.shopUrl('strict.localhost')).toBe(`http://strict.localhost:${sandbox.port}`);
    expect(sandbox.demoAgentProfile).toBe(`http://agent.localhost:${sandbox.port}/.well-known/ucp`);
    expect(sandbox.dataDir && existsSync(sandbox.dataDir)).toBe(true);
    expect((await fetch(`${sandbox.url}/readyz`)).status).toBe(200);
    // onOutput gets whole lines: the banner's first names the port.
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^UCP storefront listening on http://127\\.0\\.0\\.1:${sandbox.port} \\(embedded database in .*ucp-sandbox-`)));
    // The profile it names is one the sandbox accepts as UCP-Agent.
    const shop = createUcpClient({ business: sandbox.shopUrl(), profile: sandbox.demoAgentProfile });
    const found = await shop.searchCatalog({ query: 'tee' });
    expect(found.ok, JSON.stringify(found)).toBe(true);
  });

  it('newShop() gives each test a shop of its own; reset() empties the demo shop only', async () => {
    const [a, b] = await Promise.all([sandbox.newShop(), sandbox.newShop()]);
    expect(a.url).toBe(`http://${a.domain}:${sandbox.port}`);
    expect(a.domain).not.toBe(b.domain);
    const inA = createUcpClient({ business: a.url, profile: sandbox.demoAgentProfile });
    const inB = createUcpClient({ business: b.url, profile: sandbox.demoAgentProfile });
    const inDemo = createUcpClient({ business: sandbox.shopUrl(), profile: sandbox.demoAgentProfile });
    const cart = await inA.createCart({ line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] });
    const demoCart = await inDemo.createCart({ line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] });
    if (!cart.ok || !demoCart.ok) throw new Error(JSON.stringify([cart, demoCart]));
    expect(await inB.getCart(cart.data.id)).toMatchObject({ ok: false, messages: [{ code: 'not_found' }] });
    expect(await sandbox.reset()).toMatchObject({ shop: 'shop_demo', deleted: { carts: 1 } });
    expect(await inDemo.getCart(demoCart.data.id)).toMatchObject({ ok: false, messages: [{ code: 'not_found' }] });
    expect(await inA.getCart(cart.data.id)).toMatchObject({ ok: true, data: { id: cart.data.id } });
    await expect(sandbox.reset('shop_nope')).rejects.toThrow(/HTTP 404 not_found No shop with id or domain 'shop_nope'/);
    await expect(sandbox.newShop({ domain: 'example.com' })).rejects.toThrow(/HTTP 400 .*under \.localhost/);

    // deleteShop(): the shop and its carts go; twice is fine; a demo shop is refused.
    await sandbox.deleteShop(a.id);
    await sandbox.deleteShop(a.domain);
    expect(await inA.getCart(cart.data.id)).toMatchObject({ ok: false });
    expect((await localhostFetch(`${a.url}/.well-known/ucp`)).status).toBe(404);
    expect((await localhostFetch(`${b.url}/.well-known/ucp`)).status).toBe(200);
    await expect(sandbox.deleteShop('shop_demo')).rejects.toThrow(/HTTP 409 not_a_clone/);
  });

  it('a sandbox that cannot start says why, and leaves no process or directory behind', async () => {
    const busy = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => busy.once('listening', r));
    const port = (busy.address() as { port: number }).port;
    const dir = mkdtempSync(join(tmpdir(), 'ucp-sandbox-test-'));
    try {
      await expect(startSandbox({ port, dataDir: join(dir, 'data') })).rejects.toThrow(/exited .*before it was ready[\s\S]*EADDRINUSE/);
      await expect(startSandbox({ port: -1 })).rejects.toThrow(/port must be 0-65535/);
    } finally {
      busy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('stop() frees the port and removes the throwaway data directory (twice is fine)', async () => {
    const { port, dataDir } = sandbox;
    await sandbox.stop();
    await sandbox.stop();
    expect(await refused(port)).toBe(true);
    expect(existsSync(dataDir!)).toBe(false);
  });
});
