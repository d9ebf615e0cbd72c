/**
 * Time from host.js load to an interactive widget, from performance marks (docs/benchmarks.md):
 *   loaded→interactive: host.js responseEnd (Resource Timing) → `ucp:product:interactive`
 *   eval→interactive:   `ucp:host:start` (first statement of host.js) → `ucp:product:interactive`
 * The product widget is interactive once its product is fetched and rendered (includes one
 * POST /catalog/product round trip). Target ≤ 100 ms on localhost.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';

test('host.js: script load → interactive product widget', async ({ page }) => {
  const runs: Array<{ loaded: number; evaluated: number; fetch: number }> = [];
  for (let i = 0; i < 7; i++) {
    await page.goto('/products/engraved-flask');
    await expect(page.locator('ucp-product').getByRole('button', { name: 'Add to cart' })).toBeVisible();
    await page.waitForFunction(() => performance.getEntriesByName('ucp:product:interactive').length > 0);
    runs.push(
      await page.evaluate(() => {
        const ready = performance.getEntriesByName('ucp:product:interactive')[0].startTime;
        const start = performance.getEntriesByName('ucp:host:start')[0].startTime;
        const res = performance.getEntriesByType('resource').find((e) => /\/ucp\/host[.\w]*\.js$/.test(e.name)) as PerformanceResourceTiming;
        return { loaded: ready - res.responseEnd, evaluated: ready - start, fetch: res.responseEnd - res.startTime };
      }),
    );
  }
  const warm = runs.slice(2); // the first loads warm the server and the HTTP cache
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const result = {
    runs: warm.length,
    loaded_to_interactive_ms: Math.round(median(warm.map((r) => r.loaded))),
    eval_to_interactive_ms: Math.round(median(warm.map((r) => r.evaluated))),
    script_fetch_ms: Math.round(median(warm.map((r) => r.fetch))),
  };
  console.log('host.js perf', JSON.stringify(result));
  mkdirSync('.tmp', { recursive: true });
  writeFileSync('.tmp/perf-host.json', JSON.stringify(result, null, 2));
  // Target is 100 ms; the assertion leaves headroom for loaded CI machines.
  expect(result.loaded_to_interactive_ms).toBeLessThan(300);
});
