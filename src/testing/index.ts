/**
 * `ucp-storefront/testing`: a sandbox server for your own tests and CI (docs/ci.md). The Playwright
 * fixture is `ucp-storefront/testing/playwright`.
 */
export { connectSandbox, startSandbox, type Sandbox, type SandboxOptions, type SandboxShop } from './sandbox.ts';
