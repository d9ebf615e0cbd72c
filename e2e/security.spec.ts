/**
 * Embedded Cart Protocol security (docs/embedded.md "Origin rules"):
 *  - a frame on a foreign origin inside the agent page posts forged EP messages to the host and to
 *    the cart frame: all ignored (event.source + exact origin checks), the session keeps working;
 *  - a foreign page framing the cart page is refused by the shop's CSP frame-ancestors.
 * Fixtures live in public/agent/ and are served, in development only, on agent.localhost and on the
 * fixtures' fixed hostile origin evil.localhost (server/storefront/index.ts); no shop host serves them.
 */
import { expect, test, type Page } from '@playwright/test';

const on = (baseURL: string | undefined, label: string) => (baseURL ?? 'http://demo.localhost:8391').replace('//demo.', `//${label}.`);

async function openCart(page: Page, baseURL?: string) {
  await page.goto(on(baseURL, 'agent'));
  await expect(page.locator('#hostjs')).toContainText('loaded');
  await page.getByRole('button', { name: 'Create cart and open it' }).click();
  await expect(page.locator('#log li[data-type="ucp:cart:start"]')).toHaveCount(1);
  return JSON.parse(await page.locator('#log li[data-type="ucp:cart:start"] pre').innerText()).cart;
}

test('forged messages from a foreign frame (and from the host window itself) are ignored', async ({ page, baseURL }) => {
  const cart = await openCart(page, baseURL);
  const agentHref = page.url();

  // A hostile frame on another origin posts forged notifications/requests to the host and forged
  // handshake answers (with a MessagePort) to the cart frame, five rounds.
  const forgeUrl = `${on(baseURL, 'evil')}/forge.html`;
  await page.evaluate((src) => {
    const f = document.createElement('iframe');
    f.src = src;
    f.title = 'forger';
    document.body.append(f);
  }, forgeUrl);
  const forger = page.frameLocator('iframe[title="forger"]');
  await expect(forger.locator('body[data-done]')).toHaveCount(1, { timeout: 10_000 });
  // The cart frame never answered the forged `ready` it was sent over the forged port.
  await expect(forger.locator('body')).toHaveAttribute('data-done', '0');

  // Same content forged by a script on the host page itself (source = the host window, not the frame).
  await page.evaluate((c) => {
    const forged = { ...c, id: 'cart_FORGED_SELF', continue_url: 'https://evil.example/' };
    window.postMessage({ jsonrpc: '2.0', method: 'ep.cart.complete', params: { cart: forged } }, location.origin);
    window.postMessage({ jsonrpc: '2.0', method: 'ep.cart.start', params: { cart: forged } }, location.origin);
  }, cart);
  await page.waitForTimeout(300);

  const log = await page.locator('#log').innerText();
  expect(log).not.toContain('FORGED');
  expect(log).not.toContain('evil.example');
  for (const type of ['ucp:cart:complete', 'ucp:cart:error', 'ucp:cart:fallback']) {
    await expect(page.locator(`#log li[data-type="${type}"]`)).toHaveCount(0);
  }
  await expect(page.locator('#log li[data-type="ucp:cart:start"]')).toHaveCount(1);
  await expect(page.locator('#log li[data-type="ucp:cart:ready"]')).toHaveCount(1);
  expect(page.url()).toBe(agentHref);

  // The real session is intact: a genuine change still arrives, and complete still hands off.
  const frame = page.frameLocator('iframe[title="Shopping cart"]');
  await frame.getByRole('button', { name: /Increase quantity/ }).click();
  await expect(page.locator('#log li[data-type="ucp:cart:change"]')).toHaveCount(1);
  const change = JSON.parse(await page.locator('#log li[data-type="ucp:cart:change"] pre').innerText());
  expect(change.cart.id).toBe(cart.id);
  expect(change.cart.line_items[0].quantity).toBe(2);
  await frame.getByRole('button', { name: 'Checkout' }).click();
  await page.waitForURL('**/handoff-preview'); // the shop's checkout handoff, as the Checkout button on the shop
});

test('a foreign framer is refused by CSP frame-ancestors; an allowed one is not', async ({ page, baseURL }) => {
  const shop = baseURL!;
  const cartId = 'cart_csp_probe';
  const consoleLines: string[] = [];
  const hostJsRequests: string[] = [];
  page.on('console', (m) => consoleLines.push(m.text()));
  page.on('request', (r) => {
    if (r.url().startsWith(`${shop}/ucp/host`)) hostJsRequests.push(r.url());
  });

  // Foreign origin (evil.localhost is not in demo's allowed_agent_origins).
  await page.goto(`${on(baseURL, 'evil')}/frame.html?cart=${cartId}`);
  const iframe = page.locator('iframe[title="Framed cart"]');
  await expect(iframe).toHaveAttribute('src', `${shop}/cart/${cartId}?ep_version=2026-04-08&ep_cart_delegate=`);
  await expect.poll(() => consoleLines.some((l) => /frame-ancestors/.test(l) && l.includes(shop))).toBe(true);
  await page.waitForTimeout(500);
  expect(hostJsRequests).toEqual([]);
  await expect(page.frameLocator('iframe[title="Framed cart"]').locator('ucp-cart')).toHaveCount(0);

  // Control: the same fixture on the allowed agent origin loads the cart page (and host.js).
  consoleLines.length = 0;
  await page.goto(`${on(baseURL, 'agent')}/frame.html?cart=${cartId}`);
  await expect(page.frameLocator('iframe[title="Framed cart"]').locator('ucp-cart')).toHaveCount(1);
  expect(hostJsRequests.length).toBeGreaterThan(0);
  expect(consoleLines.some((l) => /frame-ancestors/.test(l))).toBe(false);
});
