/**
 * Who is a request for? The public origin and host name, from `Host` (or `X-Forwarded-Host` and
 * `X-Forwarded-Proto` when the server is configured to trust a proxy). One function, used by the
 * app's first middleware and by the discovery fast path, so both read a request the same way.
 */
import type { Config } from '../config.ts';

const HOST_RE = /^[a-z0-9.-]+(?::\d{1,5})?$/i;

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
  const host = fwdHost || header('host') || `${config.host}:${config.port}`;
  if (!HOST_RE.test(host)) return null;
  const lower = host.toLowerCase();
  return { origin: `${fwdProto === 'https' ? 'https' : 'http'}://${lower}`, hostname: lower.replace(/:\d+$/, '') };
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
