import { test, expect } from '@playwright/test';

// A French page end to end: the widget's own words (src/views/i18n.ts), the catalog's French texts
// and the server's cart words (server/core/carts/cart-words.ts, customization display_text) together.
test('a shopper on the French page: product, errors, cart and a rejected code are all in French', async ({ page }) => {
  await page.goto('/products/engraved-flask');
  const product = page.locator('ucp-product');
  await expect(product.getByRole('button', { name: 'Add to cart' })).toBeVisible();
  await page.locator('#lang-switch').selectOption('fr');
  await expect(product.getByRole('button', { name: 'Ajouter au panier' })).toBeVisible();
  await expect(product.getByLabel('Finition')).toBeVisible();

  // Required fields missing: French errors on the fields.
  await product.getByRole('button', { name: 'Ajouter au panier' }).click();
  await expect(product.locator('[part=field-error]').first()).toHaveText('Ce champ est obligatoire.');
  await expect(product.getByRole('status')).toHaveText('Veuillez corriger les champs signalés.');

  await product.getByRole('textbox', { name: /Gravure/ }).fill('Salut');
  await product.getByRole('radio', { name: /Coffret kraft/ }).check();
  await product.getByRole('button', { name: 'Ajouter au panier' }).click();
  await expect(product.getByRole('status')).toContainText('Ajouté au panier');

  // The cart: the widget's words, and the options by their French labels (from the server).
  const cartEl = page.locator('header ucp-cart');
  await cartEl.getByRole('button', { name: 'Panier (1)' }).click();
  const dialog = cartEl.getByRole('dialog', { name: 'Votre panier' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByText('Gravure: Salut; Coffret: Coffret kraft')).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Passer au paiement' })).toBeVisible();

  // An expired code: the server's warning, in the cart's language.
  await dialog.getByLabel('Code de réduction').fill('SUMMER2024');
  await dialog.getByRole('button', { name: 'Appliquer' }).click();
  await expect(dialog.locator('[part=discount-message]')).toContainText('a expiré');
});

test('<ucp-search> on the home page follows the shopper\'s language and currency', async ({ page }) => {
  await page.goto('/');
  await page.locator('#currency-switch').selectOption('EUR');
  await page.locator('#lang-switch').selectOption('fr');
  await page.waitForLoadState('load');
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  const search = page.locator('ucp-search');
  await expect(search.getByRole('searchbox', { name: 'Rechercher dans la boutique' })).toBeVisible();
  await expect(search.getByRole('button', { name: 'Page suivante' })).toBeVisible();
  // Prices in euros, formatted the French way ("25,00 €").
  await expect(search.getByRole('list', { name: 'Produits' }).getByText(/\d+,\d\d\s€/).first()).toBeVisible();
});
