/**
 * Updates without an idempotency key hold no transaction (server/core/carts/carts.ts
 * `updateCartUnlocked`): they read, prepare, and write only if the cart's version is unchanged.
 * These tests make the race happen on purpose and check that no write is lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from './support/server.ts';
import { createCart, findCart, updateCartUnlocked } from '../server/core/carts/carts.ts';
import { findShopByDomain } from '../server/core/shops/shops.ts';
import type { Shop } from '../server/formats/types.ts';
import type { DB } from '../server/db/index.ts';

let s: TestServer;
let shop: Shop;
beforeAll(async () => {
  s = await startTestServer();
  shop = (await findShopByDomain(s.db, 'demo.localhost'))!;
});
afterAll(() => s?.close());

const line = (id: string, quantity: number) => [{ item: { id }, quantity }];

/** A database handle that runs `between` once, right after the update's first read of the cart. */
function racing(db: DB, between: () => Promise<void>): DB {
  let fired = false;
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'selectFrom') {
        return (table: string) => {
          const qb = target.selectFrom(table as 'carts');
          if (table !== 'carts' || fired) return qb;
          // Wrap executeTakeFirst of this one query.
          const wrap = (b: any): any =>
            new Proxy(b, {
              get(t, p) {
                const v = Reflect.get(t, p, t);
                if (p === 'executeTakeFirst') return async () => {
                  const row = await v.call(t);
                  fired = true;
                  await between();
                  return row;
                };
                return typeof v === 'function' ? (...a: unknown[]) => wrap(v.apply(t, a)) : v;
              },
            });
          return wrap(qb);
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as DB;
}

describe('optimistic cart updates', () => {
  it('a write between the read and the write makes the update read again: the other write’s fields survive', async () => {
    const { record } = await createCart(s.db, shop, { line_items: line('var_tee_s_white', 1) });
    let reads = 0;
    const db = racing(s.db, async () => {
      reads++;
      // Another request sets the buyer while this update is being prepared.
      await s.db.updateTable('carts').set({ buyer: JSON.stringify({ email: 'late@example.com' }), version: sql`version + 1` }).where('id', '=', record.id).execute();
    });
    const r = await updateCartUnlocked(db, shop, record.id, { line_items: line('var_tee_m_white', 3) });
    expect(reads).toBe(1);
    expect(r!.record.line_items).toMatchObject([{ variant_id: 'var_tee_m_white', quantity: 3 }]);
    const stored = await findCart(s.db, shop, record.id);
    expect(stored!.buyer).toEqual({ email: 'late@example.com' }); // not overwritten by a stale read
    expect(stored!.line_items).toMatchObject([{ quantity: 3 }]);
    expect(stored!.version).toBe(2); // the other write, then this one
  });

  it('every write bumps the version; an unknown or expired cart is not found', async () => {
    const { record } = await createCart(s.db, shop, { line_items: line('var_tee_s_white', 1) });
    expect((await findCart(s.db, shop, record.id))!.version).toBe(0);
    await updateCartUnlocked(s.db, shop, record.id, { line_items: line('var_tee_s_white', 2) });
    await updateCartUnlocked(s.db, shop, record.id, { line_items: line('var_tee_s_white', 3) });
    expect((await findCart(s.db, shop, record.id))!.version).toBe(2);
    expect(await updateCartUnlocked(s.db, shop, 'cart_missing', { line_items: line('var_tee_s_white', 1) })).toBeNull();
    await s.db.updateTable('carts').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', record.id).execute();
    expect(await updateCartUnlocked(s.db, shop, record.id, { line_items: line('var_tee_s_white', 1) })).toBeNull();
  });

  it('twenty concurrent updates over HTTP all answer 200 and the cart ends as exactly one of them', async () => {
    const created = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: line('var_tee_s_white', 1) });
    const id = created.body.id as string;
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.req('demo.localhost', 'PUT', `/api/ucp/carts/${id}`, { line_items: line('var_tee_s_white', i + 1) })),
    );
    for (const r of replies) expect(r.status, r.text).toBe(200);
    const final = await s.req('demo.localhost', 'GET', `/api/ucp/carts/${id}`);
    expect(final.body.line_items).toHaveLength(1);
    const q = final.body.line_items[0].quantity;
    expect(replies.map((r) => r.body.line_items[0].quantity)).toContain(q);
    expect((await findCart(s.db, shop, id))!.version).toBe(20);
  });
});
