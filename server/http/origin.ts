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
