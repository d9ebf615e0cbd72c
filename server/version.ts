/**
 * The one place that names versions. Everything that reports or routes on a version imports it from here.
 *
 * - `API_VERSION`: the merchant API's full semantic version (major.minor.patch). GraphQL's
 *   `query { apiVersion }` answers with exactly this string.
 * - `API_PATH_VERSION`: its major.minor, the form used in URL paths (`/graphql/3.0`).
 * - `GRAPHQL_VERSIONS`: the path versions `/graphql/<version>` accepts. Only these exact strings are
 *   served; anything else (including the full `3.0.0`) is a 404 with a GraphQL `errors` body. A new
 *   minor version is added here and nowhere else.
 * - `PACKAGE_VERSION`: this package's version from package.json (MCP `serverInfo.version`).
 * - `UCP_VERSION`, `UCP_LATEST`, `UCP_VERSIONS`: the Universal Commerce Protocol revisions the storefront
 *   speaks, defined once in src/wire/version.ts (shared with the browser bundle and the client) and
 *   re-exported here: the server imports them from this module only (test/versions.test.ts).
 */
export { UCP_LATEST, UCP_VERSION, UCP_VERSIONS, type UcpVersion } from '../src/wire/version.ts';
import { createRequire } from 'node:module';

/** This package's own version (package.json): MCP `serverInfo.version`, the OpenAPI documents' `info.version`. */
export const PACKAGE_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

export const API_VERSION = '3.0.0';

/** MCP revisions of the 2026-07-28 era this server speaks (server/discover `supportedVersions`; server/mcp/eras.ts). */
export const MCP_MODERN_VERSIONS = ['2026-07-28'] as const;
/** MCP revisions of the 2025 handshake served through `initialize` (the SDK's list holds older ones too, still answered). */
export const MCP_LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

/** major.minor of {@link API_VERSION}. */
export const API_PATH_VERSION = API_VERSION.split('.').slice(0, 2).join('.');

/** Path versions served at `/graphql/<version>`, newest last. */
export const GRAPHQL_VERSIONS = ['3.0'] as const;

export type GraphQLVersion = (typeof GRAPHQL_VERSIONS)[number];

export function isGraphQLVersion(v: string): v is GraphQLVersion {
  return (GRAPHQL_VERSIONS as readonly string[]).includes(v);
}
