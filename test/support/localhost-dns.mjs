/**
 * Resolves `*.localhost` to the loopback address inside one Node process (RFC 6761 says such names
 * are loopback, but Node's resolver, getaddrinfo without systemd-resolved, does not know them).
 *
 * Used two ways:
 * - `node --import ./test/support/localhost-dns.mjs …` (via NODE_OPTIONS) in a child process, e.g.
 *   the @shopify/ucp-cli runs in test/mcp-cli.test.ts, so `https://demo.localhost:PORT` is reachable
 *   exactly as written in the discovery profile;
 * - `import './support/localhost-dns.mjs'` in a test process that wants plain `fetch` to reach a
 *   storefront by its own name (the SDK Client test).
 *
 * Only `dns.lookup` (what `net.connect`, and so undici's fetch, call) is patched, and only for names
 * ending in `.localhost`; everything else goes to the real resolver. Test support only.
 */
import dns from 'node:dns';

const LOCAL = /(^|\.)localhost\.?$/i;
const original = dns.lookup;

if (!original.__localhostShim) {
  const patched = function lookup(hostname, options, callback) {
    if (typeof options === 'function') {
      callback = options;
      options = {};
    } else if (typeof options === 'number') {
      options = { family: options };
    }
    if (typeof hostname === 'string' && LOCAL.test(hostname)) {
      const family = options?.family === 6 ? 6 : 4;
      const address = family === 6 ? '::1' : '127.0.0.1';
      process.nextTick(() => {
        if (options?.all) callback(null, [{ address, family }]);
        else callback(null, address, family);
      });
      return {};
    }
    return original.call(dns, hostname, options, callback);
  };
  patched.__localhostShim = true;
  dns.lookup = patched;
  const promiseLookup = dns.promises.lookup;
  dns.promises.lookup = async (hostname, options) => {
    if (typeof hostname === 'string' && LOCAL.test(hostname)) {
      const family = (typeof options === 'number' ? options : options?.family) === 6 ? 6 : 4;
      const address = family === 6 ? '::1' : '127.0.0.1';
      return options?.all ? [{ address, family }] : { address, family };
    }
    return promiseLookup.call(dns.promises, hostname, options);
  };
}
