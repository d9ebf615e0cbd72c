/**
 * Issue 39 point 5: development clones are bounded. At most `maxClones` per server (409
 * too_many_clones past it), never a name the platform or the demo uses, deletable with
 * `DELETE /dev/shops/{clone}` (every row of the shop goes), and deleted after `cloneIdleMs` without
 * a request (docs/sandbox.md "Clones"). Disk reuse on the embedded database: dev-clone-disk.embedded.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from './support/server.ts';

const JSON_TYPE = { 'content-type': 'application/json' };
const IDLE_MS = 4000;
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ maxClones: 3, cloneIdleMs: IDLE_MS });
});
afterAll(() => s.close());

const clone = (body: unknown = {}) => s.req('localhost', 'POST', '/dev/shops/shop_demo/clone', body, JSON_TYPE);
const remove = (ref: string) => s.req('localhost', 'DELETE', `/dev/shops/${ref}`, undefined, JSON_TYPE);

/** Rows of `shopId` in every table with a shop_id column. */
async function rowsOf(shopId: string): Promise<number> {
  const tables = await sql<{ table_name: string }>`select table_name from information_schema.columns where column_name = 'shop_id' and table_schema = current_schema()`.execute(s.db);
  let n = (await s.db.selectFrom('shops').select('id').where('id', '=', shopId).execute()).length;
  for (const { table_name } of tables.rows) n += Number((await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table_name)} where shop_id = ${shopId}`.execute(s.db)).rows[0].n);
  return n;
}

describe('clones are bounded', () => {
  it('refuses reserved names: the platform, the demo agent, every demo shop', async () => {
    for (const domain of ['agent.localhost', 'www.localhost', 'demo.localhost', 'other.localhost', 'strict.localhost', 'offline.localhost']) {
      const r = await clone({ domain });
      expect({ domain, status: r.status, code: r.body.messages?.[0]?.code }).toEqual({ domain, status: 400, code: 'reserved_domain' });
    }
  });

  it('at most maxClones; DELETE frees a place, takes every row of the clone, and refuses demo shops', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) {
      const r = await clone();
      expect(r.status, r.text).toBe(201);
      made.push(r.body);
    }
    const over = await clone();
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ code: 'too_many_clones', content: expect.stringContaining('DELETE /dev/shops/') });

    // Some data of its own first: a keyed cart.
    const cart = await s.req(made[0].domain, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] }, { 'idempotency-key': 'k-1' });
    expect(cart.status).toBe(201);
    expect(await rowsOf(made[0].id)).toBeGreaterThan(50);
    expect((await remove(made[0].domain)).status).toBe(204);
    expect(await rowsOf(made[0].id)).toBe(0);
    expect((await s.req(made[0].domain, 'GET', '/.well-known/ucp')).status).toBe(404);
    expect((await remove(made[0].id)).status).toBe(404);
    expect((await clone()).status).toBe(201);

    const demo = await remove('shop_demo');
    expect(demo.status).toBe(409);
    expect(demo.body.code).toBe('not_a_clone');
    expect((await s.req('demo.localhost', 'GET', '/.well-known/ucp')).status).toBe(200);
    // Same guard as reset and clone: a web page cannot fire it.
    expect((await s.req('localhost', 'DELETE', `/dev/shops/${made[1].id}`, undefined, { ...JSON_TYPE, origin: 'http://evil.example' })).status).toBe(403);
  });

  it(`a clone with no request for cloneIdleMs (${IDLE_MS} ms here) is deleted; one in use is kept`, async () => {
    for (const id of (await s.db.selectFrom('shops').select('id').where('id', 'like', 'shop\\_demo\\_%').execute()).map((r) => r.id)) await remove(id);
    const idle = (await clone()).body;
    const busy = (await clone()).body;
    const until = Date.now() + IDLE_MS + 500;
    while (Date.now() < until) {
      expect((await s.req(busy.domain, 'POST', '/api/ucp/catalog/search', { query: 'tee' })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await clone()).status).toBe(201); // each clone first deletes the idle ones
    expect(await rowsOf(idle.id)).toBe(0);
    expect((await s.req(idle.domain, 'GET', '/.well-known/ucp')).status).toBe(404);
    expect((await s.req(busy.domain, 'GET', '/.well-known/ucp')).status).toBe(200);
  });

  it('at the bound, the least recently used clone gives its place once unused for cloneEvictIdleMs; a clone in use never does', async () => {
    // Its own server: idle clones are never swept here (an hour), so only eviction can make room.
    const t = await startTestServer({ maxClones: 2, cloneIdleMs: 3_600_000, cloneEvictIdleMs: 1500 });
    try {
      const make = () => t.req('localhost', 'POST', '/dev/shops/shop_demo/clone', {}, JSON_TYPE);
      const first = (await make()).body;
      const second = (await make()).body;
      // Both just used (created): no place yet, and the refusal says how to make one.
      const full = await make();
      expect(full.status).toBe(409);
      expect(full.body.code).toBe('too_many_clones');
      await new Promise((r) => setTimeout(r, 1700));
      // The first is used again: now the second is the least recently used, and idle long enough.
      expect((await t.req(first.domain, 'POST', '/api/ucp/catalog/search', { query: 'tee' })).status).toBe(200);
      const third = await make();
      expect(third.status, third.text).toBe(201);
      expect((await t.req(second.domain, 'GET', '/.well-known/ucp')).status).toBe(404);
      expect((await t.req(first.domain, 'GET', '/.well-known/ucp')).status).toBe(200);
      expect((await t.req(third.body.domain, 'GET', '/.well-known/ucp')).status).toBe(200);
      // The two left were both just used: the bound holds again.
      expect((await make()).status).toBe(409);
    } finally {
      await t.close();
    }
  });
});
