/**
 * The `ucp-storefront/testing/playwright` fixture cleans up after itself (src/testing/playwright.ts):
 * the fresh shop a passing test got is deleted when the test ends, so a shared server does not fill
 * up to UCP_MAX_CLONES with finished tests' shops. Serial: the second test reads what the first left.
 */
import { localhostFetch as fetch } from '../src/client/index.ts';
import { expect, test } from '../src/testing/playwright.ts';
import { PORT } from '../playwright.config.ts';

test.use({ sandboxUrl: `http://localhost:${PORT}` });
test.describe.configure({ mode: 'serial' });

let previous: { id: string; url: string } | undefined;

test('a test gets a fresh shop of its own', async ({ shop }) => {
  expect(shop.id).toMatch(/^shop_demo_/);
  expect((await fetch(`${shop.url}/.well-known/ucp`)).status).toBe(200);
  previous = shop;
});

test('the shop of a test that passed is gone when the next test runs', async ({ shop }) => {
  expect(previous).toBeDefined();
  expect(shop.id).not.toBe(previous!.id);
  expect((await fetch(`${previous!.url}/.well-known/ucp`)).status).toBe(404);
  expect((await fetch(`${shop.url}/.well-known/ucp`)).status).toBe(200);
});
