/**
 * A shopper in a real shop (issue 16), at 1280 px and 390 px, with screenshots kept as test
 * artifacts: stock is capped and said so, checkout goes somewhere, the shopper's language and
 * currency stick across pages, and strict.localhost's own pages work with shopper wording only.
 */
import { expect, test, type Page, type TestInfo } from '@playwright/test';

/** A full-page screenshot in the test's output directory (test-results/), attached to the report. */
async function shot(page: Page, info: TestInfo, name: string) {
  const path = info.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await info.attach(name, { path, contentType: 'image/png' });
}

for (const width of [1280, 390]) {
  test.describe(`${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test('stock: 999 flasks become the 30 in stock, with the reason by the line; checkout hands over', async ({ page }, info) => {
      await page.goto('/products/engraved-flask');
      const product = page.locator('ucp-product');
      await product.getByLabel('Finish').selectOption({ index: 1 });
      // The quantity input stops at what one cart may hold.
      const qty = product.getByLabel('Quantity');
      await expect(qty).toHaveAttribute('max', '30');
      await product.getByRole('textbox', { name: /Engraving/ }).fill('Trail');
      await product.getByRole('radio', { name: /Kraft box/ }).check();
      await qty.fill('25');
      await product.getByRole('button', { name: 'Add to cart' }).click();
      await expect(product.getByRole('status')).toContainText('Added');
      await product.getByRole('button', { name: 'Add to cart' }).click(); // 50 asked, 30 in stock
      await expect(product.getByRole('status')).toContainText('Only 30');
      await shot(page, info, `stock-${width}`);
      const cartEl = page.locator('header ucp-cart');
      await cartEl.getByRole('button', { name: /Cart \(30\)/ }).click();
      const dialog = cartEl.getByRole('dialog');
      await expect(dialog.getByRole('spinbutton', { name: /Quantity of/ })).toHaveValue('30');
      await shot(page, info, `cart-${width}`);
      await dialog.getByRole('button', { name: 'Checkout' }).click();
      await page.waitForURL('**/handoff-preview');
      await expect(page.getByRole('heading', { name: 'Handed over to the shop’s checkout' })).toBeVisible();
      await expect(page.getByRole('table')).toContainText('Engraving: Trail');
      // Each amount column's heading sits over its amounts (right edges line up).
      const edges = await page.getByRole('table').evaluate((t: HTMLTableElement) =>
        [1, 2, 3].map((i) => {
          const right = (el: Element) => { const r = document.createRange(); r.selectNodeContents(el); return Math.round(r.getBoundingClientRect().right); };
          return [right(t.tHead!.rows[0].cells[i]), right(t.tBodies[0].rows[0].cells[i])];
        }),
      );
      for (const [head, cell] of edges) expect(Math.abs(head - cell)).toBeLessThanOrEqual(1);
      await shot(page, info, `handoff-${width}`);
    });

    test('French and EUR stick across pages and reloads; the cart follows', async ({ page }, info) => {
      await page.goto('/products/classic-tee');
      await page.locator('ucp-product').getByRole('button', { name: 'Add to cart' }).click();
      await expect(page.locator('ucp-product').getByRole('status')).toContainText('Added');
      await page.locator('#currency-switch').selectOption('EUR');
      await page.locator('#lang-switch').selectOption('fr');
      await page.waitForLoadState('load');
      await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
      await page.goto('/products/engraved-flask');
      await expect(page.getByText('Devise')).toBeVisible();
      await expect(page.getByText('Langue')).toBeVisible();
      const product = page.locator('ucp-product');
      await expect(product.getByRole('button', { name: 'Ajouter au panier' })).toBeVisible();
      await expect(product.locator('[part=price]')).toContainText('€');
      await page.reload();
      const cartEl = page.locator('header ucp-cart');
      await cartEl.getByRole('button', { name: /Panier/ }).click();
      const dialog = cartEl.getByRole('dialog', { name: 'Votre panier' });
      await expect(dialog.locator('[data-total=total]')).toContainText('€');
      await expect(dialog.getByText('Sous-total')).toBeVisible();
      await shot(page, info, `french-eur-${width}`);
    });

    test('the whole catalog: <ucp-search> pages through every product, searches, filters by category; cards link to product pages with their details', async ({ page }, info) => {
      await page.goto('/');
      const search = page.locator('ucp-search');
      const cards = search.getByRole('list', { name: 'Products' }).getByRole('link');
      const settled = () => expect(search).not.toHaveAttribute('aria-busy', 'true');
      await expect(cards.first()).toBeVisible();
      const seen = new Set<string>();
      // Every page of the catalog, following Next until it is disabled, without leaving the page.
      for (let n = 1; n < 20; n++) {
        await settled();
        await expect(search.getByRole('navigation', { name: 'Pages' }).getByText(`Page ${n}`, { exact: true })).toBeVisible();
        for (const href of await cards.evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).pathname))) seen.add(href);
        if (n === 2) await shot(page, info, `search-element-${width}`);
        const next = search.getByRole('button', { name: 'Next page' });
        if (await next.isDisabled()) break;
        await next.click();
        // Focus stays on the pager (keyboard users keep their place).
        await expect(search.getByRole('button', { name: /page/ }).and(page.locator(':focus'))).toHaveCount(1);
      }
      expect(seen.size).toBe(49);
      await expect(page).toHaveURL(/[?&]page=5$/); // the address follows the element's pages (sync-url)
      await search.getByRole('searchbox', { name: 'Search the shop' }).fill('flask');
      await search.getByRole('searchbox', { name: 'Search the shop' }).press('Enter');
      await settled();
      await expect(search.getByRole('status')).toHaveText(/products? on this page/);
      await shot(page, info, `search-${width}`);
      await search.getByRole('link', { name: 'Engraved Steel Flask' }).click();
      await expect(page).toHaveURL(/\/products\/engraved-flask$/);
      await expect(page.getByRole('heading', { name: 'Description' })).toBeVisible();
      await expect(page.locator('.options dt')).toHaveText(['Finish']);
      await expect(page.getByText(/Rated \d(\.\d)? out of 5/)).toBeVisible();
      await expect(page.locator('ucp-product').getByRole('button', { name: 'Add to cart' })).toBeVisible();
      await shot(page, info, `product-details-${width}`);
      await page.goto('/');
      // The element's own form (the server's listing shows until its first results arrive).
      await expect(cards.first()).toBeVisible();
      await search.getByRole('combobox', { name: 'Category' }).selectOption('kitchen');
      await settled();
      await expect(cards).not.toHaveCount(0);
      for (const href of await cards.evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).pathname))) expect(href).toMatch(/^\/products\//);
      await shot(page, info, `category-${width}`);
      // A nothing-found search says so, in words.
      await search.getByRole('searchbox', { name: 'Search the shop' }).fill('zzzzqqq');
      await search.getByRole('button', { name: 'Search', exact: true }).click();
      await expect(search.getByRole('status')).toHaveText('No products match your search.');
      // A typo finds the product anyway (in all products), and the element says the results are close ones.
      await search.getByRole('combobox', { name: 'Category' }).selectOption('');
      await settled();
      await search.getByRole('searchbox', { name: 'Search the shop' }).fill('flsk');
      await search.getByRole('button', { name: 'Search', exact: true }).click();
      await expect(search.getByRole('status')).toHaveText(/^No exact match; showing close results\./);
      await expect(search.getByRole('link', { name: 'Engraved Steel Flask' })).toBeVisible();
    });

    test("<ucp-search> keeps the shopper's place: a reload and Back from a product come back to the same search and page", async ({ page }, info) => {
      await page.goto('/');
      const search = page.locator('ucp-search');
      const cards = search.getByRole('list', { name: 'Products' }).getByRole('link');
      const settled = () => expect(search).not.toHaveAttribute('aria-busy', 'true');
      const current = search.getByRole('navigation', { name: 'Pages' }).locator('[aria-current=page]');
      const hrefs = () => cards.evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).pathname));
      await expect(cards.first()).toBeVisible();
      await settled();
      await search.getByRole('combobox', { name: 'Category' }).selectOption('kitchen');
      await settled();
      const kitchen = await hrefs();
      await page.reload();
      await expect(search.getByRole('combobox', { name: 'Category' })).toHaveValue('kitchen');
      await expect.poll(hrefs).toEqual(kitchen);
      await search.getByRole('combobox', { name: 'Category' }).selectOption('');
      await settled();
      await expect(current).toHaveText('Page 1');
      const onPage1 = await hrefs();
      await search.getByRole('button', { name: 'Next page' }).click();
      await settled();
      await expect(current).toHaveText('Page 2');
      const onPage2 = await hrefs();
      // The address follows (sync-url): a reload is the server-rendered page 2, with the same
      // products in the same look; Back returns to the element's first page.
      await expect(page).toHaveURL(/[?&]page=2$/);
      const served = () => page.locator('main .cards h3').evaluateAll((hs) => hs.map((h) => (h.closest('a') as HTMLAnchorElement).pathname));
      await page.reload();
      await expect.poll(served).toEqual(onPage2);
      // Back crosses from the server's document to the entries the element pushed before the
      // reload (Chromium keeps them in the reloaded document): the listing is page 1 again.
      await page.goBack();
      await expect(page).not.toHaveURL(/[?&](page|category|q)=/);
      await expect(current).toHaveText('Page 1');
      await expect.poll(hrefs).toEqual(onPage1);
      await expect(search.getByRole('combobox', { name: 'Category' })).toHaveValue('');
      // And Forward is page 2 again, whichever document draws it.
      await page.goForward();
      await expect(page).toHaveURL(/[?&]page=2$/);
      const drawn = async () => ((await search.count()) ? hrefs() : served());
      await expect.poll(drawn).toEqual(onPage2);
      await expect(page.locator('main').getByRole('navigation', { name: 'Pages' }).locator('[aria-current=page]')).toHaveText('Page 2');
      await shot(page, info, `search-kept-${width}`);
    });

    test('later pages are server-rendered (links a shopper shares), with numbered paging', async ({ page }) => {
      await page.goto('/?page=2');
      await expect(page.locator('ucp-search')).toHaveCount(0);
      await expect(page.locator('.card a').first()).toBeVisible();
      await expect(page.getByRole('link', { name: 'Previous page' })).toBeVisible();
      await page.getByRole('link', { name: 'Previous page' }).click();
      await expect(page.locator('ucp-search')).toHaveCount(1);
    });

    test("strict.localhost: the shop's own pages work, and nothing developer-worded shows", async ({ page, baseURL }, info) => {
      const strict = baseURL!.replace('//demo.', '//strict.');
      await page.goto(`${strict}/`);
      await page.locator('ucp-search').getByRole('list', { name: 'Products' }).getByRole('link').first().click();
      const first = page.locator('ucp-product').first();
      await expect(first.getByRole('button', { name: 'Add to cart' })).toBeVisible();
      await expect(page.locator('body')).not.toContainText('channel API key');
      await first.getByRole('button', { name: 'Add to cart' }).click();
      await expect(first.getByRole('status')).toContainText('Added');
      await shot(page, info, `strict-${width}`);
    });
  });
}

test('a refused request is worded for shoppers, with a retry that works', async ({ page }) => {
  let refuse = true;
  await page.route('**/api/ucp/catalog/product', (route) =>
    refuse ? route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ code: 'identity_required', content: 'get_product needs a channel API key or a signed request on this shop.' }) }) : route.continue(),
  );
  await page.goto('/products/classic-tee');
  const product = page.locator('ucp-product');
  await expect(product.getByText('Not available right now')).toBeVisible();
  await expect(product).not.toContainText('channel API key');
  refuse = false;
  await product.getByRole('button', { name: 'Try again' }).click();
  await expect(product.getByRole('button', { name: 'Add to cart' })).toBeVisible();
});

for (const width of [390, 360]) {
  test(`${width} px: the cart's quantity stepper stays one piece (−, quantity, + on one row), in the shop and in an agent's frame`, async ({ page, baseURL }, info) => {
    await page.setViewportSize({ width, height: 900 });
    const oneRow = async (scope: ReturnType<Page['locator']>) => {
      const boxes = await Promise.all(
        [scope.getByRole('button', { name: /^Decrease quantity/ }), scope.getByRole('spinbutton', { name: /^Quantity of/ }), scope.getByRole('button', { name: /^Increase quantity/ })].map((l) => l.first().boundingBox()),
      );
      const tops = boxes.map((b) => Math.round(b!.y + b!.height / 2));
      expect(Math.max(...tops) - Math.min(...tops)).toBeLessThanOrEqual(2);
      // Nothing sticks out of the line: the price stays inside the cart.
      const line = await scope.locator('li.line').first().boundingBox();
      const price = await scope.locator('li.line > .p').first().boundingBox();
      expect(price!.x + price!.width).toBeLessThanOrEqual(line!.x + line!.width + 1);
    };
    await page.goto(baseURL!.replace('//demo.', '//agent.'));
    await page.getByRole('button', { name: 'Create cart and open it' }).click();
    await expect(page.locator('#log li[data-type="ucp:cart:start"]')).toBeVisible();
    await oneRow(page.frameLocator('iframe[title="Shopping cart"]').locator('ucp-cart'));
    await shot(page, info, `agent-cart-${width}`);
    await page.goto('/products/classic-tee');
    const product = page.locator('ucp-product');
    await product.getByRole('button', { name: 'Add to cart' }).click();
    await expect(product.getByRole('status')).toContainText('Added');
    await page.locator('ucp-cart').getByRole('button').first().click();
    await oneRow(page.locator('ucp-cart'));
    await shot(page, info, `shop-cart-${width}`);
  });
}
