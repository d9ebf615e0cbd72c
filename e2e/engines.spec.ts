/**
 * The three-engine shopper flows (e2e/engines/flows.ts) in Chromium, through Playwright. Firefox
 * ESR and WebKit run the same flows through e2e/engines/run.ts (scripts/test-all.sh).
 */
import { test } from '@playwright/test';
import { FLOWS } from './engines/flows.ts';
import { playwrightDriver } from './engines/driver.ts';

for (const flow of FLOWS) {
  test(`chromium: ${flow.name}`, async ({ page, baseURL }) => {
    await flow.run(playwrightDriver(page), baseURL!);
  });
}
