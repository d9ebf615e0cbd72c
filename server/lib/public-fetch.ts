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

/**
 * Not the public internet: the IANA special-purpose registries (RFC 6890 and successors; IPv4 and
 * IPv6, rechecked for issue 47) — every block not "globally reachable" — plus multicast and the
 * deprecated IPv6 site-local range. A few blocks the registry calls globally reachable are refused
 * too, being inside wider ones that are not (192.0.0.0/24's anycast addresses, 2001::/23's); a
 * profile or webhook has no business on them. test/public-fetch.test.ts lists each block.
 */
const special = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments (DS-Lite, NAT64 discovery, …)
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
] as const) special.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  // ::/96 holds the unspecified address, loopback and the deprecated IPv4-compatible ::a.b.c.d
  // (RFC 4291 2.5.5.1), which some stacks still route to the IPv4 address: ::7f00:1 is 127.0.0.1.
  ['::', 96],
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT, RFC 2765): ::ffff:0:a.b.c.d
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation (RFC 8215)
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy IPv6 prefix (RFC 9780)
  ['2001::', 23], // IETF protocol assignments (Teredo, benchmarking 2001:2::/48, ORCHID, …)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: carries any IPv4 address, private ones included
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // segment routing SIDs (RFC 9602)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, RFC 3879; still routed by some stacks)
  ['ff00::', 8], // multicast
] as const) special.addSubnet(net, prefix, 'ipv6');

/**
 * The IPv4 address an IPv6 address carries: IPv4-mapped ::ffff:0:0/96 (RFC 4291) and the well-known
 * NAT64 prefix 64:ff9b::/96 (RFC 6052: a DNS64 resolver's answer for an IPv4-only name); else null.
 * The WHATWG URL parser writes the address in its canonical form (RFC 5952: hex, `::` for the
 * longest zero run), whatever notation it came in (`::ffff:127.0.0.1`, `0:0:0:0:0:ffff:7f00:1`).
 */
function embeddedIpv4(address: string): string | null {
  const canonical = new URL(`http://[${address}]/`).hostname;
  const m = /^\[(?:::ffff:|64:ff9b::)(?:([0-9a-f]{1,4}):)?([0-9a-f]{1,4})?\]$/.exec(canonical);
  if (!m || (canonical.startsWith('[::ffff:') && m[1] === undefined)) return null;
  const n = ((parseInt(m[1] ?? '0', 16) << 16) | parseInt(m[2] ?? '0', 16)) >>> 0;
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** 2000::/3, the only IPv6 space IANA has allocated as global unicast; the rest is reserved, local or multicast. */
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');

/**
 * Is this address on the public internet? IPv4-mapped and NAT64 IPv6 addresses are judged as the
 * IPv4 address they carry; other IPv6 addresses must be global unicast and in no special block.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !special.check(address, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIpv4(address);
  if (v4 !== null) return isPublicAddress(v4);
  return globalUnicast.check(address, 'ipv6') && !special.check(address, 'ipv6');
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
