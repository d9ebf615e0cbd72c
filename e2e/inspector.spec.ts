/**
 * The request inspector's page (http://localhost:PORT/dev/, docs/sandbox.md): an exchange this test
 * makes as an agent appears on the live page, its hygiene note highlighted and its bodies
 * expandable; then a newer one arrives without a reload; at 390 px the page reads without
 * horizontal scrolling (screenshot kept in test-results for a look).
 */
import '../test/support/localhost-dns.mjs';
import { expect, test } from '@playwright/test';

test('the inspector page shows an exchange the test just made, live, and reads at 390 px', async ({ page, baseURL }) => {
  // A shop of this test's own (a clone of the demo): the suite's other worker uses the demo shop,
  // and its exchanges would otherwise come on top of this test's.
  const platform = baseURL!.replace('//demo.localhost', '//localhost');
  const clone = await fetch(`${platform}/dev/shops/shop_demo/clone`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(clone.status).toBe(201);
  const { domain } = await clone.json();
  const shop = `http://${domain}:${new URL(platform).port}`;
  const profile = `${baseURL!.replace('//demo.', '//agent.')}/.well-known/ucp`;
  const marker = `insp-${Date.now()}`;
  // A write without an idempotency key: the note the page must highlight.
  const created = await fetch(`${shop}/api/ucp/carts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'ucp-agent': `profile="${profile}"` },
    body: JSON.stringify({ line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }], buyer: { email: `${marker}@example.com` } }),
  });
  expect(created.status).toBe(201);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${platform}/dev/?shop=${domain}`);
  const row = page.locator('li.ex', { hasText: 'create_cart' }).filter({ hasText: profile }).first();
  await expect(row).toBeVisible();
  await expect(row.locator('ul.notes')).toContainText('without an idempotency key');
  await expect(row).toHaveClass(/noted/);
  await row.locator('summary', { hasText: 'Request' }).click();
  await expect(row.locator('pre').first()).toContainText(marker);

  // Live: a newer exchange arrives on top without a reload.
  const search = await fetch(`${shop}/api/ucp/catalog/search`, { method: 'POST', headers: { 'content-type': 'application/json', 'ucp-agent': `profile="${profile}"` }, body: JSON.stringify({ query: marker }) });
  expect(search.status).toBe(200);
  await expect(page.locator('li.ex').first()).toContainText('search_catalog');

  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.screenshot({ path: test.info().outputPath('inspector-390.png'), fullPage: false });
});
