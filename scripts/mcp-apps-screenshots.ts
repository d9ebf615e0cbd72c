/**
 * The screenshots in docs/mcp-apps.md: the shop's MCP Apps view in the AppBridge test host
 * (e2e/apps-host/) at 360, 600 and 1200 px, light and dark: a search's cards, a product with its
 * options, and a cart with a code. Needs a server and the test host running:
 *   PORT=8491 bash scripts/e2e-server.sh & npx tsx e2e/apps-host/serve.ts 8493 &
 *   npx tsx scripts/mcp-apps-screenshots.ts [SHOP_PORT] [HOST_PORT]
 */
import { chromium } from 'playwright-core';

const shopPort = Number(process.argv[2] ?? 8491);
const hostPort = Number(process.argv[3] ?? 8493);
const shop = `http://demo.localhost:${shopPort}`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
for (const width of [360, 600, 1200]) {
  for (const theme of ['light', 'dark']) {
    const page = await browser.newPage({ viewport: { width, height: 3000 } }); // tall: every view on screen, so each draws
    const q = new URLSearchParams({ shop, sandbox: `http://sandbox.localhost:${hostPort}`, theme });
    await page.goto(`http://localhost:${hostPort}/host.html?${q}`);
    await page.waitForFunction(() => (window as any).host?.ready());
    await page.evaluate(async (wide) => {
      const h = (window as any).host;
      const a = await h.run('search_catalog', { catalog: { query: 'mug', pagination: { limit: 4 } } });
      if (wide) await h.contextChange(a, { displayMode: 'fullscreen' });
      await h.run('get_product', { catalog: { id: 'prod_classic_tee' } });
      await h.run('create_cart', { cart: { line_items: [{ item: { id: 'var_flask_black' }, quantity: 1, customizations: [{ id: 'engraving', value: 'Happy trails' }, { id: 'gift_box', value: 'kraft' }] }, { item: { id: 'var_tee_m_navy' }, quantity: 2 }], discounts: { codes: ['WELCOME10'] } } });
    }, width === 1200);
    // Each view has drawn its result (a size over a line's height).
    await page
      .waitForFunction(() => [0, 1, 2].every((v) => (window as any).host.log.some((e: any) => e.kind === 'size' && e.view === v && e.height > 200)), undefined, { timeout: 20_000 })
      .catch(async (e) => {
        throw new Error(`${e}: ${JSON.stringify(await page.evaluate(() => (window as any).host.log))}`);
      });
    await page.waitForTimeout(1500);
    // The whole conversation in one viewport (a full-page capture scrolls cross-origin frames oddly).
    const height = await page.evaluate(() => Math.ceil(document.getElementById('views')!.getBoundingClientRect().bottom + 8));
    await page.setViewportSize({ width, height });
    await page.evaluate(() => scrollTo(0, 0));
    await page.waitForTimeout(500);
    await page.screenshot({ path: `docs/mcp-apps/views-${width}-${theme}.png` });
    await page.close();
  }
}
await browser.close();
