/**
 * A copyable agent flow against the ucp-storefront sandbox (docs/ci.md). Copy this file and
 * playwright.config.ts into your repository, `npm install -D ucp-storefront @playwright/test`, then
 * `npx playwright test --workers=2`. Every test gets a fresh copy of the demo shop (`shop`, also the
 * `baseURL`) on its worker's own sandbox server, so tests never see each other's carts.
 *
 * Our own suite runs this very file from a temporary directory against the packed tarball
 * (test/package.test.ts), so it keeps working as written.
 */
import { createUcpClient, localhostFetch } from 'ucp-storefront/client';
import { expect, test } from 'ucp-storefront/testing/playwright';

test('discovers the shop and searches its catalog', async ({ shop, sandbox }) => {
  const client = createUcpClient({ business: shop.url, profile: sandbox.demoAgentProfile });
  expect((await client.endpoints()).rest).toBe(`${shop.url}/api/ucp`);
  const found = await client.searchCatalog({ query: 'tee' });
  expect(found.ok && found.data.products.length).toBeGreaterThan(0);
});

test('creates a cart through an injected 503, retried with the same idempotency key', async ({ shop, sandbox }) => {
  const posts: Array<string | null> = [];
  // The sandbox answers 503 (with Retry-After) when asked by this header: the first cart POST only.
  const withFault: typeof fetch = (input, init) => {
    const creating = init?.method === 'POST' && String(input).endsWith('/carts');
    const headers = new Headers(init?.headers);
    if (creating) posts.push(headers.get('idempotency-key'));
    if (creating && posts.length === 1) headers.set('ucp-sandbox-fault', '503');
    return localhostFetch(input, { ...init, headers }); // Node's own fetch cannot resolve *.localhost
  };
  const client = createUcpClient({ business: shop.url, profile: sandbox.demoAgentProfile, fetch: withFault });
  const cart = await client.createCart({ line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 2 }] });
  expect(cart.ok, JSON.stringify(cart)).toBe(true);
  expect(posts).toHaveLength(2);
  expect(posts[1]).toBe(posts[0]);
});

test('applies a discount code', async ({ shop, sandbox }) => {
  const client = createUcpClient({ business: shop.url, profile: sandbox.demoAgentProfile });
  const cart = await client.createCart({ line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] });
  if (!cart.ok) throw new Error(JSON.stringify(cart.messages));
  const updated = await client.updateCart(cart.data.id, { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }], discounts: { codes: ['WELCOME10'] } });
  if (!updated.ok) throw new Error(JSON.stringify(updated.messages));
  expect(updated.data.discounts?.applied?.map((d) => d.code)).toContain('WELCOME10');
});

test("a test's shop holds only that test's carts", async ({ shop, sandbox }) => {
  const client = createUcpClient({ business: shop.url, profile: sandbox.demoAgentProfile });
  const cart = await client.createCart({ line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] });
  expect(cart.ok).toBe(true);
  // Reset reports what it deleted: exactly this test's one cart, whatever ran before or beside it.
  expect(await sandbox.reset(shop.id)).toMatchObject({ deleted: { carts: 1 } });
  if (cart.ok) expect(await client.getCart(cart.data.id)).toMatchObject({ ok: false, messages: [{ code: 'not_found' }] });
});

test('hands the buyer off to continue_url in a browser', async ({ shop, sandbox, page }) => {
  const client = createUcpClient({ business: shop.url, profile: sandbox.demoAgentProfile });
  const cart = await client.createCart({ line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] });
  if (!cart.ok) throw new Error(JSON.stringify(cart.messages));
  expect(cart.data.continue_url).toBe(`${shop.url}/cart/${cart.data.id}`);
  await page.goto(cart.data.continue_url!);
  await expect(page.getByText(cart.data.line_items[0].item.title).first()).toBeVisible();
});
