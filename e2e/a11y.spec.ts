/** axe scans (no violation of any impact) of the storefront's pages and the widget in its states, light and dark. */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';

async function scan(page: Page, label: string) {
  const r = await new AxeBuilder({ page }).analyze();
  const bad = r.violations;
  expect(bad.map((v) => `${label}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

test('the shop\'s 404 page for a browser (its chrome, lang, title)', async ({ page }) => {
  const r = await page.goto('/no/such/page');
  expect(r!.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await expect(page).toHaveTitle(/Page not found · /);
  expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
  await scan(page, '404');
  await page.goto('/products/');
  await scan(page, '404 /products/');
});

// The 503 page (the database down) needs a server whose database is gone: a second, in-process
// server (the real one, test/support/server.ts, its own throwaway database and the demo data), whose
// queries then fail as a stopped PostgreSQL server refuses them (ECONNREFUSED, the failure
// test/shop-error-pages.test.ts uses). No route of the running shop can cause it.
test('the shop\'s 503 page while its database is down (its chrome, lang, title, Retry-After)', async ({ page }) => {
  test.setTimeout(90_000); // a second server starts (its database and demo data) before the scans
  const { startTestServer } = await import('../test/support/server.ts');
  const t = await startTestServer();
  try {
    const shop = `http://demo.localhost:${t.port}/`;
    // The shop's settings are now known (cached). Not its home page: that searches, and its search
    // index, built in memory on the first search, would then serve the home page without the database.
    expect((await page.goto(`${shop}no/such/page`))!.status()).toBe(404);
    const exec = t.db.getExecutor();
    exec.executeQuery = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    };
    const r = await page.goto(shop);
    expect(r!.status()).toBe(503);
    expect(Number(r!.headers()['retry-after'])).toBeGreaterThan(0);
    await expect(page.getByRole('heading', { level: 1, name: 'The shop is unavailable' })).toBeVisible();
    await expect(page).toHaveTitle(/The shop is unavailable · /);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await scan(page, '503');
    // A host the server cannot tell from a shop while the database is down: the plain page.
    await page.goto(`http://nowhere.localhost:${t.port}/`);
    await expect(page).toHaveTitle('The shop is unavailable');
    await scan(page, '503 plain');
  } finally {
    await t.close().catch(() => {});
  }
});

for (const colorScheme of ['light', 'dark'] as const) {
  test.describe(`${colorScheme} scheme`, () => {
    test.use({ colorScheme });

    test('product page, field errors, cart dialog, cart page', async ({ page }) => {
      // Four full axe scans: 20-25 s on a loaded 2-core machine, too close to the 30 s default.
      test.setTimeout(60_000);
      await page.goto('/products/engraved-flask');
      const product = page.locator('ucp-product');
      await expect(product.getByRole('button', { name: 'Add to cart' })).toBeVisible();
      await scan(page, 'product');

      await product.getByRole('button', { name: 'Add to cart' }).click();
      await expect(product.locator('[part=field-error]').first()).toBeVisible();
      await scan(page, 'field errors');

      await product.getByRole('textbox', { name: /Engraving/ }).fill('A11y');
      await product.getByRole('radio', { name: /No box/ }).check();
      await product.getByRole('button', { name: 'Add to cart' }).click();
      await expect(product.getByRole('status')).toContainText('Added');

      const cart = page.locator('header ucp-cart');
      await cart.getByRole('button', { name: /Cart \(1\)/ }).click();
      const dialog = cart.getByRole('dialog');
      await expect(dialog.getByRole('button', { name: 'Checkout' })).toBeVisible();
      // Focus is inside the modal dialog; Tab cycles within it.
      for (let i = 0; i < 12; i++) {
        await page.keyboard.press('Tab');
        expect(await dialog.evaluate((d) => d.contains(d.getRootNode() instanceof ShadowRoot ? (d.getRootNode() as ShadowRoot).activeElement : null))).toBe(true);
      }
      await dialog.getByLabel('Discount code').fill('NOPE');
      await dialog.getByRole('button', { name: 'Apply' }).click();
      await expect(dialog.locator('[part=discount-message]')).toBeVisible();
      await scan(page, 'cart dialog');
      const cartId = await page.evaluate(() => localStorage.getItem(`ucp:cart:${location.origin}`));

      await page.goto(`/cart/${cartId}`);
      await expect(page.locator('ucp-cart[mode=page] [part=line]')).toBeVisible();
      await scan(page, 'cart page');
      // The checkout handoff and the demo shop's preview page it lands on.
      await page.locator('ucp-cart[mode=page]').getByRole('button', { name: 'Checkout' }).click();
      await page.waitForURL('**/handoff-preview');
      await scan(page, 'checkout handoff preview');
    });
  });
}

for (const colorScheme of ['light', 'dark'] as const) {
  for (const width of [1280, 390]) {
    test(`home page (<ucp-search>), its results, a server-rendered later page: ${width} px, ${colorScheme}`, async ({ page }) => {
      test.setTimeout(60_000);
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/');
      const search = page.locator('ucp-search');
      await expect(search.getByRole('link', { name: 'Classic Tee' })).toBeVisible();
      await expect(page.locator('ucp-cart').getByRole('button')).toBeVisible();
      await scan(page, 'home');
      await page.goto('/?q=linen');
      await expect(search.getByRole('status')).toHaveText(/products? on this page/);
      await scan(page, 'search results');
      await page.goto('/?page=2');
      await expect(page.getByRole('link', { name: 'Previous page' })).toBeVisible();
      await scan(page, 'page 2');
    });
  }
}

// The demo agent page (agent.localhost): every axe violation counted (moderate ones too), at both
// widths and in both schemes, before and after a cart is opened and its events are logged.
for (const colorScheme of ['light', 'dark'] as const) {
  for (const width of [1280, 390]) {
    test(`agent demo page, ${width} px, ${colorScheme}: no axe violation, log entries reachable`, async ({ page, baseURL }) => {
      test.setTimeout(60_000);
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize({ width, height: 900 });
      await page.goto(baseURL!.replace('//demo.', '//agent.'));
      await expect(page.locator('#hostjs')).toContainText('loaded');
      const all = async (label: string) => {
        const r = await new AxeBuilder({ page }).analyze();
        expect(r.violations.map((v) => `${label}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
      };
      await all('agent page');
      await page.getByRole('button', { name: 'Create cart and open it' }).click();
      const dialog = page.getByRole('dialog', { name: /Cart/ });
      await expect(dialog).toBeVisible();
      await expect(page.locator('#log li[data-type="ucp:cart:start"]')).toBeVisible();
      await dialog.getByRole('button', { name: 'Close cart' }).click();
      // Each logged detail is a focusable, labelled region, so a keyboard can scroll a long one.
      const pre = page.locator('#log pre').first();
      await expect(pre).toHaveAttribute('tabindex', '0');
      await expect(pre).toHaveAttribute('aria-label', /Event \d+: /);
      await all('agent page with events logged');
    });
  }
}
