/**
 * New databases, in memory and in a new data directory, start from a snapshot of an empty cluster
 * (server/db/pglite-worker.mjs): the snapshot is made when missing, and a snapshot that does not
 * restore never stops a database from opening: it is removed and the cluster made from scratch
 * (then snapshotted again); on disk, what it had unpacked is removed first.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../server/db/index.ts';

const pkg = join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), '..', 'package.json');
const SNAPSHOT = join(tmpdir(), `ucp-storefront-pglite-${JSON.parse(readFileSync(pkg, 'utf8')).version}-empty.tar`);

async function openAndQuery(): Promise<number> {
  const db = await openDatabase({ dataDir: 'memory://' });
  try {
    await sql`create table t (n int)`.execute(db);
    await sql`insert into t values (41)`.execute(db);
    const r = await sql<{ n: number }>`select n + 1 as n from t`.execute(db);
    return r.rows[0].n;
  } finally {
    await db.destroy();
  }
}

describe('in-memory database snapshot', () => {
  it('a database opens and works from the snapshot, which exists after the first open', async () => {
    expect(await openAndQuery()).toBe(42);
    expect(statSync(SNAPSHOT).size).toBeGreaterThan(1_000_000);
    expect(await openAndQuery()).toBe(42);
  }, 60_000);

  it('a snapshot that does not restore is replaced; the database still opens', async () => {
    writeFileSync(SNAPSHOT, 'not a tar archive');
    expect(await openAndQuery()).toBe(42);
    expect(statSync(SNAPSHOT).size).toBeGreaterThan(1_000_000);
  }, 60_000);
});

async function onDisk<T>(dir: string, fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>): Promise<T> {
  const db = await openDatabase({ dataDir: dir });
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

describe('a new data directory', () => {
  it('opens from the snapshot, keeps what is written across a restart, and only holds a cluster and its lock', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ucp-snap-'));
    try {
      await onDisk(dir, async (db) => {
        await sql`create table t (n int)`.execute(db);
        await sql`insert into t values (41)`.execute(db);
      });
      expect(statSync(SNAPSHOT).size).toBeGreaterThan(1_000_000);
      expect(await onDisk(dir, async (db) => (await sql<{ n: number }>`select n + 1 as n from t`.execute(db)).rows[0].n)).toBe(42);
      expect(readdirSync(dir)).toContain('PG_VERSION');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('a snapshot that does not restore leaves no stray files: the cluster is made from scratch and the snapshot replaced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ucp-snap-'));
    try {
      writeFileSync(join(dir, 'mine.txt'), 'kept');
      writeFileSync(SNAPSHOT, 'not a tar archive');
      await onDisk(dir, async (db) => {
        await sql`create table t (n int)`.execute(db);
      });
      expect(readFileSync(join(dir, 'mine.txt'), 'utf8')).toBe('kept');
      expect(await onDisk(dir, async (db) => (await sql<{ n: number }>`select count(*)::int as n from t`.execute(db)).rows[0].n)).toBe(0);
      expect(statSync(SNAPSHOT).size).toBeGreaterThan(1_000_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
