/** The CLIs' way to open the database: a data directory held by a running server is a one-line error, not a stack trace. */
import { openDatabase, type DatabaseOptions, type DB } from '../db/index.ts';
import { DataDirInUse } from '../db/data-dir-lock.ts';

export async function openForCli(opts: DatabaseOptions): Promise<DB> {
  try {
    return await openDatabase(opts);
  } catch (e) {
    if (!(e instanceof DataDirInUse)) throw e;
    console.error(e.message);
    process.exit(1);
  }
}
