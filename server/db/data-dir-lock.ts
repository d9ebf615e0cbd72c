/**
 * One process per embedded data directory. PGlite is PostgreSQL in this process's memory with no
 * multi-process locking of its own: a second process opening the same directory (a CLI next to a
 * running server, a second `npm start`) would write under the first one's caches and corrupt it.
 * So opening takes `DATA_DIR/ucp.lock` (created exclusively, holding the owner's pid) and closing
 * removes it. A lock whose process is gone (killed, crashed) is taken over.
 *
 * A server also writes its address on the lock's second line once it listens (`recordAddress`), so
 * a command refused the directory can name the running server's real address in its advice
 * (`lockOwner`), whatever port it was started on. Until then a server's lock says `starting` there,
 * so a command run right after `start` waits for the address instead of calling the directory busy
 * (server/cli/server-address.ts `runningServer`); a command's own lock has only the pid.
 */
import { chmodSync, closeSync, openSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid} (a running server?). Stop it first; ` +
        'while it runs, use the admin page (/admin) or the merchant API, or run PostgreSQL (DATABASE_URL) to share a database between processes.',
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** The pid on a lock file's first line (NaN when there is none). */
const ownerPid = (text: string) => Number(text.split('\n', 1)[0].trim());

/** Lock files this process holds. */
const held = new Set<string>();

/** The lock's second line while a server has not recorded its address yet. */
const STARTING = 'starting';

/**
 * Takes the directory's lock for this process; returns its release. Throws DataDirInUse.
 * `role: 'server'` marks the lock as a server's that is starting (until `recordAddress`).
 */
export function lockDataDir(dataDir: string, role?: 'server'): () => void {
  const file = join(dataDir, 'ucp.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, role === 'server' ? `${process.pid}\n${STARTING}\n` : String(process.pid));
      closeSync(fd);
      held.add(file);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        held.delete(file);
        process.off('exit', release);
        try {
          if (ownerPid(readFileSync(file, 'utf8')) === process.pid) unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
      process.on('exit', release); // a normal exit without close() still frees it
      return release;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = ownerPid(readFileSync(file, 'utf8'));
      // Our own pid: held by this process only if we took it (a container restarted as pid 1 finds
      // its predecessor's "1" in the file: stale).
      if (owner === process.pid ? held.has(file) : Number.isInteger(owner) && owner > 0 && alive(owner)) throw new DataDirInUse(dataDir, owner);
      unlinkSync(file); // stale: its process is gone; try once more
    }
  }
  throw new Error(`Could not take the lock of ${dataDir}.`);
}

/**
 * This process's control token (server/control/routes.ts): written on the lock's third line, the
 * file readable by its owner only, so a command run by whoever may open the data directory hands
 * its work (an import) to the server that holds it. Anyone who can read it could open the
 * database itself: it grants nothing the directory does not.
 */
let controlToken: string | undefined;
export function ownControlToken(): string | undefined {
  return controlToken;
}

/** Writes `url` (where this process serves) and a fresh control token into the directory's lock, which this process holds. */
export function recordAddress(dataDir: string, url: string): void {
  const file = join(dataDir, 'ucp.lock');
  if (!held.has(file)) return;
  controlToken ??= randomBytes(32).toString('base64url');
  writeFileSync(file, `${process.pid}\n${url}\n${controlToken}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** The process holding a data directory (lockOwner). */
export interface LockOwner {
  pid: number;
  /** Where it serves, once a server listens. */
  url?: string;
  token?: string;
  /** A server that has not recorded its address yet. */
  starting?: true;
}

/** The live process holding `dataDir`, the address it recorded (undefined before it listens) and its control token. */
export function lockOwner(dataDir: string): LockOwner | null {
  let text: string;
  try {
    text = readFileSync(join(dataDir, 'ucp.lock'), 'utf8');
  } catch {
    return null;
  }
  const pid = ownerPid(text);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return null;
  const [, url, token] = text.split('\n').map((l) => l.trim());
  if (url === STARTING) return { pid, starting: true };
  return url ? { pid, url, ...(token ? { token } : {}) } : { pid };
}
