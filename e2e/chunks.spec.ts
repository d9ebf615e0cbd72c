/**
 * host.js code splitting in the browser (docs/host-js.md "Build and delivery"): a storefront page
 * loads the entry only; the framed cart page (ep_version) loads the embedded role's chunks from the
 * shop, under its CSP (`script-src 'self'`), with SRI (modulepreload) and no console errors; an agent
 * page on another origin loads the host role's chunks from the shop origin on the first
 * `UCP.openCart()` call, not before.
 */
import { expect, test, type Page } from '@playwright/test';

const on = (baseURL: string | undefined, label: string) => (baseURL ?? 'http://demo.localhost:8391').replace('//demo.', `//${label}.`);

/** Every /ucp/host*.js URL the page (and its frames) requests, and console errors / CSP reports. */
function watch(page: Page) {
  const scripts: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    if (/\/ucp\/host[\w.-]*\.js$/.test(r.url())) scripts.push(r.url());
  });
  // (The browser's own favicon probe 404s on these demo pages; that is not a script.)
  page.on('response', (r) => r.status() >= 400 && !r.url().endsWith('/favicon.ico') && errors.push(`${r.status()} ${r.url()}`));
  page.on('console', (m) => {
    if (/Content Security Policy|integrity|module/i.test(m.text()) || (m.type() === 'error' && !/Failed to load resource/.test(m.text()))) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  const files = () => scripts.map((u) => new URL(u).pathname.replace('/ucp/', ''));
  return { scripts, errors, files };
}

test('a product page loads only the entry: neither protocol role', async ({ page }) => {
  const w = watch(page);
  await page.goto('/products/engraved-flask');
  await expect(page.locator('ucp-product').getByRole('button', { name: 'Add to cart' })).toBeVisible();
  await page.locator('ucp-cart').getByRole('button', { name: /Cart/ }).click();
  await expect(page.locator('ucp-cart').getByRole('dialog')).toBeVisible();
  await page.waitForTimeout(200);
  // The entry and the widget's own lazy views (the picker, the cart's body), never a protocol role.
  expect(w.files()[0]).toMatch(/^host\.[0-9a-f]{16}\.js$/);
  expect(w.files().slice(1).every((f) => /^host-(customize|cart-body)-[\w-]+\.js$/.test(f))).toBe(true);
  expect(await page.evaluate(() => (window as any).UCP.mode)).toBe('widget');
  expect(w.errors).toEqual([]);
});

test('the framed cart page loads the embedded role from the shop under its CSP, with no console errors', async ({ page, baseURL }) => {
  const w = watch(page);
  await page.goto(`${on(baseURL, 'agent')}/`);
  await expect(page.locator('#hostjs')).toContainText('loaded');
  // The agent page itself has loaded the entry only (the host role comes with openCart).
  expect(w.files()).toEqual([expect.stringMatching(/^host\.[0-9a-f]{16}\.js$/)]);
  w.scripts.length = 0;

  await page.getByRole('button', { name: 'Create cart and open it' }).click();
  await expect(page.locator('#log li[data-type="ucp:cart:start"]')).toHaveCount(1);
  const files = w.files();
  // Agent page: the host role + shared chunk, from the shop origin. Cart frame: entry + embedded role + shared.
  for (const u of w.scripts) expect(new URL(u).origin).toBe(baseURL);
  expect(files.filter((f) => f.startsWith('host-role-host-'))).toHaveLength(1);
  expect(files.filter((f) => f.startsWith('host-role-embedded-'))).toHaveLength(1);
  expect(files.some((f) => f.startsWith('host-shared-'))).toBe(true);
  // The frame is the embedded cart page and it really ran the embedded role.
  const frame = page.frameLocator('iframe[title="Shopping cart"]');
  await expect(frame.locator('ucp-cart[mode=page]').getByRole('heading', { name: 'Your cart' })).toBeVisible();
  expect(await page.frames().find((f) => f.url().includes('/cart/'))!.evaluate(() => (window as any).UCP.mode)).toBe('embedded');
  expect(w.errors).toEqual([]);
});

test('the cart page without ep_version never loads the embedded role', async ({ page }) => {
  const w = watch(page);
  await page.goto('/cart/none');
  await expect(page.locator('ucp-cart[mode=page]')).toBeVisible();
  await page.waitForTimeout(200);
  expect(w.files()[0]).toMatch(/^host\.[0-9a-f]{16}\.js$/);
  expect(w.files().slice(1).every((f) => /^host-cart-body-[\w-]+\.js$/.test(f))).toBe(true); // the page's cart view, lazily
  expect(w.files().some((f) => f.startsWith('host-role-'))).toBe(false);
});

test('agent page: the host role chunk is pinned by SRI (import map from /ucp/host.json); a tampered chunk is refused', async ({ page, baseURL }) => {
  // A compromised copy of the chunk (same URL, other bytes).
  await page.route('**/ucp/host-role-host-*.js', (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', headers: { 'access-control-allow-origin': '*' }, body: 'window.TAMPERED = 1; export const openCart = () => ({ close() {} });' }),
  );
  const consoleLines: string[] = [];
  page.on('console', (m) => consoleLines.push(m.text()));
  await page.goto(`${on(baseURL, 'agent')}/`);
  await expect(page.locator('#hostjs')).toContainText('loaded');
  await page.getByRole('button', { name: 'Create cart and open it' }).click();
  await expect.poll(() => consoleLines.some((l) => /integrity/i.test(l) && l.includes('host-role-host-'))).toBe(true);
  // host.js reports the failure like any other failure to open the cart; the tampered code never ran.
  await expect(page.locator('#log li[data-type="ucp:cart:error"]')).toHaveCount(1);
  expect(await page.evaluate(() => (window as any).TAMPERED)).toBeUndefined();
  await expect(page.getByRole('dialog')).toHaveCount(0);
});
