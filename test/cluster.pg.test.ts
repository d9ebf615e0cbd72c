/**
 * Several stateless processes on one PostgreSQL database (collected in the PostgreSQL pass of
 * scripts/test-all.sh only, see vitest.config.ts): two `server/main.ts` processes on their own ports
 * and one fresh database get the same Idempotency-Key at the same moment and agree on one cart; a
 * cart written through one is read and updated through the other; `server/cluster.ts` with
 * WORKERS=2 serves on one port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { CART_BODY, prepareDatabase, send, spawnServer, withDb, type ServerProcess } from '../scripts/faults/lib.ts';
import { createTestDatabase, requirePostgres, type TestDatabase } from './support/postgres.ts';

const PG = requirePostgres();
const HOST = 'demo.localhost';

describe('two processes on one PostgreSQL database', () => {
  let tdb: TestDatabase;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    tdb = await createTestDatabase(PG);
    await prepareDatabase({ databaseUrl: tdb.url });
    [a, b] = await Promise.all([spawnServer({ env: { DATABASE_URL: tdb.url } }), spawnServer({ env: { DATABASE_URL: tdb.url } })]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.kill(), b?.kill()]);
    await tdb?.drop();
  });

  const countCarts = () => withDb({ databaseUrl: tdb.url }, async (db) => Number((await sql<{ n: string }>`select count(*) as n from carts`.execute(db)).rows[0].n));

  it('the same Idempotency-Key sent to both at once creates one cart', async () => {
    const before = await countCarts();
    const rounds = 25;
    for (let i = 0; i < rounds; i++) {
      const key = randomUUID();
      const headers = { 'idempotency-key': key };
      // Two requests per process, all at once.
      const replies = await Promise.all([a, b, a, b].map((p) => send(p.port, HOST, 'POST', '/api/ucp/carts', CART_BODY, headers)));
      for (const r of replies) expect(r.status, r.text).toBe(201);
      const ids = new Set(replies.map((r) => r.body.id));
      expect(ids.size).toBe(1);
      // Byte-identical bodies: the stored response is replayed.
      expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    }
    expect(await countCarts()).toBe(before + rounds);
  });

  it('the same key with a different body is a 409 on the other process', async () => {
    const key = randomUUID();
    const first = await send(a.port, HOST, 'POST', '/api/ucp/carts', CART_BODY, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const other = await send(b.port, HOST, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 3 }] }, { 'idempotency-key': key });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 'idempotency_conflict' });
  });

  it('rate limits hold for the deployment, not per process: the GraphQL budget is shared', async () => {
    // 60 tokens, 10 per second (GRAPHQL_RATE_LIMIT). Per-process buckets would let all 120 through.
    const q = { query: '{ apiVersion }' };
    const replies = await Promise.all(Array.from({ length: 120 }, (_, i) => send((i % 2 ? a : b).port, HOST, 'POST', '/graphql/3.0', q)));
    const ok = replies.filter((r) => r.status === 200).length;
    const limited = replies.filter((r) => r.status === 429).length;
    expect(ok + limited).toBe(120);
    expect(ok).toBeGreaterThanOrEqual(60);
    expect(ok).toBeLessThan(100); // 60 + what refills while the burst is served
  });

  it('a cart written through one process is read and updated through the other; concurrent updates serialize', async () => {
    const created = await send(a.port, HOST, 'POST', '/api/ucp/carts', CART_BODY);
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const read = await send(b.port, HOST, 'GET', `/api/ucp/carts/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(id);
    // Ten updates at once, split across the processes: each is a full replacement; the last
    // committed one wins and the cart is one of the requested states, never a mix.
    const updates = Array.from({ length: 10 }, (_, i) => ({ line_items: [{ item: { id: 'var_tee_s_white' }, quantity: i + 1 }] }));
    const replies = await Promise.all(updates.map((u, i) => send((i % 2 ? a : b).port, HOST, 'PUT', `/api/ucp/carts/${id}`, u)));
    for (const r of replies) expect(r.status, r.text).toBe(200);
    const final = await send(a.port, HOST, 'GET', `/api/ucp/carts/${id}`);
    expect(final.body.line_items).toHaveLength(1);
    expect(final.body.line_items[0].quantity).toBeGreaterThanOrEqual(1);
    expect(final.body.line_items[0].quantity).toBeLessThanOrEqual(10);
  });
});

describe('npm run start:cluster (WORKERS=2) on PostgreSQL', () => {
  let tdb: TestDatabase;
  let c: ServerProcess;
  beforeAll(async () => {
    tdb = await createTestDatabase(PG);
    c = await spawnServer({ script: 'server/cluster.ts', env: { DATABASE_URL: tdb.url, WORKERS: '2' } });
  }, 120_000);
  afterAll(async () => {
    await c?.kill();
    await tdb?.drop();
  });

  it('migrates once, seeds, and every worker answers on the shared port', async () => {
    expect(c.output()).toMatch(/2 workers, PostgreSQL/);
    const key = randomUUID();
    const replies = await Promise.all(Array.from({ length: 8 }, () => send(c.port, HOST, 'POST', '/api/ucp/carts', CART_BODY, { 'idempotency-key': key })));
    for (const r of replies) expect(r.status, r.text).toBe(201);
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    const d = await send(c.port, HOST, 'GET', '/.well-known/ucp');
    expect(d.status).toBe(200);
  });
});

describe('several processes starting at once on an empty PostgreSQL database', () => {
  let tdb: TestDatabase;
  let servers: ServerProcess[] = [];
  beforeAll(async () => {
    tdb = await createTestDatabase(PG);
  });
  afterAll(async () => {
    await Promise.all(servers.map((p) => p.kill()));
    await tdb?.drop();
  });

  it('all come up; migrations run once and the demo is seeded once', async () => {
    // Nothing prepared: every process migrates and seeds on its own (server/seed/prepare.ts).
    servers = await Promise.all([1, 2, 3].map(() => spawnServer({ env: { DATABASE_URL: tdb.url } })));
    const counts = await withDb({ databaseUrl: tdb.url }, async (db) => {
      const n = async (q: ReturnType<typeof sql<{ n: string }>>) => Number((await q.execute(db)).rows[0].n);
      return {
        shops: await n(sql`select count(*) as n from shops`),
        demoProducts: await n(sql`select count(*) as n from products where shop_id = 'shop_demo'`),
        migrations: await n(sql`select count(*) as n from kysely_migration`),
        users: await n(sql`select count(*) as n from users`),
      };
    });
    const { migrations } = await import('../server/db/migrations/index.ts');
    expect(counts.migrations).toBe(Object.keys(migrations).length);
    expect(counts.shops).toBeGreaterThanOrEqual(3);
    expect(counts.demoProducts).toBeGreaterThanOrEqual(40);
    expect(counts.users).toBeGreaterThanOrEqual(1);
    for (const p of servers) {
      const r = await send(p.port, HOST, 'POST', '/api/ucp/catalog/search', { query: 'flask' });
      expect(r.status, p.output()).toBe(200);
      expect(r.body.products.length).toBeGreaterThan(0);
    }
  });
});
