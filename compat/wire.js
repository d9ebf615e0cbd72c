// `ucp-storefront/wire`: the wire schemas now live in ucp-storefront-client/wire (see client.js).
export * from 'ucp-storefront-client/wire';
