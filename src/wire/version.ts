/**
 * The one place that names the UCP revisions this project speaks. Zod-free, so host.js can import it
 * without the schemas; src/wire/common.ts, server/version.ts and host.js re-export it from here.
 *
 * `UCP_VERSION` is the seed's revision: what every caller that names no platform profile gets
 * (anonymous REST, host.js, the embedded cart), unchanged. `UCP_VERSIONS` are all the revisions a
 * shop serves, oldest first; `UCP_LATEST` is the one `/.well-known/ucp` describes (issue 37,
 * docs/ucp.md "Versions"). What differs between them is listed in server/ucp/versions.ts.
 */
export const UCP_VERSION = '2026-04-08';
export const UCP_LATEST = '2026-08-25';
export const UCP_VERSIONS = [UCP_VERSION, UCP_LATEST] as const;
export type UcpVersion = (typeof UCP_VERSIONS)[number];
