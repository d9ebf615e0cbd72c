/**
 * Where the commands find the running server (docs/cli.md): `--server URL` when given; else, with
 * the embedded database, the address the server holding DATA_DIR wrote into its lock
 * (server/db/data-dir-lock.ts); else `http://127.0.0.1:PORT` (PORT from the environment, 8080).
 * `known` says whether the address came from a running server rather than a default.
 */
import { loadConfig, localUrl } from '../config.ts';
import { lockOwner } from '../db/data-dir-lock.ts';
import { UsageError } from './cli.ts';

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
