/**
 * The commands' way to the database: DATABASE_URL or DATA_DIR like the server (from the command's
 * environment), migrated to the latest version. A data directory a running server holds is a
 * one-line error, not a stack trace (PGlite is single-process: stop the server, or use PostgreSQL).
 */
import { keyEncryptionSecretProblem, loadConfig, type Config } from '../config.ts';
import { migrateToLatest, openDatabase, type DB } from '../db/index.ts';
import { DataDirInUse } from '../db/data-dir-lock.ts';
import { CliError, type Io } from './cli.ts';
import { useKeyEncryptionSecret } from '../core/access/signing-keys.ts';

/** `busyHint`: what else to do when a running server holds the embedded database. */
export async function withDb<T>(io: Io, fn: (db: DB, config: Config) => Promise<T>, busyHint = ''): Promise<T> {
  const config = loadConfig(io.env);
  // A command in production writes what the server reads (signing keys): the same secret rule.
  const secretProblem = keyEncryptionSecretProblem(config);
  if (secretProblem) throw new CliError(secretProblem);
  useKeyEncryptionSecret(config.keyEncryptionSecret);
  let db: DB;
  try {
    db = await openDatabase(config);
  } catch (e) {
    if (e instanceof DataDirInUse) throw new CliError(busyHint ? `${e.message}\n${busyHint}` : e.message);
    throw e;
  }
  try {
    await migrateToLatest(db);
    return await fn(db, config);
  } finally {
    await db.destroy();
  }
}
