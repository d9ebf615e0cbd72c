/**
 * fetch for URLs that outsiders choose (agents' profile URLs, merchants' webhook endpoints): it
 * connects only to public internet addresses. Checking the URL's host name is not enough — a name
 * can resolve to 10.0.0.5 or to the cloud metadata address 169.254.169.254, or resolve to a public
 * address when checked and a private one when connected (DNS rebinding). So the check sits in the
 * DNS lookup of the connection itself (undici's Agent, `connect.lookup`): the address checked is
 * the address connected to, for the first request and for every redirect. Address literals in the
 * URL (which skip the lookup) are checked before the request.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';

/** Not the public internet: IANA special-purpose ranges (RFC 6890 and successors). */
const special = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) special.addSubnet(net, prefix, 'ipv4');
// ::/96 holds the unspecified address, loopback and the deprecated IPv4-compatible ::a.b.c.d
// (RFC 4291 2.5.5.1), which some stacks still route to the IPv4 address: ::7f00:1 is 127.0.0.1.
for (const [net, prefix] of [
  ['::', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32],
  ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) special.addSubnet(net, prefix, 'ipv6');

/** Is this address on the public internet? (IPv4-mapped IPv6 is judged as the IPv4 it carries.) */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]);
  const family = isIP(address);
  if (family === 4) return !special.check(address, 'ipv4');
  if (family === 6) return !special.check(address, 'ipv6');
  return false;
}

export class NonPublicAddressError extends Error {
  readonly code = 'ENONPUBLIC';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, which is not a public internet address`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup that fails when any address of the name is not public (no mixed answers either). */
export function publicLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) return callback(new NonPublicAddressError(hostname, bad.address), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

const agent = new Agent({ connect: { lookup: publicLookup as never } });

/** `fetch` that refuses (TypeError, cause NonPublicAddressError) to reach a non-public address. */
export const publicFetch: typeof globalThis.fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !isPublicAddress(host)) {
    throw new TypeError('fetch failed', { cause: new NonPublicAddressError(host, host) });
  }
  return (await undiciFetch(url, { ...(init as object), dispatcher: agent } as never)) as unknown as Response;
};
