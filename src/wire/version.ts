/**
 * The one place that names the UCP revision this project speaks. Zod-free, so host.js can import it
 * without the schemas; src/wire/common.ts, server/version.ts and host.js re-export it from here.
 */
export const UCP_VERSION = '2026-04-08';
