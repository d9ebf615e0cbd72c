/**
 * host.js entry. One script, three modes (docs/host-js.md):
 *  - widget: `<ucp-product>` / `<ucp-cart>` custom elements talking to the shop's UCP REST transport;
 *  - embedded: the same `<ucp-cart mode="page">` on the cart page, inside an agent's frame
 *    (the embedded role is a lazily loaded chunk, see ./mode.ts);
 *  - host: `UCP.openCart(...)` on an agent's page (the host role is a lazily loaded chunk, see
 *    ./open-cart.ts).
 * And on the shop's own top-level pages, a browser with WebMCP gets the shop's tools registered for
 * in-page agents (a lazily loaded chunk, see ./webmcp-gate.ts).
 * Built as an ES module (`<script type="module">`); the API is both its exports and `window.UCP`
 * (typed in ./types.ts, shipped as host.d.ts).
 */
import { UCP_VERSION } from '../wire/version.ts';
import { defaultShop, defineElements } from './elements.tsx';
import { selectMode } from './mode.ts';
import { openCart } from './open-cart.ts';
import { startWebMcp } from './webmcp-gate.ts';
import type { UcpGlobal } from './types.ts';

try {
  performance.mark('ucp:host:start');
} catch {}

defineElements();
startWebMcp(defaultShop());

export { openCart };
export const version = UCP_VERSION;
/** How this page runs host.js before any `openCart` call: `embedded` or `widget`. */
export const mode = selectMode(location);

const w = window as unknown as { UCP?: object };
w.UCP ??= { openCart, version, mode } satisfies UcpGlobal;
