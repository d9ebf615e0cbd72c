/**
 * The UCP Embedded Cart Protocol (2026-04-08), both roles, as used by host.js (docs/embedded.md):
 * - embedded: the storefront cart page at `continue_url` inside an agent's frame
 *   (`detectEmbedded` + `startEmbedded`);
 * - host: an agent / third-party page opening the shop's cart (`openCart`, exposed as `UCP.openCart`).
 */
export { detectEmbedded, startEmbedded, applyColorScheme } from './embedded.ts';
export type { EmbeddedParams, EmbeddedSession, StartOptions, CartLike, ColorScheme } from './embedded.ts';
export { openCart, EVENTS } from './host.ts';
export type { OpenCartOptions, CartHandle } from './host.ts';
