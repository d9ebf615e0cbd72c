/**
 * host.js widget flow on the demo storefront: variant, customization errors from the server's
 * message paths, add, quantity, rejected then accepted discount code, totals in two currencies,
 * Checkout hands over to the shop's checkout (the demo shop's preview page shows what it received).
 */
import { expect, test } from '@playwright/test';

test('product widget → cart dialog → checkout handoff', async ({ page, baseURL }) => {
  await page.goto('/products/engraved-flask');
  const product = page.locator('ucp-product');
  await expect(product.getByRole('heading', { name: 'Engraved Steel Flask' })).toBeVisible();

  // Variant picker: choose the black finish (priced higher).
  const variant = product.getByLabel('Finish');
  await variant.selectOption({ index: 1 });
  await expect(variant).toHaveValue(/black/);
  await expect(product.locator('[part=price]')).toHaveText('$34.00');

  // Add without the required customizations: the server's errors land on their fields.
  await product.getByRole('button', { name: 'Add to cart' }).click();
  const engraving = product.getByRole('textbox', { name: /Engraving/ });
  await expect(engraving).toHaveAttribute('aria-invalid', 'true');
  await expect(product.locator('[part=field-error]').first()).toContainText('required');
  await expect(product.getByRole('radiogroup', { name: /Gift box/ })).toHaveAttribute('aria-invalid', 'true');
  await expect(engraving).toBeFocused();

  // Fix them: text with a live counter, a single choice with a price modifier, one extra.
  await engraving.fill('Happy trails');
  await expect(product.getByText('12/20')).toBeVisible();
  await product.getByRole('radio', { name: /Kraft box/ }).check();
  await product.getByRole('checkbox', { name: /Ribbon/ }).check();
  await expect(product.locator('[part=price]')).toHaveText('$38.50');
  await product.getByRole('button', { name: 'Add to cart' }).click();
  await expect(product.getByRole('status')).toContainText('Added Engraved Steel Flask');
  await expect(engraving).not.toHaveAttribute('aria-invalid', 'true');

  // The cart dialog.
  const cartEl = page.locator('header ucp-cart');
  const open = cartEl.getByRole('button', { name: 'Cart (1)' });
  await open.click();
  const dialog = cartEl.getByRole('dialog', { name: 'Your cart' });
  await expect(dialog).toBeVisible();
  // Chosen options by their labels, not their ids.
  await expect(dialog.getByText('Engraving: Happy trails; Gift box: Kraft box; Extras: Ribbon')).toBeVisible();
  await dialog.getByRole('button', { name: /Increase quantity of Engraved Steel Flask/ }).click();
  await expect(dialog.getByRole('spinbutton', { name: /Quantity of Engraved Steel Flask/ })).toHaveValue('2');
  await expect(dialog.locator('[data-total=total]')).toHaveText('$77.00');

  // A rejected code (expired) shows the server's warning; an accepted one its title.
  const code = dialog.getByLabel('Discount code');
  await code.fill('SUMMER2024');
  await dialog.getByRole('button', { name: 'Apply' }).click();
  await expect(dialog.locator('[part=discount-message]')).toHaveClass(/err/);
  await expect(dialog.locator('[part=discount-message]')).not.toBeEmpty();
  await code.fill('WELCOME10');
  await dialog.getByRole('button', { name: 'Apply' }).click();
  await expect(dialog.locator('[part=discount-message]')).toContainText('Code WELCOME10 applied');
  await expect(dialog.locator('[data-total=total]')).toHaveText('$69.30');
  await expect(cartEl.locator('[aria-live=polite]')).toContainText('WELCOME10');

  // Escape closes the dialog and focus returns to the opener.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(cartEl.getByRole('button', { name: 'Cart (2)' })).toBeFocused();

  // Second currency at run time (no reload): the cart is re-priced in EUR.
  await page.locator('#currency-switch').selectOption('EUR');
  await expect(product.locator('[part=price]')).toContainText('€');
  await cartEl.getByRole('button', { name: 'Cart (2)' }).click();
  await expect(dialog.locator('[data-total=total]')).toContainText('€');
  await expect(dialog.locator('[data-total=total]')).not.toContainText('$');

  // Checkout hands over to the shop's checkout (docs/carts.md "Checkout handoff").
  const cartId = await page.evaluate((origin) => localStorage.getItem(`ucp:cart:${origin}`), new URL(baseURL!).origin);
  expect(cartId).toBeTruthy();
  // (Node's resolver does not know *.localhost, so API calls go through the page.)
  const cart = await page.evaluate((id) => fetch(`/api/ucp/carts/${id}`).then((r) => r.json()), cartId);
  expect(cart.currency).toBe('EUR');
  expect(cart.continue_url).toBe(`${new URL(baseURL!).origin}/cart/${cartId}`);
  await dialog.getByRole('button', { name: 'Checkout' }).click();
  await page.waitForURL('**/handoff-preview');
  await expect(page.getByRole('heading', { name: 'Handed over to the shop’s checkout' })).toBeVisible();
  await expect(page.getByRole('table')).toContainText('Engraving: Happy trails');
  await expect(page.getByText('Prices in EUR')).toBeVisible();
});

test('cart page at continue_url renders the cart (CSP on, no console errors)', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto('/cart/none');
  const body = { line_items: [{ item: { id: 'var_flask_steel' }, quantity: 1, customizations: [{ id: 'engraving', value: 'Hi' }, { id: 'gift_box', value: 'none' }] }] };
  const cart = await page.evaluate((b) => fetch('/api/ucp/carts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) }).then((r) => r.json()), body);
  errors.length = 0;
  const resp = await page.goto(new URL(cart.continue_url).pathname);
  expect(resp!.headers()['content-security-policy']).toContain('frame-ancestors');
  const el = page.locator('ucp-cart[mode=page]');
  await expect(el.getByRole('heading', { name: 'Your cart' })).toBeVisible();
  await expect(el.locator('[part=line]')).toContainText('Engraved Steel Flask');
  await expect(el.getByRole('button', { name: 'Checkout' })).toBeEnabled();
  expect(errors).toEqual([]);

  await page.goto('/cart/does-not-exist');
  await expect(page.locator('ucp-cart').getByRole('alert')).toBeVisible();
});
