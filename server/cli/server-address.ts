/**
 * Where the commands find the running server (docs/cli.md): `--server URL` when given; else, with
 * the embedded database, the address the server holding DATA_DIR wrote into its lock
 * (server/db/data-dir-lock.ts); else `http://127.0.0.1:PORT` (PORT from the environment, 8080).
 * `known` says whether the address came from a running server rather than a default.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig, localUrl, type Config } from '../config.ts';
import { lockOwner, type LockOwner } from '../db/data-dir-lock.ts';
import { UsageError, type Io } from './cli.ts';

export interface ServerAddress {
  url: string;
  /** How the address was chosen, for error messages. */
  source: 'option' | 'lock' | 'default';
}

export function serverAddress(env: NodeJS.ProcessEnv, option?: string): ServerAddress {
  if (option !== undefined) {
    let u: URL;
    try {
      u = new URL(option);
    } catch {
      throw new UsageError(`--server must be a URL such as http://127.0.0.1:8080; got '${option}'`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`--server must be an http(s) URL; got '${option}'`);
    return { url: u.origin, source: 'option' };
  }
  const config = loadConfig(env);
  const owner = config.databaseUrl ? null : lockOwner(config.dataDir);
  if (owner?.url) return { url: owner.url, source: 'lock' };
  return { url: localUrl(config.host, config.port), source: 'default' };
}

/** The words for "the address tried", for a message that says why nothing answered. */
export function describeAddress(a: ServerAddress): string {
  if (a.source === 'option') return a.url;
  if (a.source === 'lock') return `${a.url} (recorded by the server holding DATA_DIR)`;
  return `${a.url} (from HOST and PORT; pass --server URL for another)`;
}

/** How long a command waits for a server that holds DATA_DIR and is still starting (migrations, demo data, a first index). */
export const STARTING_WAIT_MS = 60_000;

/**
 * The process holding the embedded database, for a command that hands its work to a running server
 * (import, feeds): a server that is still starting — its lock says so until it listens
 * (server/db/data-dir-lock.ts) — is waited for, with one line on stderr, until it records its
 * address, stops, or `waitMs` passes. Null with PostgreSQL or when nothing holds the directory; an
 * owner without `url` is not a listening server (a command, or a server that did not come up in time).
 */
export async function runningServer(config: Pick<Config, 'databaseUrl' | 'dataDir'>, io: Pick<Io, 'err'>, opts: { waitMs?: number; pollMs?: number } = {}): Promise<LockOwner | null> {
  if (config.databaseUrl) return null;
  let owner = lockOwner(config.dataDir);
  if (!owner?.starting) return owner;
  io.err(`The server holding ${config.dataDir} (process ${owner.pid}) is starting; waiting for it to listen…`);
  const deadline = Date.now() + (opts.waitMs ?? STARTING_WAIT_MS);
  while (owner?.starting && Date.now() < deadline) {
    await sleep(opts.pollMs ?? 200);
    owner = lockOwner(config.dataDir);
  }
  return owner;
}
