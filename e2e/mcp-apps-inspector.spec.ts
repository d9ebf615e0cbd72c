/**
 * The shop's MCP Apps view in the MCP Inspector's Apps tab (@modelcontextprotocol/inspector, the
 * MCP project's own host for developers, which needs Node 22 or later): one flow, search → options
 * and customizations → add → cart → code → checkout, driven as a developer would. The Inspector and
 * a Node 22 from the registry's `node` package are installed into .tmp/inspector on first use
 * (nothing of theirs is a dependency of the project). Its Node side cannot resolve `*.localhost`,
 * so it runs with test/support/localhost-dns.mjs preloaded.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, test, type Frame, type Page } from '@playwright/test';
import { PORT } from '../playwright.config.ts';

const DIR = resolve('.tmp/inspector');
const VERSION = '2.12.0';
const UI_PORT = PORT + 20;
let inspector: ChildProcess | undefined;
let url = '';

test.beforeAll(async () => {
  test.setTimeout(300_000);
  const launcher = join(DIR, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  if (!existsSync(launcher) || !existsSync(join(DIR, 'node_modules/.bin/node'))) {
    mkdirSync(DIR, { recursive: true });
    execFileSync('npm', ['install', '--prefix', DIR, '--no-audit', '--no-fund', '--no-save', `@modelcontextprotocol/inspector@${VERSION}`, 'node@22'], { stdio: 'ignore', timeout: 280_000 });
  }
  inspector = spawn(join(DIR, 'node_modules/.bin/node'), [launcher, '--web', '--transport', 'http', '--server-url', `http://demo.localhost:${PORT}/mcp`], {
    cwd: DIR,
    env: {
      ...process.env,
      NODE_OPTIONS: `--import ${resolve('test/support/localhost-dns.mjs')}`,
      CLIENT_PORT: String(UI_PORT),
      SERVER_PORT: String(UI_PORT + 1),
      MCP_SANDBOX_PORT: String(UI_PORT + 2),
      MCP_APP_ORIGIN_PORT: String(UI_PORT + 3),
      MCP_AUTO_OPEN_ENABLED: 'false',
      MCP_STORAGE_DIR: join(DIR, 'storage'),
      MCP_INSPECTOR_SECRET_STORE: 'memory',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the Inspector did not start: ${out.slice(-1500)}`)), 60_000);
    const read = (b: Buffer) => {
      out += b;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/?\?MCP_INSPECTOR_API_TOKEN=[0-9a-f]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    };
    inspector!.stdout!.on('data', read);
    inspector!.stderr!.on('data', read);
  });
});

test.afterAll(() => {
  try {
    if (inspector?.pid) process.kill(-inspector.pid, 'SIGTERM');
  } catch {}
});

/** The frame that holds the shop's view (inside the Inspector's sandbox). */
async function viewFrame(page: Page): Promise<Frame> {
  for (let i = 0; i < 100; i++) {
    for (const f of page.frames()) if (await f.locator('#app').count().catch(() => 0)) return f;
    await page.waitForTimeout(200);
  }
  throw new Error('no MCP Apps view in the Inspector');
}

test("the MCP Inspector's Apps tab: search → options and customizations → add → code → checkout", async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(url);
  await page.getByRole('switch', { name: /Connect or disconnect/ }).click({ force: true });
  await expect(page.getByText('Connected', { exact: true })).toBeVisible({ timeout: 20_000 });
  await page.getByText('Apps', { exact: true }).first().click();
  // cancel_cart is visible to the model only: the Inspector lists the six other tools as apps.
  await expect(page.getByText('MCP Apps (6)')).toBeVisible();
  await page.getByText('Search the catalog', { exact: true }).click();
  await page.getByRole('switch', { name: 'Edit as JSON' }).or(page.locator('input[role=switch]').nth(1)).first().click({ force: true });
  await page.locator('textarea').first().focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Delete');
  const profile = `http://agent.localhost:${PORT}/.well-known/ucp`;
  await page.keyboard.insertText(JSON.stringify({ meta: { 'ucp-agent': { profile } }, catalog: { query: 'engraved flask' } }));
  await page.getByRole('button', { name: 'Open App' }).click();

  const v = await viewFrame(page);
  await v.getByRole('button', { name: /Choose options/ }).click();
  await v.getByLabel(/Engraving/).fill('Happy trails');
  await v.getByLabel(/Kraft box/).check();
  await v.getByRole('button', { name: 'Add to cart' }).click();
  await expect(v.locator('[part=status]')).toContainText('Added Engraved Steel Flask');
  await v.locator('button.to-cart').click();
  await expect(v.locator('[part=line]')).toContainText('Engraving: Happy trails');
  await v.getByLabel('Discount code').fill('WELCOME10');
  await v.getByRole('button', { name: 'Apply' }).click();
  await expect(v.locator('[part=codes]')).toContainText('WELCOME10');
  // Checkout: the Inspector opens the cart's continue_url for the view (ui/open-link).
  const opened = page.context().waitForEvent('page');
  await v.getByRole('button', { name: 'Checkout' }).click();
  expect((await opened).url()).toMatch(new RegExp(`^http://demo\\.localhost:${PORT}/cart/cart_[\\w-]+$`));
});
