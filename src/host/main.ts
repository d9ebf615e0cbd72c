/**
 * host.js entry. One script, three modes (docs/host-js.md):
 *  - widget: `<ucp-product>` / `<ucp-cart>` custom elements talking to the shop's UCP REST transport;
 *  - embedded: the same `<ucp-cart mode="page">` on the cart page, inside an agent's frame;
 *  - host: `UCP.openCart(...)` on an agent's page (the embedded-protocol module's implementation).
 * Built as an IIFE whose exports become `window.UCP`.
 */
import { openCart } from '../embedded/index.ts';
import { UCP_VERSION } from './version.ts';
import { defineElements } from './elements.tsx';
import { selectMode } from './mode.ts';

try {
  performance.mark('ucp:host:start');
} catch {}

defineElements();

export { openCart };
export const version = UCP_VERSION;
/** How this page runs host.js before any `openCart` call: `embedded` or `widget`. */
export const mode = selectMode(location);
