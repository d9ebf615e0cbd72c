/** `ucp-storefront/wire`: the zod/mini wire schemas and limits, for agent builders who validate what they send or receive. */
export * from './common.ts';
export * from './catalog.ts';
export * from './cart.ts';
export { PlatformProfile } from './platform-profile.ts';
