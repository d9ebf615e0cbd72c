/**
 * The first-run seed's guard on PostgreSQL (server/seed/prepare.ts): two processes start on an empty
 * database, and the backend holding the prepare lock is killed mid-seed (pg_terminate_backend, as a
 * failover or an operator would). The demo shops end up seeded exactly once and the second process
 * starts. With the lock held on one connection while the seed ran on others (before), the seed went
 * on without the lock and the second process seeded beside it, then failed on its rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openDatabase, migrateToLatest, type DB } from '../server/db/index.ts';
import { PREPARE_LOCK, prepareDatabase } from '../server/seed/prepare.ts';
import { demoSources } from '../server/seed/demo.ts';
import { createTestDatabase, requirePostgres, type TestDatabase } from './support/postgres.ts';

const base = requirePostgres();
let tdb: TestDatabase;
const opened: DB[] = [];
let admin: pg.Client;

beforeAll(async () => {
  tdb = await createTestDatabase(base);
  admin = new pg.Client({ connectionString: tdb.url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  for (const db of opened) await db.destroy().catch(() => {});
  await tdb?.drop();
});

async function open(): Promise<DB> {
  const db = await openDatabase({ databaseUrl: tdb.url, dataDir: 'unused', pgPoolSize: 4 });
  opened.push(db);
  return db;
}

/** Polls `q` (on the admin connection) until it returns a row; that row. */
async function until<T>(what: string, q: string, params: unknown[] = []): Promise<T> {
  const end = Date.now() + 15_000;
  for (;;) {
    const { rows } = await admin.query(q, params);
    if (rows.length) return rows[0] as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Advisory locks on one bigint key: classid is its high half, objid its low half.
const ADVISORY = `select pid from pg_locks where locktype = 'advisory' and classid = 0 and objid = $1 and objsubid = 1 and granted = $2 and database = (select oid from pg_database where datname = current_database())`;

describe('first-run seed under a lost lock (PostgreSQL)', () => {
  it('the backend holding the prepare lock dies mid-seed: the demo is seeded once, by the other process', async () => {
    const [a, b] = [await open(), await open()];
    await migrateToLatest(a);
    // Hold the seed still inside its work: its product rows wait behind this lock, so the kill
    // lands mid-seed whatever the machine's speed.
    await admin.query('begin');
    await admin.query('lock table products in share mode');
    const first = prepareDatabase(a, { demo: true, accounts: true }).then(
      () => 'started',
      (e: Error) => e.message,
    );
    const holder = await until<{ pid: number }>('the first process to hold the prepare lock', ADVISORY, [PREPARE_LOCK, true]);
    await until('its seed to be under way (waiting on the products table)', `select 1 from pg_locks where relation = 'products'::regclass and not granted`);
    const second = prepareDatabase(b, { demo: true, accounts: true });
    await admin.query('select pg_terminate_backend($1)', [holder.pid]);
    await admin.query('commit');
    await second; // starts: it seeded, or found the demo seeded
    expect(await first).not.toBe('started'); // its connection was killed under it

    const demoShops = demoSources().length;
    const versions = await admin.query<{ shop_id: string; version: string }>('select shop_id, version from catalog_versions order by shop_id');
    expect(versions.rows).toHaveLength(demoShops);
    // Each demo shop's catalog was written once: a second seed of the same file bumps its version.
    expect(versions.rows.map((r) => Number(r.version))).toEqual(Array(demoShops).fill(1));
    const users = await admin.query('select id from users order by id');
    expect(users.rows.map((r) => r.id)).toEqual(['usr_demo_owner', 'usr_other_owner']);
    // Nothing is left holding the lock: a later start prepares at once.
    await prepareDatabase(await open(), { demo: true, accounts: true });
    expect((await admin.query(ADVISORY, [PREPARE_LOCK, true])).rows).toEqual([]);
  }, 60_000);
});
