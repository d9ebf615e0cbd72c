// See client.js: the declarations of ucp-storefront-client, re-exported.
export * from 'ucp-storefront-client';
