/**
 * A complete agent flow against the sandbox, written to be copied by agent builders (docs/access.md
 * "Zero setup" and "Sandbox faults"; a packaged version is examples/ci, docs/ci.md): discover the
 * shop, search, read a variant's customization definitions, create a cart with customizations
 * while the server injects a 503 that the agent retries (honouring Retry-After, same
 * Idempotency-Key), then hand the buyer off to `continue_url` in a browser.
 *
 * On the `ucp-storefront/testing/playwright` fixture, connected to the suite's server
 * (playwright.config.ts `webServer`): every test gets its own copy of the demo shop, so the file
 * runs with two workers (`npx playwright test e2e/agent-sandbox.spec.ts --workers=2`) and no test
 * sees another's carts. Node's fetch cannot resolve `*.localhost` (browsers do): the raw calls go
 * through the client's `localhostFetch`; against a real shop on a real domain, plain `fetch`.
 */
import { randomUUID } from 'node:crypto';
import { localhostFetch as fetch } from '../src/client/index.ts';
import { expect, test } from '../src/testing/playwright.ts';
import { PORT } from '../playwright.config.ts';

test.use({ sandboxUrl: `http://localhost:${PORT}` });
// The tests of this file in parallel (playwright.config.ts runs files, not tests, in parallel).
test.describe.configure({ mode: 'parallel' });

/** POST/GET with UCP-Agent; 429/503 are retried after Retry-After (at most 3 tries). */
async function ucp(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; faultFirst?: string }, profile: string) {
  for (let attempt = 1; ; attempt++) {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'ucp-agent': `profile="${profile}"`, ...init.headers };
    // The sandbox fault on the first try only: that is the failure the retry must survive.
    if (init.faultFirst && attempt === 1) headers['ucp-sandbox-fault'] = init.faultFirst;
    const res = await fetch(url, { method: init.method ?? 'POST', headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
    if ((res.status === 429 || res.status === 503) && attempt < 3) {
      const wait = Number(res.headers.get('retry-after') ?? '1');
      await new Promise((r) => setTimeout(r, wait * 1000));
      continue;
    }
    return { status: res.status, attempt, body: await res.json() };
  }
}

test('an agent discovers, searches, builds a customized cart through an injected 503, and hands off', async ({ page, shop: { url: shop }, sandbox }) => {
  const profile = sandbox.demoAgentProfile;

  // 1. Discover: the REST endpoint from the business profile.
  const discovery = await (await fetch(`${shop}/.well-known/ucp`)).json();
  const rest = discovery.ucp.services['dev.ucp.shopping'].find((b: { transport: string }) => b.transport === 'rest').endpoint as string;
  expect(rest).toBe(`${shop}/api/ucp`);

  // 2. Search, and pick a variant that takes customizations.
  const search = await ucp(`${rest}/catalog/search`, { body: { query: 'candle' } }, profile);
  expect(search.status).toBe(200);
  const variant = search.body.products.flatMap((p: { variants: unknown[] }) => p.variants).find((v: any) => v.metadata?.customizations?.length);
  expect(variant, 'a customizable variant').toBeTruthy();

  // 3. Fill each definition: a text gets a text, a select its first non-"none" option.
  const customizations = variant.metadata.customizations.map((d: any) =>
    d.type === 'text' ? { id: d.id, value: 'J.D.'.slice(0, d.max_length) } : { id: d.id, value: (d.options.find((o: any) => o.id !== 'none') ?? d.options[0]).id },
  );

  // 4. Create the cart; the first try meets a 503 from the sandbox and is retried with the same key.
  const key = randomUUID();
  const created = await ucp(`${rest}/carts`, { body: { line_items: [{ item: { id: variant.id }, quantity: 1, customizations }] }, headers: { 'idempotency-key': key }, faultFirst: '503' }, profile);
  expect(created.attempt).toBe(2);
  expect(created.status).toBe(201);
  const cart = created.body;
  expect(cart.line_items[0].customizations.map((c: { id: string }) => c.id)).toEqual(customizations.map((c: { id: string }) => c.id));
  expect(cart.messages ?? []).not.toContainEqual(expect.objectContaining({ type: 'error' }));

  // The retry did not make a second cart: the key replays the same one.
  const replay = await ucp(`${rest}/carts`, { body: { line_items: [{ item: { id: variant.id }, quantity: 1, customizations }] }, headers: { 'idempotency-key': key } }, profile);
  expect(replay.body.id).toBe(cart.id);

  // 5. Hand off: the buyer continues at continue_url, where the same cart is shown.
  expect(cart.continue_url).toBe(`${shop}/cart/${cart.id}`);
  await page.goto(cart.continue_url);
  await expect(page.getByText(cart.line_items[0].item.title).first()).toBeVisible();

  // 6. What the agent did, as the sandbox saw it (docs/sandbox.md "Request inspector"): this test's
  // shop only, newest first. The 503 and its retry under one key carry no note; a write without a
  // key does.
  const careless = await ucp(`${rest}/carts`, { body: { line_items: [{ item: { id: variant.id }, quantity: 1, customizations }] } }, profile);
  expect(careless.status).toBe(201);
  const seen = await (await fetch(`${sandbox.url}/dev/shops/${encodeURIComponent(new URL(shop).hostname)}/requests`)).json();
  const creates = seen.exchanges.filter((x: { operation: string; transport: string }) => x.operation === 'create_cart' && x.transport === 'rest');
  expect(creates.map((x: { status: number }) => x.status)).toEqual([201, 201, 201, 503]);
  expect(creates.slice(1).map((x: { idempotency_key: string }) => x.idempotency_key)).toEqual([key, key, key]);
  expect(creates.slice(1).flatMap((x: { notes: unknown[] }) => x.notes)).toEqual([]);
  expect(creates[0].idempotency_key).toBeNull();
  expect(creates[0].notes.map((n: { code: string }) => n.code)).toEqual(['idempotency_key_missing']);
  expect(creates[0].agent).toBe(profile);
});

test("a test's shop holds only its own carts, whatever runs beside it", async ({ shop, sandbox, baseURL }) => {
  expect(baseURL).toBe(shop.url);
  expect(shop.domain).toMatch(/^demo-[0-9a-f]{10}\.localhost$/);
  const created = await ucp(`${shop.url}/api/ucp/carts`, { body: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] }, headers: { 'idempotency-key': randomUUID() } }, sandbox.demoAgentProfile);
  expect(created.status).toBe(201);
  // The demo shop (which other specs use) is untouched: the cart is not there.
  const elsewhere = await ucp(`${sandbox.shopUrl()}/api/ucp/carts/${created.body.id}`, { method: 'GET' }, sandbox.demoAgentProfile);
  expect(elsewhere.body.messages?.[0]?.code).toBe('not_found');
  expect(await sandbox.reset(shop.id)).toMatchObject({ deleted: { carts: 1 } });
});

test.describe("isolation: 'worker'", () => {
  test.use({ isolation: 'worker' });
  test('gives the demo shop itself, for suites that only read', async ({ shop, baseURL, sandbox }) => {
    expect(shop).toEqual({ id: 'shop_demo', domain: 'demo.localhost', url: sandbox.shopUrl() });
    expect(baseURL).toBe(`http://demo.localhost:${PORT}`);
  });
});
