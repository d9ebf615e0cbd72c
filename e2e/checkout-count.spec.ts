/**
 * The checkout page on the shop's domain shows the cart it is about (issue 47 point 8): a cart
 * filled elsewhere (an agent over REST, the shop's widget on another origin) has nothing in this
 * browser's storage, and the header's cart button counted 0. The page names its cart (`cart-id`).
 */
import { expect, test } from '@playwright/test';

const on = (baseURL: string | undefined, label: string) => (baseURL ?? 'http://demo.localhost:8391').replace('//demo.', `//${label}.`);

test("the checkout page's cart button counts the cart in its URL, not the browser's own", async ({ browser, baseURL }) => {
  const shop = on(baseURL, 'other'); // no online checkout connected: the page shows the summary
  // The cart is made in another browser (an agent, a widget elsewhere): raw REST, nothing stored here.
  const elsewhere = await browser.newPage();
  await elsewhere.goto(`${shop}/`);
  const made = await elsewhere.evaluate(async () => {
    const r = await fetch('/api/ucp/carts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ line_items: [{ item: { id: 'other_var_shaker_steel' }, quantity: 2 }] }) });
    return { status: r.status, id: (await r.json()).id as string };
  });
  await elsewhere.close();
  expect(made.status).toBe(201);
  const page = await browser.newPage();
  await page.goto(`${shop}/cart/${made.id}/checkout`);
  await expect(page.locator('header ucp-cart').getByRole('button', { name: 'Cart (2)' })).toBeVisible();
  await page.close();
});
