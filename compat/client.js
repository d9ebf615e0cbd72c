// `ucp-storefront/client` (and the package root): the agent client now lives in its own package,
// ucp-storefront-client, a dependency of this one. This keeps existing imports working; a project
// that needs only the client installs `ucp-storefront-client` alone (docs/packaging.md).
export * from 'ucp-storefront-client';
