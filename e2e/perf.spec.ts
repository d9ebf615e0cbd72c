/**
 * Time from host.js load to an interactive widget, from performance marks (docs/benchmarks.md):
 *   loaded→interactive: host.js responseEnd (Resource Timing) → `ucp:product:interactive`
 *   eval→interactive:   `ucp:host:start` (first statement of host.js) → `ucp:product:interactive`
 * The product widget is interactive once its product is fetched and rendered (includes one
 * POST /catalog/product round trip). Target ≤ 100 ms on a quiet machine.
 *
 * Speed is not asserted here (a timed test fails with the machine's load, not with the code: CI
 * once measured 399 ms beside the other browser workers). Beside it, the same run measures a
 * baseline on the same origin: a bare page whose inline script makes the same product request and
 * draws one button. `npm run bench` (BENCH_ONLY=host) runs this spec alone and reports both and
 * their ratio; the test asserts only that the marks exist and the numbers are sane.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';

const BASELINE = `<!doctype html><html lang="en"><title>baseline</title><main></main><script>
performance.mark('baseline:start');
fetch('/api/ucp/catalog/product', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'prod_engraved_flask' }) })
  .then((r) => r.json())
  .then((p) => {
    const b = document.createElement('button');
    b.textContent = 'Add ' + p.product.title;
    document.querySelector('main').append(b);
    performance.mark('baseline:interactive');
  });
</script></html>`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

test('host.js: script load → interactive product widget, beside a bare fetch-and-draw baseline', async ({ page }) => {
  await page.route('**/__perf-baseline', (route) => route.fulfill({ contentType: 'text/html', body: BASELINE }));
  const runs: Array<{ loaded: number; evaluated: number; fetch: number; baseline: number }> = [];
  for (let i = 0; i < 7; i++) {
    await page.goto('/products/engraved-flask');
    await expect(page.locator('ucp-product').getByRole('button', { name: 'Add to cart' })).toBeVisible();
    await page.waitForFunction(() => performance.getEntriesByName('ucp:product:interactive').length > 0);
    const widget = await page.evaluate(() => {
      const ready = performance.getEntriesByName('ucp:product:interactive')[0].startTime;
      const start = performance.getEntriesByName('ucp:host:start')[0].startTime;
      const res = performance.getEntriesByType('resource').find((e) => /\/ucp\/host[.\w]*\.js$/.test(e.name)) as PerformanceResourceTiming;
      return { loaded: ready - res.responseEnd, evaluated: ready - start, fetch: res.responseEnd - res.startTime };
    });
    await page.goto('/__perf-baseline');
    await expect(page.getByRole('button', { name: 'Add Engraved Steel Flask' })).toBeVisible();
    const baseline = await page.evaluate(
      () => performance.getEntriesByName('baseline:interactive')[0].startTime - performance.getEntriesByName('baseline:start')[0].startTime,
    );
    runs.push({ ...widget, baseline });
  }
  const warm = runs.slice(2); // the first loads warm the server and the HTTP cache
  const result = {
    runs: warm.length,
    loaded_to_interactive_ms: Math.round(median(warm.map((r) => r.loaded))),
    eval_to_interactive_ms: Math.round(median(warm.map((r) => r.evaluated))),
    script_fetch_ms: Math.round(median(warm.map((r) => r.fetch))),
    baseline_fetch_and_draw_ms: Math.round(median(warm.map((r) => r.baseline))),
    ratio_to_baseline: Number((median(warm.map((r) => r.loaded)) / Math.max(1, median(warm.map((r) => r.baseline)))).toFixed(2)),
  };
  console.log('host.js perf', JSON.stringify(result));
  mkdirSync('.tmp', { recursive: true });
  writeFileSync('.tmp/perf-host.json', JSON.stringify(result, null, 2));
  // Sanity, not speed: every mark was set, in order.
  for (const r of warm) {
    expect(r.loaded).toBeGreaterThan(0);
    expect(r.evaluated).toBeGreaterThan(0);
    expect(r.evaluated).toBeLessThanOrEqual(r.loaded + 1); // host.js runs after it has arrived
    expect(r.baseline).toBeGreaterThan(0);
  }
});
