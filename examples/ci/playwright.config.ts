/**
 * Playwright settings for agent.spec.ts (docs/ci.md). Nothing here starts a server: the fixture in
 * `ucp-storefront/testing/playwright` starts one sandbox per worker. Chromium resolves *.localhost
 * itself; CHROMIUM_PATH points at a system Chromium instead of `npx playwright install chromium`.
 */
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  timeout: 60_000,
  reporter: 'list',
  use: {
    browserName: 'chromium',
    headless: true,
    ...(process.env.CHROMIUM_PATH ? { launchOptions: { executablePath: process.env.CHROMIUM_PATH, args: ['--no-sandbox'] } } : {}),
  },
});
