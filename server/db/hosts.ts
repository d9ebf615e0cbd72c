/**
 * DATABASE_URL with several hosts, as libpq reads it: `postgres://u:p@h1:5432,h2:5433/ucp?
 * target_session_attrs=read-write`. node-postgres takes one host only, so the list and the
 * session attribute are taken out here and handed to the connect step (failover.ts); everything
 * else (user, password, database, ssl, options) stays in a one-host URL that node-postgres parses
 * as before. A URL it cannot make sense of is a ConfigError: the server refuses to start with a
 * message naming the fault, never the password.
 */
import { ConfigError } from '../config.ts';

export interface HostPort {
  host: string;
  port: number;
}

/**
 * libpq's target_session_attrs, the values a server that writes can use: `any` (the first host
 * that accepts a connection), `read-write` (not in recovery and not read-only by default),
 * `primary` (not in recovery). libpq's `read-only`, `standby` and `prefer-standby` pick a host
 * this server could not write to: refused.
 */
export type SessionAttrs = 'any' | 'read-write' | 'primary';

export interface DatabaseTarget {
  hosts: HostPort[];
  sessionAttrs: SessionAttrs;
  /** The URL with the first host only and without target_session_attrs: for node-postgres. */
  connectionString: string;
  /** libpq's connect_timeout (seconds, per host attempt) in milliseconds, when the URL sets one. */
  connectTimeoutMs?: number;
}

const DEFAULT_PORT = 5432;
const ATTRS: readonly string[] = ['any', 'read-write', 'primary'];
const READ_ONLY_ATTRS: readonly string[] = ['read-only', 'standby', 'prefer-standby'];

const fail = (what: string): never => {
  throw new ConfigError(`DATABASE_URL: ${what}. Expected postgres://USER:PASSWORD@HOST[:PORT][,HOST[:PORT]...]/DATABASE[?target_session_attrs=read-write].`);
};

function parsePort(text: string, host: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) fail(`the port of ${host} is "${text}", not a number from 1 to 65535`);
  return port;
}

/** `name`, `name:port`, `[v6]`, `[v6]:port`; `%2F…` is a unix socket directory (as node-postgres reads it). */
function parseHost(text: string, index: number): HostPort {
  if (!text) fail(`host ${index + 1} of the list is empty`);
  const v6 = /^\[([0-9a-fA-F:.]+)\](?::(.*))?$/.exec(text);
  if (v6) return { host: v6[1], port: v6[2] === undefined ? DEFAULT_PORT : parsePort(v6[2], `[${v6[1]}]`) };
  if (text.startsWith('[')) fail(`host "${text}" is not a bracketed IPv6 address`);
  const colon = text.lastIndexOf(':');
  const name = colon < 0 ? text : text.slice(0, colon);
  if (!name) fail(`host ${index + 1} of the list has a port but no name`);
  let host: string;
  try {
    host = decodeURIComponent(name);
  } catch {
    return fail(`host "${name}" is not valid percent-encoding`);
  }
  if (!/^[\w.-]+$/.test(host) && !host.startsWith('/')) fail(`host "${host}" is not a host name, an IP address or a socket directory`);
  return { host, port: colon < 0 ? DEFAULT_PORT : parsePort(text.slice(colon + 1), name) };
}

/** Reads DATABASE_URL; throws ConfigError naming what is wrong. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  const m = /^(postgres(?:ql)?):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/.exec(url.trim());
  if (!m) return fail('not a postgres:// or postgresql:// URL');
  const [, scheme, authority, path, query = '', fragment] = m;
  if (fragment) fail('a URL fragment (#…) means nothing here');
  // Credentials end at the last @ (a password's own @ must be written %40, but be lenient).
  const at = authority.lastIndexOf('@');
  const userinfo = at < 0 ? '' : authority.slice(0, at + 1);
  const list = authority.slice(at + 1);
  const params = new URLSearchParams(query.slice(1));
  if (params.get('host')?.includes(',') || params.get('port')?.includes(',')) fail('list several hosts in the URL itself (h1:5432,h2:5433), not in host= or port= parameters');
  const hosts = list === '' ? [] : list.split(',').map(parseHost);
  const attrs = params.get('target_session_attrs') ?? 'any';
  if (READ_ONLY_ATTRS.includes(attrs)) fail(`target_session_attrs=${attrs} would pick a server this storefront cannot write to; use read-write, primary or any`);
  if (!ATTRS.includes(attrs)) fail(`target_session_attrs=${attrs} is not one of any, read-write, primary`);
  const timeout = params.get('connect_timeout');
  if (timeout !== null && !/^\d+$/.test(timeout)) fail(`connect_timeout=${timeout} is not a whole number of seconds`);
  // node-postgres ignores connect_timeout: failover.ts applies it per host. Other parameters stay as written.
  const ours = params.has('target_session_attrs') || params.has('connect_timeout');
  params.delete('target_session_attrs');
  params.delete('connect_timeout');
  const rest = ours ? params.toString() : query.slice(1);
  // A host list of one is kept as written (node-postgres reads it the same as before).
  const first = hosts.length > 1 ? (hosts[0].host.includes(':') ? `[${hosts[0].host}]:${hosts[0].port}` : list.split(',')[0]) : list;
  return {
    hosts,
    sessionAttrs: attrs as SessionAttrs,
    connectionString: `${scheme}://${userinfo}${first}${path}${rest ? `?${rest}` : ''}`,
    connectTimeoutMs: timeout === null || timeout === '0' ? undefined : Number(timeout) * 1000,
  };
}

/** `host:port` for messages (a socket directory as its path). */
export const hostLabel = (h: HostPort) => (h.host.startsWith('/') ? `${h.host}/.s.PGSQL.${h.port}` : h.host.includes(':') ? `[${h.host}]:${h.port}` : `${h.host}:${h.port}`);
