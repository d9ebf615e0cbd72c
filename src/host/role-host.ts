/**
 * The host role as loaded by host.js: its own lazily loaded chunk (`host-role-host-<hash>.js`),
 * imported on the first `UCP.openCart()` call (src/host/open-cart.ts). See docs/embedded.md "Host role".
 */
export { openCart } from '../embedded/host.ts';
