/**
 * The fixture's `workerPorts` option (src/testing/playwright.ts): each Playwright worker starts its
 * own sandbox server on a port of its own range, `[first + perWorker × i, first + perWorker × (i + 1) − 1]`
 * for the worker whose parallelIndex is i, so workers never probe each other's ports. A real
 * server per worker, as a builder's suite runs it (docs/sandbox.md "Playwright").
 */
import { localhostFetch as fetch } from '../src/client/index.ts';
import { expect, test } from '../src/testing/playwright.ts';
import { PORT } from '../playwright.config.ts';

const FIRST = PORT + 200;
const PER_WORKER = 5;
test.use({ workerPorts: { first: FIRST, perWorker: PER_WORKER } });

test('a worker\'s sandbox listens on a port of that worker\'s own range, and serves its shops', async ({ sandbox, shop }) => {
  const i = test.info().parallelIndex;
  expect(sandbox.port).toBeGreaterThanOrEqual(FIRST + PER_WORKER * i);
  expect(sandbox.port).toBeLessThanOrEqual(FIRST + PER_WORKER * (i + 1) - 1);
  expect(new URL(sandbox.url).port).toBe(String(sandbox.port));
  const search = await fetch(`${shop.url}/api/ucp/catalog/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'tee' }) });
  expect(search.status).toBe(200);
});
