/**
 * What every process does to a database before it serves: migrations, then the first-run seeds
 * (demo shops when there are no shops yet, demo accounts in development mode). One function for the
 * server, the cluster primary, benchmarks and fault scripts.
 *
 * Several processes may start at the same moment on one PostgreSQL database (two `npm start`,
 * several hosts after a deploy). Kysely's migrator already takes its own lock, but "seed when
 * empty" is a read followed by writes: without a lock both processes see no shops and both seed,
 * and the second fails on the first one's rows. So the whole preparation runs under a
 * session-level advisory lock, held on one connection while the others do the work; whoever comes
 * second waits, then finds the database ready. The embedded database has one owner process.
 */
import { sql } from 'kysely';
import { isSingleWriter, migrateToLatest, type DB } from '../db/index.ts';
import { isEmpty, seedDemo } from './demo.ts';
import { seedAccounts } from './accounts.ts';

/** pg_advisory_lock key: any constant the application uses for nothing else ("ucp-prep"). */
const PREPARE_LOCK = 0x7563_7070;

export interface PrepareOptions {
  /** Load the demo shops when the database has no shop. */
  demo: boolean;
  /** Create the demo users and apps when missing (development mode only). */
  accounts: boolean;
}

export async function prepareDatabase(db: DB, opts: PrepareOptions): Promise<void> {
  const prepare = async () => {
    await migrateToLatest(db);
    if (opts.demo && (await isEmpty(db))) await seedDemo(db);
    if (opts.accounts) await seedAccounts(db);
  };
  if (isSingleWriter(db)) return prepare();
  await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${PREPARE_LOCK})`.execute(conn);
    try {
      await prepare();
    } finally {
      await sql`select pg_advisory_unlock(${PREPARE_LOCK})`.execute(conn);
    }
  });
}
