/**
 * The protocol version host.js speaks. A copy of src/wire/version.ts on purpose: a module shared by
 * the entry and a lazy chunk becomes a chunk of its own, one more request on every page view, so
 * each bundle part keeps its own literal; test/versions.test.ts holds every copy to the one source.
 */
export const UCP_VERSION = '2026-04-08';
