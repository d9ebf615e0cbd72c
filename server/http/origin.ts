/**
 * Who is a request for? The public origin and host name, from `Host` (or `X-Forwarded-Host` and
 * `X-Forwarded-Proto` when the server is configured to trust a proxy). One function, used by the
 * app's first middleware and by the discovery fast path, so both read a request the same way.
 */
import { isIP } from 'node:net';
import type { Config } from '../config.ts';

/** A DNS name or IPv4 address, or a bracketed IPv6 literal (`[::1]`), with an optional port. */
const HOST_RE = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * A Host the WHATWG URL parser takes: `a.1` and `1.2.3.4.5` match HOST_RE but end in a number, so
 * the parser reads them as IPv4 and throws, and every `new URL(c.req.url)` after it would too (a 500
 * where the client sent a bad Host: issue 39 point 4). The raw Host is checked as well as a
 * forwarded one, since the request's URL is built from the raw one.
 */
function parsesAsUrlHost(host: string): boolean {
  if (!HOST_RE.test(host)) return false;
  try {
    new URL(`http://${host}/`);
    return true;
  } catch {
    return false;
  }
}

export interface RequestOrigin {
  /** e.g. `http://demo.localhost:8080` */
  origin: string;
  /** Lower case, without the port. */
  hostname: string;
}

/** Null when the (forwarded) Host is malformed: answer 400, never guess. */
export function requestOrigin(header: (name: string) => string | undefined, config: Pick<Config, 'trustProxy' | 'host' | 'port'>): RequestOrigin | null {
  const fwdHost = config.trustProxy ? header('x-forwarded-host')?.split(',')[0].trim() : undefined;
  const fwdProto = config.trustProxy ? header('x-forwarded-proto')?.split(',')[0].trim() : undefined;
  const raw = header('host');
  const host = fwdHost || raw || `${config.host}:${config.port}`;
  if (!parsesAsUrlHost(host) || (raw !== undefined && raw !== host && !parsesAsUrlHost(raw))) return null;
  const lower = host.toLowerCase();
  return { origin: `${fwdProto === 'https' ? 'https' : 'http'}://${lower}`, hostname: lower.replace(/:\d+$/, '') };
}

/** Loopback names a development server's platform answers on, with any port (Vite's and webpack's dev servers do the same). */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * May the platform (account service, admin, merchant API, /metrics, /dev) answer a request whose
 * Host names no shop? Only on the hosts it is configured for (issue 39 point 2, DNS rebinding: a page
 * on `rebind.attacker.example`, re-pointed at 127.0.0.1, sends its own name as Host, and the
 * development routes' same-origin check compared Origin with an origin built from that Host):
 * - the loopback names (`localhost`, `127.0.0.1`, `[::1]`), any port;
 * - any IP address literal: a rebinding page's Host is always its own DNS name, never an address
 *   (Vite allows all IP addresses by default for that reason); Prometheus scrapes a pod by address;
 * - AUTH_URL's host (production's public name for the platform) and PLATFORM_HOSTS.
 * `hostname` is lower case without the port (requestOrigin).
 */
export function platformHostAllowed(hostname: string, config: Pick<Config, 'authUrl' | 'platformHosts'>): boolean {
  if (LOOPBACK_NAMES.has(hostname)) return true;
  if (isIP(hostname.replace(/^\[(.*)\]$/, '$1'))) return true;
  if (config.authUrl !== undefined && hostOf(config.authUrl) === hostname) return true;
  return config.platformHosts?.includes(hostname) ?? false;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Which page a browser says sent a request, judged against this server's own origins:
 * - `foreign`: another origin (`Sec-Fetch-Site` other than same-origin, or an `Origin`/`Referer`
 *   naming another host or a scheme that is not http(s));
 * - `opaque`: `Origin: null` or a value naming no origin (sandboxed frames, some cross-origin
 *   redirects), where a browser hides where it comes from;
 * - `same`: a page of one of `own`;
 * - `unnamed`: nothing said: not a browser's page (curl, scripts, servers) or a navigation typed in.
 * Hosts are compared, not schemes: behind a proxy that ends TLS the page is https while the origin
 * this server builds may say http. One rule for the development routes, the checkout handoff page
 * and the account service's forms; each decides what it accepts.
 */
export type Provenance = 'same' | 'foreign' | 'opaque' | 'unnamed';

export function provenance(req: { header(name: string): string | undefined }, own: readonly string[], opts: { referer?: boolean } = {}): Provenance {
  const site = req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return 'foreign';
  const from = req.header('origin') ?? (opts.referer ? req.header('referer') : undefined);
  if (from === undefined) return 'unnamed';
  let url: URL;
  try {
    url = new URL(from);
  } catch {
    return 'opaque'; // `null`, and anything else that names no origin
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'foreign';
  return own.some((o) => new URL(o).host === url.host) ? 'same' : 'foreign';
}
