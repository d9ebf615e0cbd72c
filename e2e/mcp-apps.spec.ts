/**
 * The shop's MCP Apps view in a real host: the official AppBridge of @modelcontextprotocol/ext-apps
 * and the official MCP client in a host page, the view in a sandbox proxy on another origin under
 * the CSP its resource asks for (e2e/apps-host/). The three-engine flow (search → product → options
 * and customizations → add → code → checkout) is in e2e/engines/flows.ts; here, in Chromium, the
 * rest of the protocol and every bad input: results that are not UCP, errors, cancellation, a host
 * that declines a call, host context (theme, locale, sizes), teardown, accessibility.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { APPS_HOST_PORT } from '../playwright.config.ts';

type Log = Array<{ kind: string; view: number; [k: string]: any }>;

async function openHost(page: Page, shop: string, q: Record<string, string> = {}) {
  const params = new URLSearchParams({ shop, sandbox: `http://sandbox.localhost:${APPS_HOST_PORT}`, ...q });
  await page.goto(`http://localhost:${APPS_HOST_PORT}/host.html?${params}`);
  await page.waitForFunction(() => (window as any).host?.ready());
}
const run = (page: Page, name: string, args: object, opts: object = {}) => page.evaluate(([n, a, o]) => (window as any).host.run(n, a, o) as Promise<number>, [name, args, opts] as const);
const hostDo = (page: Page, fn: string, ...args: unknown[]) => page.evaluate(([f, a]) => (window as any).host[f as string](...(a as unknown[])), [fn, args] as const);
const log = (page: Page) => page.evaluate(() => (window as any).host.log as Log);
const view = (page: Page, i = 0) => page.frameLocator('#views > iframe').nth(i).frameLocator('iframe');

test.describe('MCP Apps view in the official AppBridge', () => {
  test('the host reaches the view in both eras: 2026-07-28 (auto negotiation) and the 2025 handshake', async ({ page, baseURL }) => {
    for (const [q, version] of [[{}, '2026-07-28'], [{ era: '2025' }, '2025-11-25']] as const) {
      await openHost(page, baseURL!, q);
      await expect.poll(async () => (await log(page)).find((e) => e.kind === 'era')?.version).toBe(version);
      await run(page, 'search_catalog', { catalog: { query: 'chef knife' } });
      await expect(view(page).locator('li.pc', { hasText: "Chef's Knife" }).first()).toBeVisible();
    }
  });

  test('a card adds a single-variant product straight away; the model is told the cart in words', async ({ page, baseURL }) => {
    await openHost(page, baseURL!);
    await run(page, 'search_catalog', { catalog: { query: 'chef knife' } });
    const v = view(page);
    const card = v.locator('li.pc', { hasText: "Chef's Knife" }).first();
    await expect(card).toBeVisible();
    await card.getByRole('button', { name: /Add to cart/ }).click();
    await expect(card.getByRole('status')).toContainText('Added');
    await expect(v.getByRole('button', { name: 'View cart (1)' })).toBeVisible();
    await expect.poll(async () => (await log(page)).filter((e) => e.kind === 'model-context').length).toBe(1);
    const ctx = (await log(page)).find((e) => e.kind === 'model-context')!.params.content[0].text as string;
    expect(ctx).toMatch(/cart cart_\w+/);
    expect(ctx).toMatch(/1 × [^;]*Chef's Knife \[var_knife\]/);
    expect(ctx).toMatch(/Total \$[\d.]+ \(USD\)/);
    // The view called create_cart itself, through the host, without meta (the host adds it).
    const calls = (await log(page)).filter((e) => e.kind === 'call');
    expect(calls.map((c) => c.name)).toEqual(['create_cart']);
    expect(calls[0].arguments.meta).toBeUndefined();
  });

  test('a cart result restores itself in a new view; a declined update keeps the cart and says why', async ({ page, baseURL }) => {
    await openHost(page, baseURL!);
    const created = await page.evaluate(async () => {
      const h = (window as any).host;
      const i = await h.run('create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] } });
      return i;
    });
    const v = view(page, created);
    await expect(v.locator('[part=line]')).toContainText('Classic Tee');
    await hostDo(page, 'decline', 'update_cart');
    await v.getByRole('button', { name: /Increase quantity of Classic Tee/ }).click();
    await expect(v.locator('[part=error]')).toContainText('The buyer declined this change');
    await expect(v.locator('[part=line] input[type=number]')).toHaveValue('1');
    // Not declined this time: the same button works.
    await v.getByRole('button', { name: /Increase quantity of Classic Tee/ }).click();
    await expect(v.locator('[part=line] input[type=number]')).toHaveValue('2');
  });

  test('checkout: the host opens continue_url; a refused link leaves the address to copy', async ({ page, baseURL }) => {
    await openHost(page, baseURL!);
    await run(page, 'create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] } });
    const v = view(page);
    await v.getByRole('button', { name: 'Checkout' }).click();
    await expect.poll(async () => (await log(page)).find((e) => e.kind === 'open-link')?.url).toMatch(/\/cart\/cart_[\w-]+$/);
    const url = (await log(page)).find((e) => e.kind === 'open-link')!.url as string;
    await hostDo(page, 'refuseLinks');
    await v.getByRole('button', { name: 'Checkout' }).click();
    await expect(v.getByRole('alert')).toHaveText(`Checkout could not be opened (Link opening denied by user). Its address: ${url}`);
  });

  test('discount codes: a rejected code is said under the field, an accepted one is listed and removable', async ({ page, baseURL }) => {
    await openHost(page, baseURL!);
    await run(page, 'create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 2 }] } });
    const v = view(page);
    await v.getByLabel('Discount code').fill('NOPE');
    await v.getByRole('button', { name: 'Apply' }).click();
    await expect(v.locator('[part=discount-message]')).toContainText(/NOPE/);
    await v.getByLabel('Discount code').fill('WELCOME10');
    await v.getByRole('button', { name: 'Apply' }).click();
    await expect(v.locator('[part=codes]')).toContainText('WELCOME10');
    const totals = await v.locator('[part=totals] dd').allTextContents();
    const n = (s: string) => (/[-−]/.test(s) ? -1 : 1) * Number(s.replace(/[^\d.]/g, ''));
    // Subtotal − discounts = Total (no tax in the demo shop).
    expect(n(totals[0]) + totals.slice(1, -1).reduce((a, t) => a + n(t), 0)).toBeCloseTo(n(totals[totals.length - 1]), 2);
    await v.getByRole('button', { name: 'Remove code WELCOME10' }).click();
    await expect(v.locator('[part=codes]')).toHaveCount(0);
  });

  test('bad input: a result that is not UCP, an error result, a cancelled call; the last good view stays', async ({ page, baseURL }) => {
    await openHost(page, baseURL!);
    // A view whose first result is not a UCP response: a sentence, no crash.
    const bad = await run(page, 'search_catalog', { catalog: { query: 'x' } }, { result: { content: [{ type: 'text', text: 'hello' }], structuredContent: { hello: 'world' } } });
    await expect(view(page, bad).getByRole('alert')).toHaveText('The shop’s answer could not be read (it is not a UCP response).');
    // A good cart, then bad results into the same view: the cart stays, each is said.
    const i = await run(page, 'create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] } });
    const v = view(page, i);
    await expect(v.locator('[part=line]')).toContainText('Classic Tee');
    await hostDo(page, 'result', i, { isError: true, content: [{ type: 'text', text: '{}' }], structuredContent: { ucp: { version: '2026-04-08', status: 'error' }, messages: [{ type: 'error', code: 'not_found', content: 'Cart not found.' }] } });
    await expect(v.getByRole('alert').first()).toContainText('Cart not found.');
    await expect(v.locator('[part=line]')).toContainText('Classic Tee');
    await hostDo(page, 'result', i, 'not even an object');
    await expect(v.getByRole('alert').first()).toContainText('could not be read');
    await hostDo(page, 'cancel', i, 'the user stopped the tool');
    await expect(v.getByRole('alert').first()).toHaveText('The request was cancelled: the user stopped the tool.');
    await expect(v.locator('[part=line]')).toContainText('Classic Tee');
    // The host's teardown is answered (the host waits for it before removing the frame).
    await hostDo(page, 'teardown', i);
    expect((await log(page)).some((e) => e.kind === 'teardown' && e.view === i)).toBe(true);
  });

  test('a business error is shown next to its control: a missing customization, the stock left', async ({ page, baseURL }) => {
    await openHost(page, baseURL!);
    await run(page, 'get_product', { catalog: { id: 'prod_engraved_flask' } });
    const v = view(page);
    await expect(v.getByRole('heading', { name: 'Engraved Steel Flask' })).toBeVisible();
    await v.getByRole('button', { name: 'Add to cart' }).click();
    const engraving = v.locator('input[type=text][aria-invalid=true]');
    await expect(engraving).toBeVisible();
    await expect(engraving).toBeFocused();
    await run(page, 'get_product', { catalog: { id: 'prod_leather_journal' } });
    const j = view(page, 1);
    await j.locator('select[part=variant]').selectOption('var_journal_black');
    await j.getByLabel('Quantity').fill('3');
    await j.getByRole('button', { name: 'Add to cart' }).click();
    await expect(j.locator('[part=status]')).toContainText('Only 2 left');
  });

  test('options picker: the variant is the one with every chosen option; an unavailable one says so', async ({ page, baseURL }) => {
    await openHost(page, baseURL!);
    await run(page, 'get_product', { catalog: { id: 'prod_classic_tee' } });
    const v = view(page);
    await expect(v.getByLabel('Size')).toBeVisible();
    await v.getByLabel('Size').selectOption({ label: 'L' });
    await v.getByLabel('Color').selectOption({ label: 'White' });
    await v.getByRole('button', { name: 'Add to cart' }).click();
    await expect(v.locator('[part=status]')).toContainText('Added Classic Tee');
    await expect.poll(async () => (await log(page)).filter((e) => e.kind === 'model-context').map((e) => e.params.content[0].text).join()).toContain('[var_tee_l_white]');
    // The merino sweater's small navy is out of stock: its option says so.
    await run(page, 'get_product', { catalog: { id: 'prod_merino_crew_sweater' } });
    const m = view(page, 1);
    await m.getByLabel('Size').selectOption({ label: 'S' });
    await expect(m.getByLabel('Color').locator('option', { hasText: 'Navy' })).toContainText('(unavailable)');
  });

  test('a plain MCP Apps host (no UCP meta on view calls): the view names the agent the model named', async ({ page, baseURL }) => {
    await openHost(page, baseURL!, { ucp: '0' });
    await run(page, 'search_catalog', { catalog: { query: 'engraved flask' } });
    const v = view(page);
    await v.getByRole('button', { name: /Choose options/ }).first().click();
    await expect(v.getByRole('heading', { name: 'Engraved Steel Flask' })).toBeVisible();
    const calls = (await log(page)).filter((e) => e.kind === 'call');
    expect(calls.map((c) => [c.name, c.arguments.meta?.['ucp-agent']?.profile ?? null])).toEqual([
      ['get_product', null],
      ['get_product', `${baseURL!.replace('//demo.', '//agent.')}/.well-known/ucp`],
    ]);
  });

  test('host context: dark theme and style variables, French locale, sizes without a growth loop', async ({ page, baseURL }) => {
    await page.setViewportSize({ width: 600, height: 900 });
    await openHost(page, baseURL!, { theme: 'dark', locale: 'fr-FR' });
    await run(page, 'search_catalog', { catalog: { query: 'flask', context: { language: 'fr' } } });
    const v = view(page);
    const card = v.locator('li.pc').first();
    await expect(card).toBeVisible();
    await expect(v.getByRole('button', { name: /Choisir les options/ }).first()).toBeVisible();
    // The host's dark background variable reaches the views.
    const bg = await card.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(bg).toBe('rgb(31, 31, 30)');
    await expect(card).toContainText(/\d+,\d{2}\s?\$/);
    // Host context changes apply live: light theme.
    await hostDo(page, 'contextChange', 0, { theme: 'light' });
    await expect.poll(() => card.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(255, 255, 255)');
    // The reported height settles and matches the frame: no growth loop.
    await page.waitForTimeout(1000);
    const sizes = (await log(page)).filter((e) => e.kind === 'size');
    const frameHeight = await hostDo(page, 'frameHeight', 0);
    expect(sizes.length).toBeLessThan(8);
    expect(Math.abs(sizes.at(-1)!.height - (frameHeight as number))).toBeLessThanOrEqual(2);
    // A fixed container height: the view fills it and scrolls inside, and stops reporting growth.
    await hostDo(page, 'contextChange', 0, { containerDimensions: { height: 300, width: 584 } });
    await page.waitForTimeout(800);
    const after = (await log(page)).filter((e) => e.kind === 'size').length;
    await page.waitForTimeout(800);
    expect((await log(page)).filter((e) => e.kind === 'size').length).toBe(after);
  });

  test('the view cannot reach the network itself (CSP connect-src none)', async ({ page, baseURL }) => {
    await openHost(page, baseURL!);
    await run(page, 'search_catalog', { catalog: { query: 'flask' } });
    const frame = page.frames().find((f) => f.parentFrame()?.url().includes('/sandbox.html'))!;
    await expect(view(page).locator('li.pc').first()).toBeVisible();
    const outcome = await frame.evaluate((shop) => fetch(`${shop}/.well-known/ucp`).then(() => 'reached', () => 'blocked'), baseURL!);
    expect(outcome).toBe('blocked');
  });

  test('the view document carries its own CSP (issue 47): inline script and style it did not build are refused, its images and host fonts load', async ({ page, baseURL }) => {
    await openHost(page, baseURL!);
    await run(page, 'search_catalog', { catalog: { query: 'flask' } });
    const v = view(page);
    const img = v.locator('li.pc img').first();
    await expect(img).toBeVisible();
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    const frame = page.frames().find((f) => f.parentFrame()?.url().includes('/sandbox.html'))!;
    // The test host's own CSP (a header on the sandbox proxy) allows 'unsafe-inline' scripts and
    // styles, as the MCP Apps default does: what refuses these is the document's meta policy.
    const outcome = await frame.evaluate(async () => {
      const violations: string[] = [];
      document.addEventListener('securitypolicyviolation', (e) => violations.push(e.effectiveDirective));
      const meta = document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '';
      const s = document.createElement('script');
      s.textContent = 'window.__injected = true;';
      document.body.append(s);
      const st = document.createElement('style');
      st.textContent = '#app{outline:7px solid red}';
      document.head.append(st);
      await new Promise((r) => setTimeout(r, 100));
      return { meta, ran: (window as any).__injected === true, outline: getComputedStyle(document.getElementById('app')!).outlineWidth, violations };
    });
    expect(outcome.meta).toContain("connect-src 'none'");
    expect(outcome.meta).toMatch(/script-src 'sha256-[^']+'(;|$)/);
    expect(outcome.ran).toBe(false);
    expect(outcome.outline).not.toBe('7px');
    expect(outcome.violations).toEqual(expect.arrayContaining(['script-src-elem', 'style-src-elem']));
    // Host fonts (MCP Apps styles.css.fonts) still apply: a constructed sheet, which style-src does not govern.
    await hostDo(page, 'contextChange', 0, { styles: { css: { fonts: '@font-face{font-family:"Host Test Font";src:local("DejaVu Sans")}' } } });
    await expect.poll(() => frame.evaluate(() => document.adoptedStyleSheets.some((sh) => [...sh.cssRules].some((r) => r.cssText.includes('Host Test Font'))))).toBe(true);
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`axe: cards, product and cart views (${theme})`, async ({ page, baseURL }) => {
      await openHost(page, baseURL!, { theme });
      await run(page, 'search_catalog', { catalog: { query: 'flask' } });
      await run(page, 'get_product', { catalog: { id: 'prod_engraved_flask' } });
      await run(page, 'create_cart', { cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }], discounts: { codes: ['WELCOME10'] } } });
      await expect(view(page, 2).locator('[part=line]')).toBeVisible();
      await expect(view(page, 1).getByRole('heading', { name: 'Engraved Steel Flask' })).toBeVisible();
      const r = await new AxeBuilder({ page }).analyze();
      expect(r.violations.map((x) => `${x.id} (${x.impact}) ${x.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    });
  }
});
