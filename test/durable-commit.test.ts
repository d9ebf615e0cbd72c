/**
 * Durable commits on the embedded database (server/db/pglite-durable.mjs, docs/deploy.md): a write
 * is acknowledged only after an fdatasync of the WAL it wrote, and one flush acknowledges every
 * commit that arrived while the previous one was on the disk (group commit).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WalFlusher } from '../server/db/pglite-durable.mjs';
import { EmbeddedDatabase } from '../server/db/pglite-dialect.ts';
import { CART_BODY, send, spawnServer } from '../scripts/faults/lib.ts';

/** A disk whose flushes finish when the test says so. */
function manualDisk() {
  const calls: Array<{ paths: string[]; finish: (error?: Error) => void }> = [];
  return {
    calls,
    closed: false,
    sync(paths: string[]) {
      return new Promise<void>((resolve, reject) => calls.push({ paths, finish: (e) => (e ? reject(e) : resolve()) }));
    },
    close() {
      this.closed = true;
    },
  };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('group commit (WalFlusher)', () => {
  it('acknowledges a commit only after a flush that started after its write', async () => {
    const disk = manualDisk();
    const flusher = new WalFlusher(disk);
    const acked: string[] = [];
    flusher.noteWrite('/d/pg_wal/1');
    flusher.afterFlush(() => acked.push('a'));
    await tick();
    expect(disk.calls).toHaveLength(1);
    expect(disk.calls[0].paths).toEqual(['/d/pg_wal/1']);
    // b and c commit while a's flush is on the disk: they wait for the next one.
    flusher.noteWrite('/d/pg_wal/1');
    flusher.afterFlush(() => acked.push('b'));
    flusher.noteWrite('/d/pg_wal/2');
    flusher.afterFlush(() => acked.push('c'));
    expect(acked).toEqual([]);
    disk.calls[0].finish();
    await tick();
    expect(acked).toEqual(['a']);
    // One flush for both, covering both files they wrote.
    expect(disk.calls).toHaveLength(2);
    expect(disk.calls[1].paths.sort()).toEqual(['/d/pg_wal/1', '/d/pg_wal/2']);
    disk.calls[1].finish();
    await tick();
    expect(acked).toEqual(['a', 'b', 'c']);
    expect(flusher.flushes).toBe(2);
    expect(flusher.writes).toBe(3);
  });

  it('a failed flush fails its commits and every later one (never acknowledged)', async () => {
    const disk = manualDisk();
    const flusher = new WalFlusher(disk);
    const outcomes: Array<string | undefined> = [];
    flusher.noteWrite('/d/pg_wal/1');
    flusher.afterFlush((e) => outcomes.push(e?.message));
    await tick();
    flusher.noteWrite('/d/pg_wal/1');
    flusher.afterFlush((e) => outcomes.push(e?.message));
    disk.calls[0].finish(new Error('EIO'));
    await tick();
    await tick();
    flusher.afterFlush((e) => outcomes.push(e?.message));
    expect(outcomes).toEqual(['EIO', 'EIO', 'EIO']);
    expect(disk.calls).toHaveLength(1); // nothing pretends to flush again
    expect(flusher.flushes).toBe(0);
  });
});

/**
 * The real thing, watched from outside: the server runs under strace, which records every
 * fdatasync with the file it was called on (-y).
 */
async function walSyncsDuringCreates(durable: boolean, creates: number) {
  const dir = mkdtempSync(join(tmpdir(), 'ucp-durable-'));
  const log = join(dir, 'strace.log');
  const server = await spawnServer({
    env: { DATA_DIR: join(dir, 'data'), UCP_DURABLE_COMMITS: durable ? 'on' : 'off' },
    wrap: ['strace', '-f', '--seccomp-bpf', '-y', '-e', 'trace=fdatasync', '-o', log],
    timeoutMs: 120_000,
  });
  const walSyncs = () => readFileSync(log, 'utf8').split('\n').filter((l) => /fdatasync\(\d+<[^>]*\/pg_wal\/[0-9A-F]{24}>\) = 0/.test(l)).length;
  try {
    const before = walSyncs();
    const statuses: number[] = [];
    // Ten at a time, like a busy shop.
    for (let i = 0; i < creates; i += 10) {
      const batch = await Promise.all(Array.from({ length: Math.min(10, creates - i) }, () => send(server.port, 'demo.localhost', 'POST', '/api/ucp/carts', CART_BODY)));
      statuses.push(...batch.map((r) => r.status));
    }
    return { statuses, syncs: walSyncs() - before };
  } finally {
    // SIGTERM to strace would only detach it: stop the server it runs, and strace exits with it.
    const tracee = readFileSync(`/proc/${server.child.pid}/task/${server.child.pid}/children`, 'utf8').trim().split(' ')[0];
    if (tracee) process.kill(Number(tracee), 'SIGTERM');
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('durable commits on disk', () => {
  it('every acknowledged cart create is behind an fdatasync of the WAL; with UCP_DURABLE_COMMITS=off there is none', async () => {
    const on = await walSyncsDuringCreates(true, 60);
    expect(on.statuses.every((s) => s === 201)).toBe(true);
    expect(on.syncs).toBeGreaterThanOrEqual(1);
    expect(on.syncs).toBeLessThanOrEqual(60); // at most one flush per commit; usually fewer
    const off = await walSyncsDuringCreates(false, 20);
    expect(off.statuses.every((s) => s === 201)).toBe(true);
    expect(off.syncs).toBe(0);
  }, 240_000);
});

describe('what waits for a flush (the embedded database itself)', () => {
  it('statements inside a transaction are answered without a flush even when they write WAL; the commit waits for one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ucp-durable-tx-'));
    const db = await EmbeddedDatabase.open(join(dir, 'data'), 'select 1', { durable: true });
    try {
      await db.query('create table big (v text)', []);
      await db.query('begin', []);
      const before = await db.durabilityStats();
      // ~12 MB of WAL, three times the WAL buffers: PostgreSQL writes WAL files mid-transaction.
      await db.query(`insert into big select repeat(md5(i::text), 40) from generate_series(1, 9000) i`, []);
      const inside = await db.durabilityStats();
      expect(inside.walWrites).toBeGreaterThan(before.walWrites);
      expect(inside.walFlushes).toBe(before.walFlushes);
      await db.query('commit', []);
      const after = await db.durabilityStats();
      expect(after.walFlushes).toBe(inside.walFlushes + 1);
      // An autocommit statement that writes is a commit too.
      await db.query(`insert into big values ('one more')`, []);
      expect((await db.durabilityStats()).walFlushes).toBe(after.walFlushes + 1);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
