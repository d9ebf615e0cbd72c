/**
 * What every process does to a database before it serves: migrations, then the first-run seeds
 * (demo shops when there are no shops yet, demo accounts in development mode). One function for the
 * server, the cluster primary, benchmarks and fault scripts.
 *
 * Several processes may start at the same moment on one PostgreSQL database (two `npm start`,
 * several hosts after a deploy). Kysely's migrator takes its own lock on the connection that runs
 * the migrations' transaction. "Seed when empty" is a read followed by writes: without a guard both
 * processes see no shops, both seed, and the second fails on the first one's rows.
 *
 * The guard is a transaction-level advisory lock (`pg_advisory_xact_lock`) taken inside each seed
 * transaction, on the connection that writes, followed by the check that what it is about to write
 * is still missing. Lock, check and writes live and die together: if that connection is lost (a
 * failover, a killed backend), its transaction rolls back and releases the lock at once, so a second
 * process can never seed beside work that goes on without the lock, which a session-level lock held
 * on another connection allowed (docs/deploy.md "Migrations on deploy"). Whoever comes second waits
 * for the first one's commit, then finds its shops and writes nothing. A transaction-level lock also
 * works through a transaction-mode pooler, which a session lock does not. The embedded database has
 * one owner process; the same code runs there (the lock is then never contended).
 */
import { sql } from 'kysely';
import { migrateToLatest, type DB } from '../db/index.ts';
import { isEmpty, seedDemo } from './demo.ts';
import { seedAccounts } from './accounts.ts';

/** pg_advisory_xact_lock key: any constant the application uses for nothing else ("ucp-prep"). */
export const PREPARE_LOCK = 0x7563_7070;

export interface PrepareOptions {
  /** Load the demo shops when the database has no shop. */
  demo: boolean;
  /** Create the demo users and apps when missing (development mode only). */
  accounts: boolean;
}

/** Takes the first-run lock for the rest of `tx` (released by its commit or rollback, or a lost connection). */
async function lockForSeeding(tx: DB): Promise<void> {
  await sql`select pg_advisory_xact_lock(${PREPARE_LOCK})`.execute(tx);
}

/** The first-run seed's fence: under the lock, only shops nobody has written yet are seeded. */
async function stillMissing(tx: DB, shops: string[]): Promise<boolean> {
  await lockForSeeding(tx);
  const found = await tx.selectFrom('shops').select('id').where('id', 'in', shops).executeTakeFirst();
  return !found;
}

export async function prepareDatabase(db: DB, opts: PrepareOptions): Promise<void> {
  await migrateToLatest(db);
  // isEmpty first (cheap, no lock): a database that has shops is never seeded; the fence decides
  // between processes that both saw it empty.
  if (opts.demo && (await isEmpty(db))) await seedDemo(db, stillMissing);
  if (opts.accounts)
    await db.transaction().execute(async (tx) => {
      await lockForSeeding(tx);
      await seedAccounts(tx);
    });
}
