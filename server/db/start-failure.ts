/**
 * Why the database failed the server at start, in one sentence an operator can act on (issue 39
 * point 16): the database down, a wrong password or unknown user, a database that does not exist,
 * a server still starting, a host that does not answer. main.ts and cluster.ts write it as their
 * one `Not starting:` line (JSON in production) and exit 1: no stack trace, nothing to scroll. The
 * sentence names the host, user and database from DATABASE_URL, never the password.
 */
import { hostLabel, parseDatabaseUrl } from './hosts.ts';

export interface StartFailure {
  /** Stable, for log queries and alerts: `database_unreachable`, `database_auth_failed`, … */
  cause: string;
  sentence: string;
}

/** The first `code` on the error, its `cause` chain or an AggregateError's errors (Node's multi-address connect). */
function codeOf(err: unknown, depth = 0): { code: string; message: string } | undefined {
  if (!err || typeof err !== 'object' || depth > 5) return undefined;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') return { code: e.code, message: typeof e.message === 'string' ? e.message : '' };
  for (const inner of [e.cause, ...(Array.isArray(e.errors) ? e.errors : [])]) {
    const found = codeOf(inner, depth + 1);
    if (found) return found;
  }
  if (typeof e.message === 'string' && /timeout exceeded when trying to connect/.test(e.message)) return { code: 'CONNECT_TIMEOUT', message: e.message };
  return undefined;
}

/** Host(s), user and database named by DATABASE_URL (no password), for the sentence. */
function target(databaseUrl: string): { hosts: string; user: string; database: string } {
  try {
    const t = parseDatabaseUrl(databaseUrl);
    const u = new URL(t.connectionString);
    return { hosts: t.hosts.map(hostLabel).join(', '), user: decodeURIComponent(u.username) || '(default user)', database: decodeURIComponent(u.pathname.slice(1)) || '(default database)' };
  } catch {
    return { hosts: 'DATABASE_URL', user: '?', database: '?' };
  }
}

/** A start-up failure the database explains, or undefined (a bug: logged with its stack). */
export function describeStartFailure(err: unknown, databaseUrl: string | undefined): StartFailure | undefined {
  const found = codeOf(err);
  if (!found || !databaseUrl) return undefined;
  const { code, message } = found;
  const { hosts, user, database } = target(databaseUrl);
  if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'].includes(code) || code.startsWith('08')) {
    return { cause: 'database_unreachable', sentence: `PostgreSQL at ${hosts} cannot be reached (${code === '08001' ? message : code}): is it running, and are DATABASE_URL's host and port right?` };
  }
  if (code === 'ETIMEDOUT' || code === 'CONNECT_TIMEOUT') {
    return { cause: 'database_timeout', sentence: `PostgreSQL at ${hosts} did not answer in time: is the host up and the port open to this machine (PG_CONNECT_TIMEOUT_MS bounds the wait)?` };
  }
  if (code === '28P01' || code === '28000') {
    return { cause: 'database_auth_failed', sentence: `PostgreSQL at ${hosts} refused user "${user}" (${message}): check DATABASE_URL's user and password.` };
  }
  if (code === '3D000') {
    return { cause: 'database_missing', sentence: `PostgreSQL at ${hosts} has no database "${database}": create it (createdb ${database}) or fix DATABASE_URL's path.` };
  }
  if (code === '57P03') return { cause: 'database_starting', sentence: `PostgreSQL at ${hosts} is starting up or shutting down: start again once it accepts connections.` };
  if (code === '53300') return { cause: 'database_full', sentence: `PostgreSQL at ${hosts} has no connection slot left (too many connections): lower PG_POOL_SIZE × processes or raise max_connections.` };
  if (code === '42501') return { cause: 'database_permission', sentence: `PostgreSQL user "${user}" may not create this server's tables in "${database}" (${message}): grant it CREATE on the schema, or use the database's owner.` };
  return undefined;
}
