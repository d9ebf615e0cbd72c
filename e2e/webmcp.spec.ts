/**
 * WebMCP in Debian's Chromium (docs/webmcp.md): with `--enable-features=WebMCP` host.js registers the
 * shop's tools on `document.modelContext`; an in-page agent (Playwright's `page.webmcp`, which lists
 * and calls them like a browser agent) searches, reads a customizable product, fills the shopper's
 * cart — which the page shows at once, with the widget's `ucp:*` events — and hands over to checkout
 * where the cart's own Checkout button goes (the shop's checkout handoff), after the shopper agreed. Without the flag, with the
 * shop's switch off or the page's attribute, and inside an agent's frame nothing is registered or
 * loaded.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { CREATE_MISTAKES, mcpPath, readErrorTable } from '../test/support/error-table.ts';

const on = (baseURL: string | undefined, label: string) => (baseURL ?? 'http://demo.localhost:8391').replace('//demo.', `//${label}.`);
const TOOLS = ['begin_checkout', 'cancel_cart', 'create_cart', 'get_cart', 'get_product', 'lookup_catalog', 'search_catalog', 'update_cart'];
const FLASK = 'var_flask_steel';
const custom = [
  { id: 'engraving', value: 'Happy trails' },
  { id: 'gift_box', value: 'kraft' },
];

/** WebMCP chunk / tool-list requests, failed responses and console errors of a page. */
function watch(page: Page) {
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => /\/ucp\/(host-webmcp-[\w-]+\.js|webmcp\.json)$/.test(r.url()) && requests.push(new URL(r.url()).pathname));
  // (The browser's own favicon probe 404s on these demo pages; its console line is the generic one below.)
  page.on('response', (r) => r.status() >= 400 && !r.url().endsWith('/favicon.ico') && errors.push(`${r.status()} ${new URL(r.url()).pathname}`));
  page.on('console', (m) => m.type() === 'error' && !/^Failed to load resource/.test(m.text()) && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  return { requests, errors };
}

/** The registered tool names, once host.js has registered them (it fetches the list first). */
async function toolNames(page: Page): Promise<string[]> {
  let names: string[] = [];
  await expect(async () => {
    names = (await page.webmcp.tools()).map((t) => t.name).sort();
    expect(names).toHaveLength(TOOLS.length);
  }).toPass({ timeout: 5_000 });
  return names;
}

/** `ucp:*` events as the page sees them. */
const recordEvents = (page: Page) =>
  page.evaluate(() => {
    const w = window as unknown as { events: string[] };
    w.events = [];
    for (const type of ['ucp:cart:load', 'ucp:cart:change']) document.addEventListener(type, (e) => w.events.push(`${type} ${(e as CustomEvent).detail.line_items.map((l: any) => l.quantity).join(',')}`));
  });
const events = (page: Page) => page.evaluate(() => (window as unknown as { events: string[] }).events);

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
// This file's browser has WebMCP (a launch option: one per file); the last test launches one without.
test.use({ launchOptions: { executablePath: '/usr/bin/chromium', args: [...ARGS, '--enable-features=WebMCP'] } });

test.describe('with WebMCP', () => {
  test('lists the tools on the home page and on a product page, read-only and consequential ones marked', async ({ page }) => {
    const w = watch(page);
    await page.goto('/');
    expect(await toolNames(page)).toEqual(TOOLS);
    await page.goto('/products/engraved-flask');
    expect(await toolNames(page)).toEqual(TOOLS);
    const tools = await page.webmcp.tools();
    expect(tools.filter((t) => t.annotations?.readOnly).map((t) => t.name).sort()).toEqual(['get_cart', 'get_product', 'lookup_catalog', 'search_catalog']);
    // host.js registers begin_checkout and cancel_cart with `consequentialHint` (the list it reads says so);
    // Chromium shows it as `consequential` where it knows the hint (156), and drops it where it does not
    // (Debian's 150 passes readOnlyHint only): then no tool may be shown consequential at all.
    const registered = (await page.evaluate(async () => (await (await fetch('/ucp/webmcp.json')).json()) as { tools: Array<{ name: string; annotations: { consequentialHint?: boolean } }> })).tools;
    expect(registered.filter((t) => t.annotations.consequentialHint).map((t) => t.name).sort()).toEqual(['begin_checkout', 'cancel_cart']);
    expect(tools.filter((t) => t.annotations?.consequential).map((t) => t.name).sort()).toEqual(tools.some((t) => t.annotations && 'consequential' in t.annotations) ? ['begin_checkout', 'cancel_cart'] : []);
    const create = tools.find((t) => t.name === 'create_cart')!;
    expect((create.inputSchema as any).properties.cart.properties.line_items.items.properties.quantity.maximum).toBe(999);
    expect(JSON.stringify(create.inputSchema)).not.toContain('"meta"');
    expect(w.requests.filter((r) => r.endsWith('.js')).length).toBeGreaterThan(0);
    expect(w.errors).toEqual([]);
  });

  test('search → product → cart with customizations → update → shopper change → checkout where the widget goes', async ({ page, baseURL }) => {
    await page.goto('/products/engraved-flask');
    await toolNames(page);
    await recordEvents(page);
    const cartEl = page.locator('header ucp-cart');

    const found: any = await page.webmcp.callTool('search_catalog', { catalog: { query: 'flask' } });
    expect(found.isError).toBeUndefined();
    expect(found.structuredContent.products.map((p: any) => p.id)).toContain('prod_engraved_flask');
    expect(JSON.parse(found.content[0].text)).toEqual(found.structuredContent);

    const product: any = await page.webmcp.callTool('get_product', { catalog: { id: 'prod_engraved_flask' } });
    const variant = product.structuredContent.product.variants.find((v: any) => v.id === FLASK);
    expect(variant.metadata.customizations.filter((c: any) => c.required).map((c: any) => c.id)).toEqual(['engraving', 'gift_box']);

    // A required customization missing: an error result with the widget's words, nothing in the cart.
    const missing: any = await page.webmcp.callTool('create_cart', { cart: { line_items: [{ item: { id: FLASK }, quantity: 2, customizations: [custom[1]] }] } });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent.messages).toEqual([expect.objectContaining({ code: 'customization_required', path: '$.line_items[0].customizations' })]);
    expect(missing.content[1].text).toContain("$.cart.line_items[0].customizations 'engraving' (Engraving): This field is required.");
    // The same words the widget shows under the field.
    const form = page.locator('ucp-product');
    await form.getByRole('radio', { name: /Kraft box/ }).check();
    await form.getByRole('button', { name: 'Add to cart' }).click();
    await expect(form.locator('[part=field-error]').first()).toHaveText('This field is required.');
    await expect(cartEl.getByRole('button', { name: 'Cart (0)' })).toBeVisible();

    // Valid: the page's cart shows it at once, with the widget's events.
    const created: any = await page.webmcp.callTool('create_cart', { cart: { line_items: [{ item: { id: FLASK }, quantity: 2, customizations: custom }] } });
    expect(created.isError).toBeUndefined();
    const id = created.structuredContent.id;
    expect(created.structuredContent.line_items[0]).toMatchObject({ item: { id: FLASK }, quantity: 2 });
    await expect(cartEl.getByRole('button', { name: 'Cart (2)' })).toBeVisible();
    expect(await events(page)).toEqual(['ucp:cart:load 2']);
    expect(await page.evaluate((o) => localStorage.getItem(`ucp:cart:${o}`), new URL(baseURL!).origin)).toBe(id);
    await expect(cartEl.locator('[aria-live=polite]')).toContainText('An assistant updated your cart');

    // update_cart is a full replacement; the id defaults to the shopper's cart.
    const line = created.structuredContent.line_items[0];
    const updated: any = await page.webmcp.callTool('update_cart', { cart: { line_items: [{ id: line.id, item: { id: FLASK }, quantity: 3, customizations: custom }] } });
    expect(updated.structuredContent.id).toBe(id);
    await expect(cartEl.getByRole('button', { name: 'Cart (3)' })).toBeVisible();
    expect(await events(page)).toEqual(['ucp:cart:load 2', 'ucp:cart:change 3']);

    // The shopper changes it: the agent reads that next.
    await cartEl.getByRole('button', { name: 'Cart (3)' }).click();
    const dialog = cartEl.getByRole('dialog', { name: 'Your cart' });
    await expect(dialog.getByText('Engraving: Happy trails; Gift box: Kraft box')).toBeVisible();
    await dialog.getByRole('button', { name: /Increase quantity of Engraved Steel Flask/ }).click();
    await expect(dialog.getByRole('spinbutton', { name: /Quantity of Engraved Steel Flask/ })).toHaveValue('4');
    const read: any = await page.webmcp.callTool('get_cart', {});
    expect(read.structuredContent.line_items[0].quantity).toBe(4);
    const total = read.structuredContent.totals.find((t: any) => t.type === 'total').amount;
    await expect(dialog.locator('[data-total=total]')).toHaveText(`$${(total / 100).toFixed(2)}`);
    await expect(dialog.getByRole('button', { name: 'Checkout' })).toBeEnabled();
    await page.keyboard.press('Escape');

    // begin_checkout asks the shopper; "Not now" changes nothing.
    const declined = page.webmcp.callTool('begin_checkout', {});
    const ask = page.getByRole('dialog', { name: 'An assistant wants to take your cart to checkout' });
    await expect(ask).toBeVisible();
    await expect(ask).toContainText('4 items, total $');
    await expect(ask.getByRole('button', { name: 'Not now' })).toBeFocused();
    await ask.getByRole('button', { name: 'Not now' }).click();
    expect(await declined).toMatchObject({ isError: true, structuredContent: { messages: [{ code: 'declined' }] } });
    expect(new URL(page.url()).pathname).toBe('/products/engraved-flask');

    // Agreed: the result comes back, then the page goes where the Checkout button goes: the shop's
    // checkout handoff (the demo shop's shows what was handed over).
    const go = page.webmcp.callTool('begin_checkout', { id });
    await ask.getByRole('button', { name: 'Go to checkout' }).click();
    const handed: any = await go;
    expect(handed.isError).toBeUndefined();
    expect(handed.structuredContent.id).toBe(id);
    await page.waitForURL('**/handoff-preview');
    await expect(page.getByText('Engraved Steel Flask').first()).toBeVisible();
  });

  test('mistakes come back as readable results; another cart id is refused; cancel_cart asks first', async ({ page }) => {
    const w = watch(page);
    await page.goto('/products/classic-tee');
    await toolNames(page);
    const cartEl = page.locator('header ucp-cart');
    const add: any = await page.webmcp.callTool('create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] } });
    await expect(cartEl.getByRole('button', { name: 'Cart (1)' })).toBeVisible();
    // A second add of the same variant raises its quantity (the shopper's cart, not a new one).
    const again: any = await page.webmcp.callTool('create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 2 }] } });
    expect(again.structuredContent.id).toBe(add.structuredContent.id);
    expect(again.structuredContent.line_items.map((l: any) => l.quantity)).toEqual([3]);

    const bad: any = await page.webmcp.callTool('create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 'two' }] } });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ code: 'invalid_request', messages: [{ path: '$.cart.line_items[0].quantity' }] });
    expect(bad.structuredContent.content).toContain('$.cart.line_items[0].quantity');
    expect(JSON.parse(bad.content[0].text)).toEqual(bad.structuredContent);
    // The agent's mistake is not shown to the shopper, and the cart is untouched.
    await cartEl.getByRole('button', { name: 'Cart (3)' }).click();
    await expect(cartEl.getByRole('dialog').locator('[part=error]')).toHaveCount(0);
    await page.keyboard.press('Escape');

    expect(await page.webmcp.callTool('create_cart', {})).toMatchObject({ isError: true, structuredContent: { messages: [{ path: '$.cart' }] } });
    expect(await page.webmcp.callTool('get_product', { catalog: { id: 'prod_nope' } })).toMatchObject({ isError: true, structuredContent: { messages: [{ code: 'not_found' }] } });
    expect(await page.webmcp.callTool('get_cart', { id: 'cart_someone_else' })).toMatchObject({ isError: true, structuredContent: { messages: [{ code: 'not_found' }] } });
    expect(await page.webmcp.callTool('update_cart', { id: 42, cart: { line_items: [] } })).toMatchObject({ isError: true, structuredContent: { messages: [{ path: '$.id' }] } });

    // cancel_cart: the shopper agrees; the page shows an empty cart.
    const cancel = page.webmcp.callTool('cancel_cart', {});
    const ask = page.getByRole('dialog', { name: 'An assistant wants to empty and cancel your cart' });
    await ask.getByRole('button', { name: 'Cancel my cart' }).click();
    expect(await cancel).toMatchObject({ structuredContent: { id: add.structuredContent.id } });
    await expect(cartEl.getByRole('button', { name: 'Cart (0)' })).toBeVisible();
    expect(await page.webmcp.callTool('get_cart', {})).toMatchObject({ isError: true, structuredContent: { messages: [{ code: 'not_found' }] } });
    // The only failed request: the invalid quantity, which the server refused.
    expect(w.errors).toEqual(['400 /api/ucp/carts/' + add.structuredContent.id]);
  });

  test('one vocabulary: the rows of docs/errors.md that the page tools can make read as over MCP', async ({ page }) => {
    // The doc's table (the same one test/error-vocabulary.test.ts reads), by mistake.
    const rows = new Map(readErrorTable().map((r) => [r.mistake, r]));
    // The rows the page's tools can make (the page sends JSON, its own UCP-Agent and keys; its tools
    // act on the shopper's cart; create_cart merges into it, and gives paths at the agent's own line numbers).
    const cases: Array<readonly [string, string, object]> = [
      ['unknown product id (`get_product`)', 'get_product', { catalog: { id: 'prod_nope' } }],
      ['unknown cart id', 'get_cart', { id: 'cart_nope' }],
      ["another shop's cart id", 'get_cart', { id: 'cart_of_another_shop' }],
      ...Object.entries(CREATE_MISTAKES).map(([mistake, cart]) => [mistake, 'create_cart', { cart }] as const),
    ];
    await page.goto('/');
    await toolNames(page);
    for (const [mistake, tool, args] of cases) {
      const row = rows.get(mistake)!;
      expect(row, mistake).toBeDefined();
      const r: any = await page.webmcp.callTool(tool, args);
      expect(r.isError === true, `${mistake}: isError`).toBe(row.mcp.kind === 'result' && row.mcp.isError);
      const m = (r.structuredContent.messages ?? []).find((x: any) => x.code === row.code);
      expect({ mistake, code: m?.code, path: m?.path, severity: m?.severity }).toEqual({ mistake, code: row.code, path: mcpPath(row), severity: row.severity });
    }
  });

  test('a code the agent applies is named in the cart and in what the page announces', async ({ page }) => {
    await page.goto('/');
    await toolNames(page);
    const cartEl = page.locator('header ucp-cart');
    const made: any = await page.webmcp.callTool('create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 2 }], discounts: { codes: ['save5'] } } });
    expect(made.structuredContent.discounts.applied[0]).toMatchObject({ code: 'SAVE5', title: '$5 off', amount: 500 });
    await expect(cartEl.locator('[aria-live=polite]')).toContainText('Code applied: SAVE5 ($5 off).');
    await cartEl.getByRole('button', { name: 'Cart (2)' }).click();
    const codes = cartEl.getByRole('list', { name: 'Applied codes' });
    await expect(codes).toContainText('save5 $5 off (-$5.00)');
    await expect(codes.getByRole('button', { name: 'Remove code save5' })).toBeVisible();
    await page.keyboard.press('Escape');
    // A second code from the agent: only the new one is announced.
    await page.webmcp.callTool('update_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 2 }], discounts: { codes: ['SAVE5', 'WELCOME10'] } } });
    await expect(cartEl.locator('[aria-live=polite]')).toContainText('Code applied: WELCOME10 (10% off).');
    await cartEl.getByRole('button', { name: 'Cart (2)' }).click();
    await expect(codes).toContainText('WELCOME10 10% off');
  });

  test("the request inspector tells the agent's calls (webmcp) from the shopper's own (page)", async ({ page, baseURL }) => {
    await page.goto('/products/engraved-flask');
    await toolNames(page);
    const made: any = await page.webmcp.callTool('create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] } });
    const id = made.structuredContent.id as string;
    // The shopper's own write on the same cart, through the widget.
    const cartEl = page.locator('header ucp-cart');
    await cartEl.getByRole('button', { name: 'Cart (1)' }).click();
    await cartEl.getByRole('button', { name: /^Increase/ }).first().click();
    await expect(cartEl.getByRole('button', { name: 'Cart (2)' })).toBeVisible();
    const platform = (baseURL ?? 'http://demo.localhost:8391').replace('//demo.localhost', '//localhost');
    const mine = async () => {
      const r = await page.request.get(`${platform}/dev/shops/demo.localhost/requests?limit=100`);
      const all = (await r.json()).exchanges as Array<{ transport: string; operation: string; path: string; response: { body: string | null } }>;
      return all.filter((x) => x.path.includes(id) || (x.response.body ?? '').includes(id)).map((x) => `${x.transport} ${x.operation}`);
    };
    await expect.poll(mine).toEqual(expect.arrayContaining(['webmcp create_cart', 'page update_cart']));
  });

  test('switched off: the shop setting, the page attribute; never inside an agent\'s frame', async ({ page, baseURL }) => {
    const w = watch(page);
    // other.localhost has settings.webmcp_enabled = false: its pages say so on host.js's tag.
    await page.goto(on(baseURL, 'other'));
    await expect(page.locator('ucp-cart').getByRole('button')).toBeVisible();
    await expect(page.locator('script[type=module][data-webmcp=off]')).toHaveCount(1);
    await page.waitForTimeout(300);
    expect(await page.webmcp.tools()).toEqual([]);

    // A page of the demo shop with data-webmcp="off" on an element.
    // (Set once the document is parsed, before module scripts run: as if the markup had it.)
    await page.addInitScript(() =>
      document.addEventListener('readystatechange', () => document.querySelector('ucp-product')?.setAttribute('data-webmcp', 'off'), { once: true }),
    );
    await page.goto('/products/classic-tee');
    await expect(page.locator('ucp-product[data-webmcp=off]')).toHaveCount(1);
    await expect(page.locator('ucp-product').getByRole('button', { name: 'Add to cart' })).toBeVisible();
    await page.waitForTimeout(300);
    expect(await page.webmcp.tools()).toEqual([]);
    expect(w.requests).toEqual([]);

    // The agent page (another origin) loads the shop's host.js and frames the cart: neither registers.
    await page.goto(on(baseURL, 'agent'));
    await expect(page.locator('#hostjs')).toContainText('loaded');
    await page.getByRole('button', { name: 'Create cart and open it' }).click();
    const frame = page.frameLocator('iframe[title="Shopping cart"]');
    await expect(frame.getByRole('button', { name: 'Checkout' })).toBeVisible();
    expect(await page.webmcp.tools()).toEqual([]);
    // The framed cart page has the API, but host.js there did not even load the tools chunk (Chromium's
    // default permissions policy would also refuse a cross-origin frame's tools: listing them throws).
    const framed = page.frames().find((f) => f.url().includes('/cart/'))!;
    expect(await framed.evaluate(() => typeof (document as any).modelContext)).toBe('object');
    await expect(framed.webmcp.tools()).rejects.toThrow(/permissions policy/);
    expect(w.requests).toEqual([]);
    expect(w.errors).toEqual([]);
  });

  test('the shopper\'s Checkout click runs the same action and lands where begin_checkout does', async ({ page }) => {
    await page.goto('/products/classic-tee');
    await toolNames(page);
    const made: any = await page.webmcp.callTool('create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] } });
    const cartEl = page.locator('header ucp-cart');
    await cartEl.getByRole('button', { name: 'Cart (1)' }).click();
    expect(made.isError).toBeUndefined();
    await cartEl.getByRole('dialog').getByRole('button', { name: 'Checkout' }).click();
    await page.waitForURL('**/handoff-preview');
  });

  test('the confirmation dialog at 390 px, in French, dark: fits, no serious axe violation', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto('/products/classic-tee');
    await page.locator('#lang-switch').selectOption('fr');
    await toolNames(page);
    await page.webmcp.callTool('create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] } });
    const go = page.webmcp.callTool('begin_checkout', {});
    const ask = page.getByRole('dialog', { name: 'Un assistant veut passer au paiement avec votre panier' });
    await expect(ask).toContainText('1 article, total');
    await page.screenshot({ path: test.info().outputPath('webmcp-confirm-390-fr-dark.png') });
    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    const box = (await ask.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await page.keyboard.press('Escape');
    expect(await go).toMatchObject({ isError: true, structuredContent: { messages: [{ code: 'declined' }] } });
  });
});

test.describe('without WebMCP', () => {
  test('no WebMCP chunk or tool list is requested and nothing is logged', async ({ playwright, baseURL }) => {
    const browser = await playwright.chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
    test.info().setTimeout(30_000);
    const page = await browser.newPage({ baseURL });
    const w = watch(page);
    await page.goto('/products/engraved-flask');
    await expect(page.locator('ucp-product').getByRole('button', { name: 'Add to cart' })).toBeVisible();
    expect(await page.evaluate(() => 'modelContext' in document)).toBe(false);
    await page.goto('/');
    await expect(page.locator('ucp-cart').getByRole('button')).toBeVisible();
    await page.waitForTimeout(300);
    expect(w.requests).toEqual([]);
    expect(w.errors).toEqual([]);
    await browser.close();
  });
});
