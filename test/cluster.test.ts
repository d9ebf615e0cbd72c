/**
 * The cluster's guard rails, on either database: `server/cluster.ts` refuses WORKERS>1 on the
 * embedded database, and idempotent operations retry transactions aborted by serialization
 * failures. Several processes on one PostgreSQL database: test/cluster.pg.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT } from '../scripts/faults/lib.ts';
import { migrateToLatest, openDatabase, type DB } from '../server/db/index.ts';
import { runIdempotent } from '../server/core/carts/idempotency.ts';

describe('server/cluster.ts on the embedded database', () => {
  it('refuses WORKERS=2 without DATABASE_URL, with a clear message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ucp-cluster-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, WORKERS: '2', DATA_DIR: dir, PORT: '0' };
      delete env.DATABASE_URL;
      expect(await runCluster(env)).toMatchObject({ code: 2, out: expect.stringMatching(/WORKERS=2 needs DATABASE_URL/) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a DATABASE_URL that cannot work with one line naming the fault, before connecting', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, WORKERS: '1', PORT: '0', DATABASE_URL: 'postgres://u:hunter2@h1,h2/ucp?target_session_attrs=standby' };
    const { code, out } = await runCluster(env);
    expect(code).toBe(2);
    expect(out).toMatch(/^Not starting: DATABASE_URL: target_session_attrs=standby would pick a server this storefront cannot write to/);
    expect(out).not.toMatch(/hunter2|    at /);
  });

  it('a database that cannot be reached: the primary says so in one line and exits 1, no stack (issue 39 point 16)', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, WORKERS: '2', PORT: '0', DATABASE_URL: 'postgres://u:hunter2@127.0.0.1:1/ucp' };
    const { code, out } = await runCluster(env);
    expect(code).toBe(1);
    expect(out.trim()).toMatch(/^Not starting: PostgreSQL at 127\.0\.0\.1:1 cannot be reached \(ECONNREFUSED\)/);
    expect(out).not.toMatch(/hunter2|    at |migration/);
  });
});

async function runCluster(env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/cluster.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, out };
}

describe('idempotent operations under serialization failures', () => {
  it('a transaction aborted with 40001/40P01 runs again, once committed', async () => {
    const db = await openDatabase({ dataDir: 'memory://' });
    try {
      await migrateToLatest(db);
      let calls = 0;
      // The first two transactions fail as PostgreSQL does under contention, the third commits.
      const flaky = new Proxy(db, {
        get(target, prop) {
          if (prop === 'transaction' && calls++ < 2) {
            const code = calls === 1 ? '40001' : '40P01';
            return () => ({ execute: async () => Promise.reject(Object.assign(new Error('could not serialize access'), { code })) });
          }
          const v = Reflect.get(target, prop, target);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      }) as DB;
      let runs = 0;
      const scope = { shopId: 'shop_demo', operation: 'test_op', key: randomUUID(), fingerprint: 'f' };
      const r = await runIdempotent(flaky, scope, async () => ({ status: 201, body: { n: ++runs } }));
      expect(r).toEqual({ status: 201, body: { n: 1 }, replayed: false });
      expect(calls).toBe(3);
      const again = await runIdempotent(db, scope, async () => ({ status: 201, body: { n: ++runs } }));
      expect(again).toEqual({ status: 201, body: { n: 1 }, replayed: true });
    } finally {
      await db.destroy();
    }
  });
});
