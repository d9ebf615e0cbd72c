/**
 * Embedded Cart Protocol across origins (docs/embedded.md): the demo agent page on agent.localhost
 * loads host.js from demo.localhost, creates a cart over CORS and opens it in host mode. Checks the
 * handshake (port upgrade), `start` / `change` events carrying the full cart on the host page, and
 * that `complete` hands the buyer off to `continue_url`.
 */
import { expect, test, type Page } from '@playwright/test';

const agentUrl = (baseURL?: string) => (baseURL ?? 'http://demo.localhost:8391').replace('//demo.', '//agent.');

/** The detail of the n-th logged event of a type (the demo page logs each as JSON). */
async function logged(page: Page, type: string, n = 0): Promise<any> {
  const entry = page.locator(`#log li[data-type="${type}"]`).nth(n);
  await expect(entry).toBeVisible();
  return JSON.parse(await entry.locator('pre').innerText());
}

async function openNewCart(page: Page, baseURL?: string) {
  await page.goto(agentUrl(baseURL));
  await expect(page.locator('#hostjs')).toContainText('loaded');
  await page.getByRole('button', { name: 'Create cart and open it' }).click();
  const dialog = page.getByRole('dialog', { name: /Cart/ });
  await expect(dialog).toBeVisible();
  return dialog;
}

test('agent page: handshake with port upgrade, start/change with the full cart, complete → checkout handoff', async ({ page, baseURL }) => {
  const shop = baseURL!;
  const dialog = await openNewCart(page, baseURL);

  // The frame: shop origin, ep_* params, sandbox + credentialless, labelled.
  const iframe = dialog.locator('iframe');
  await expect(iframe).toHaveAttribute('sandbox', 'allow-scripts allow-forms allow-same-origin');
  await expect(iframe).toHaveAttribute('credentialless', '');
  await expect(iframe).toHaveAttribute('title', 'Shopping cart');
  const src = new URL((await iframe.getAttribute('src'))!);
  expect(src.origin).toBe(shop);
  expect(src.pathname).toMatch(/^\/cart\/cart_/);
  expect(src.searchParams.get('ep_version')).toBe('2026-04-08');
  expect(src.searchParams.get('ep_cart_delegate')).toBe('');

  // Handshake: the second `ready` arrived over the transferred MessagePort.
  const ready = await logged(page, 'ucp:cart:ready');
  expect(ready).toEqual({ channel: 'port', via: 'frame', delegate: [] });

  // start: the full cart, as the server has it.
  const { cart } = await logged(page, 'ucp:cart:start');
  expect(cart.id).toBe(src.pathname.split('/').pop());
  expect(cart.ucp.version).toBe('2026-04-08');
  expect(cart.line_items).toHaveLength(1);
  expect(cart.line_items[0]).toMatchObject({ item: { id: 'var_tee_m_navy' }, quantity: 1 });
  expect(cart.totals.find((t: any) => t.type === 'total').amount).toBe(2500);
  expect(cart.continue_url).toBe(`${shop}/cart/${cart.id}`);
  // (Node cannot resolve *.localhost here: ask through the browser, over CORS like the agent.)
  const server = await page.evaluate((u) => fetch(u).then((r) => r.json()), `${shop}/api/ucp/carts/${cart.id}`);
  expect(cart).toEqual(server);

  // change: the buyer edits the quantity inside the frame.
  const frame = page.frameLocator('iframe[title="Shopping cart"]');
  await frame.getByRole('button', { name: /Increase quantity/ }).click();
  const change = await logged(page, 'ucp:cart:change');
  expect(change.kind).toBe('line_items');
  expect(change.cart.id).toBe(cart.id);
  expect(change.cart.line_items[0].quantity).toBe(2);
  expect(change.cart.totals.find((t: any) => t.type === 'total').amount).toBe(5000);
  expect(change.cart.currency).toBe('USD');

  // complete: the frame does not navigate; the host hands off top-level to the complete message's
  // continue_url (no ep_*), which is the shop's checkout handoff, as the Checkout button on the shop.
  await frame.getByRole('button', { name: 'Checkout' }).click();
  await page.waitForURL('**/handoff-preview');
  await expect(page.getByRole('table')).toContainText('Quantity');
});

test('agent page: complete can be cancelled by the page; dialog is accessible and closes with Escape', async ({ page, baseURL }) => {
  const dialog = await openNewCart(page, baseURL);
  await logged(page, 'ucp:cart:start');
  await expect(dialog.getByRole('button', { name: 'Close cart' })).toBeVisible();

  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page.locator('#log li[data-type="ucp:cart:close"]')).toHaveCount(1);

  await page.locator('#stay').check();
  await page.getByRole('button', { name: 'Create cart and open it' }).click();
  await expect(page.locator('#log li[data-type="ucp:cart:start"]')).toHaveCount(2);
  const agentHref = page.url();
  await page.frameLocator('iframe[title="Shopping cart"]').getByRole('button', { name: 'Checkout' }).click();
  const done = await logged(page, 'ucp:cart:complete');
  expect(done.cart.line_items[0].item.id).toBe('var_tee_m_navy');
  expect(done.cart.continue_url).toBe(`${new URL(baseURL!).origin}/cart/${done.cart.id}/checkout`);
  expect(done.continue_url).toBe(done.cart.continue_url);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  expect(page.url()).toBe(agentHref);
});

test('host mode falls back to a popup / plain link when the shop refuses to be framed', async ({ page, baseURL }) => {
  await page.goto(agentUrl(baseURL));
  await expect(page.locator('#hostjs')).toContainText('loaded');
  // other.localhost allows no agent origins: its cart page refuses this framer (CSP), so no `ready` comes.
  const other = baseURL!.replace('//demo.', '//other.');
  await page.evaluate((o) => (window as any).UCP.openCart({ shopOrigin: o, continueUrl: `${o}/cart/cart_none`, readyTimeout: 1500 }), other);
  const fallback = await logged(page, 'ucp:cart:fallback');
  expect(fallback).toEqual({ reason: 'timeout', continue_url: `${other}/cart/cart_none` });
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('status')).toContainText('could not be shown here');
  await expect(dialog.getByRole('button', { name: 'Open in a new window' })).toBeVisible();
  await expect(dialog.getByRole('link', { name: /Open the cart on other\.localhost/ })).toHaveAttribute('href', `${other}/cart/cart_none`);
  await expect(dialog.locator('iframe')).toHaveCount(0);
  await expect(page.locator('#log li[data-type="ucp:cart:start"]')).toHaveCount(0);
});

test('host mode popup fallback runs the same protocol against the popup', async ({ page, baseURL }) => {
  await page.goto(agentUrl(baseURL));
  await expect(page.locator('#hostjs')).toContainText('loaded');
  const shop = baseURL!;
  const cart = await page.evaluate(
    (u) => fetch(u, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ line_items: [{ item: { id: 'var_tee_l_white' }, quantity: 1 }] }) }).then((r) => r.json()),
    `${shop}/api/ucp/carts`,
  );
  // Force the fallback with a tiny timeout, then choose the popup.
  await page.evaluate((u) => (window as any).UCP.openCart({ shopOrigin: new URL(u).origin, continueUrl: u, readyTimeout: 1 }), cart.continue_url);
  await logged(page, 'ucp:cart:fallback');
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.getByRole('button', { name: 'Open in a new window' }).click()]);
  await expect(popup).toHaveURL(/ep_version=2026-04-08/);
  const ready = await logged(page, 'ucp:cart:ready');
  expect(ready.via).toBe('popup');
  const start = await logged(page, 'ucp:cart:start');
  expect(start.cart.id).toBe(cart.id);
});

test('an unknown cart id says "not found" to the shopper and tells the host, by id and framed by URL', async ({ page, baseURL }) => {
  const shop = baseURL!;
  await page.goto(agentUrl(baseURL));
  await expect(page.locator('#hostjs')).toContainText('loaded');

  // By id: the shop answers a not_found error_response; the host says so (not "opens on the store").
  await page.evaluate((o) => (window as any).UCP.openCart({ shopOrigin: o, cartId: 'cart_nope' }), shop);
  const byId = await logged(page, 'ucp:cart:error');
  expect(byId.error.messages[0]).toMatchObject({ code: 'not_found', severity: 'unrecoverable' });
  expect(byId.error.continue_url).toBe(`${shop}/`);
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('status')).toContainText('Cart not found.');
  await expect(dialog.getByRole('link', { name: /Visit the store on demo\.localhost/ })).toHaveAttribute('href', `${shop}/`);
  await expect(page.locator('#log li[data-type="ucp:cart:fallback"]')).toHaveCount(0);
  await page.keyboard.press('Escape');

  // Framed by URL: the cart page itself finds no cart and sends ep.cart.error (not_found), handing
  // the buyer to the store's home; the host tears the frame down and says the same.
  await page.evaluate((o) => (window as any).UCP.openCart({ shopOrigin: o, continueUrl: `${o}/cart/cart_nope` }), shop);
  const framed = await logged(page, 'ucp:cart:error', 1);
  expect(framed.error.messages[0]).toMatchObject({ code: 'not_found', severity: 'unrecoverable' });
  expect(framed.error.continue_url).toBe(`${shop}/`);
  await expect(page.getByRole('dialog').getByRole('status')).toContainText('Cart not found.');
  await expect(page.getByRole('dialog').locator('iframe')).toHaveCount(0);
});

test('the cart page of an unknown cart says "not found", not "your cart is empty"', async ({ page, baseURL }) => {
  await page.goto(`${baseURL}/cart/cart_nope`);
  await expect(page.locator('ucp-cart [part=error]')).toHaveText('Cart not found. It may have expired.');
  await expect(page.locator('ucp-cart').getByText('Your cart is empty.')).toHaveCount(0);
});
