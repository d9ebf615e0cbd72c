// See wire.js: the declarations of ucp-storefront-client/wire, re-exported.
export * from 'ucp-storefront-client/wire';
