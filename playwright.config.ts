/**
 * Browser tests against the real server (scripts/e2e-server.sh, port 8391, fresh database) with
 * Debian's Chromium. Storefront pages are on demo.localhost, the demo agent on agent.localhost:
 * Chromium resolves *.localhost to loopback itself.
 */
import { defineConfig } from '@playwright/test';

// E2E_PORT lets two checkouts on one machine run their browser suites side by side.
export const PORT = Number(process.env.E2E_PORT ?? 8391);
/** The MCP Apps test host (e2e/apps-host/serve.ts): the official AppBridge in a host page, and its sandbox proxy. */
export const APPS_HOST_PORT = PORT + 2;
/** The server's fresh database, one per port: two suites side by side in one checkout must not share it. */
export const DATA_DIR = `.tmp/e2e-db-${PORT}`;

export default defineConfig({
  testDir: 'e2e',
  timeout: 30_000,
  expect: { timeout: 7_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: 'list',
  use: {
    baseURL: `http://demo.localhost:${PORT}`,
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
    trace: 'off',
  },
  webServer: [
    {
      command: 'bash scripts/e2e-server.sh',
      port: PORT,
      env: { PORT: String(PORT), DATA_DIR },
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: `npx tsx e2e/apps-host/serve.ts ${APPS_HOST_PORT}`,
      port: APPS_HOST_PORT,
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
});
