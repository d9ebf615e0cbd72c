/**
 * `ucp-storefront/testing/playwright`: Playwright fixtures over `startSandbox` (docs/ci.md).
 *
 *   import { test, expect } from 'ucp-storefront/testing/playwright';
 *   test('an agent builds a cart', async ({ shop, sandbox, page }) => { … shop.url … });
 *
 * - `sandbox` (one per worker): a server of the worker's own, started once and stopped when the
 *   worker ends, so no worker's reset or carts reach another; or, with the `sandboxUrl` option, a
 *   server you already run (a `webServer`), shared.
 * - `shop` (one per test, the default `isolation: 'shop'`): a fresh copy of the demo shop under its
 *   own `*.localhost` domain (`POST /dev/shops/shop_demo/clone`, about half a second), and `baseURL`
 *   is its origin. Why per test by default: tests in one worker run one after another on one server,
 *   and a test that leaves a cart, spends stock or resets the shop would otherwise change what the
 *   next one sees; a fresh shop costs less than a reset and never races a test in another worker
 *   when the server is shared. The shop is deleted after a test that passed (one that failed keeps
 *   it, for the request inspector, until the server deletes idle clones). `isolation: 'worker'`
 *   gives every test the demo shop itself (`demo.localhost`), shared within the worker: faster,
 *   for suites that only read.
 */
import { test as base } from '@playwright/test';
import { connectSandbox, startSandbox, type Sandbox, type SandboxOptions, type SandboxShop } from './sandbox.ts';

export interface SandboxTestOptions {
  /** `'shop'` (default): a fresh demo shop per test; `'worker'`: the worker's demo shop, shared. */
  isolation: 'shop' | 'worker';
}

export interface SandboxWorkerOptions {
  /** Options for each worker's `startSandbox`. */
  sandboxOptions: SandboxOptions;
  /** A running server's address (`http://localhost:8080`) to use instead of starting one per worker. */
  sandboxUrl: string | undefined;
  /**
   * Each worker's own ports: `{ first: 9000, perWorker: 10 }` gives the worker whose
   * `parallelIndex` is i the range `[9000 + 10i, 9009 + 10i]` (startSandbox's `portRange`), so
   * workers never probe each other's ports. Default: any free port.
   */
  workerPorts: { first: number; perWorker: number } | undefined;
}

/** Worker `index`'s ports under the `workerPorts` option (`[first, last]`, inclusive). */
export function workerPortRange({ first, perWorker }: { first: number; perWorker: number }, index: number): [number, number] {
  if (!(Number.isInteger(first) && Number.isInteger(perWorker) && first > 0 && perWorker > 0)) {
    throw new TypeError(`workerPorts must be {first, perWorker} positive integers, not ${JSON.stringify({ first, perWorker })}.`);
  }
  return [first + index * perWorker, first + (index + 1) * perWorker - 1];
}

export const test = base.extend<SandboxTestOptions & { shop: SandboxShop }, SandboxWorkerOptions & { sandbox: Sandbox }>({
  sandboxOptions: [{}, { scope: 'worker', option: true }],
  sandboxUrl: [undefined, { scope: 'worker', option: true }],
  workerPorts: [undefined, { scope: 'worker', option: true }],
  sandbox: [
    async ({ sandboxOptions, sandboxUrl, workerPorts }, use, workerInfo) => {
      const options = workerPorts ? { ...sandboxOptions, portRange: workerPortRange(workerPorts, workerInfo.parallelIndex) } : sandboxOptions;
      const sandbox = sandboxUrl ? connectSandbox(sandboxUrl) : await startSandbox(options);
      try {
        await use(sandbox);
      } finally {
        await sandbox.stop();
      }
    },
    // Start-up (tsx loading the server) is slower than a test's default timeout.
    { scope: 'worker', timeout: 180_000 },
  ],
  isolation: ['shop', { option: true }],
  shop: async ({ sandbox, isolation }, use, testInfo) => {
    if (isolation !== 'shop') return use({ id: 'shop_demo', domain: 'demo.localhost', url: sandbox.shopUrl('demo.localhost') });
    const shop = await sandbox.newShop();
    await use(shop);
    // A passed test's shop goes at once (a shared server holds at most UCP_MAX_CLONES); a failed
    // test's stays for its exchanges in the request inspector, until the server's idle sweep.
    if (testInfo.status === testInfo.expectedStatus) await sandbox.deleteShop(shop.id);
  },
  baseURL: async ({ shop }, use) => use(shop.url),
});

export { expect } from '@playwright/test';
export type { Sandbox, SandboxOptions, SandboxShop } from './sandbox.ts';
