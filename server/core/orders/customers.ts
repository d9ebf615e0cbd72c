/**
 * Customers of a merchant (shop), created and listed through the merchant API, so an order's
 * `customer_id` refers to something real. Ids are `cus_...`; e-mail is unique per merchant.
 */
import { z } from 'zod';
import type { DB } from '../../db/index.ts';
import { Conflict, ERROR_CODES } from '../shared/errors.ts';
import { validate } from '../shared/validate.ts';
import { randomToken } from '../../lib/crypto.ts';

export interface Customer {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  created_at: string;
}

export const NewCustomer = z.strictObject({
  email: z.string().trim().toLowerCase().pipe(z.email()).pipe(z.string().max(254)),
  first_name: z.string().trim().min(1).max(100).nullish(),
  last_name: z.string().trim().min(1).max(100).nullish(),
});

type Row = { id: string; email: string; first_name: string | null; last_name: string | null; created_at: Date | string };
const toCustomer = (r: Row): Customer => ({ id: r.id, email: r.email, first_name: r.first_name, last_name: r.last_name, created_at: new Date(r.created_at).toISOString() });

export async function createCustomer(db: DB, shopId: string, input: unknown): Promise<Customer> {
  const c = validate(NewCustomer, input);
  const existing = await db.selectFrom('customers').select('id').where('shop_id', '=', shopId).where('email', '=', c.email).executeTakeFirst();
  if (existing) throw new Conflict(ERROR_CODES.customerExists, `A customer with e-mail ${c.email} already exists (${existing.id}).`);
  const row = await db
    .insertInto('customers')
    .values({ shop_id: shopId, id: `cus_${randomToken(12)}`, email: c.email, first_name: c.first_name ?? null, last_name: c.last_name ?? null })
    .returning(['id', 'email', 'first_name', 'last_name', 'created_at'])
    .executeTakeFirstOrThrow();
  return toCustomer(row);
}

export async function findCustomer(db: DB, shopId: string, id: string): Promise<Customer | null> {
  const row = await db.selectFrom('customers').select(['id', 'email', 'first_name', 'last_name', 'created_at']).where('shop_id', '=', shopId).where('id', '=', id).executeTakeFirst();
  return row ? toCustomer(row) : null;
}

/** Page of customers in creation order; `after` is the position cursor of the previous page. */
export async function listCustomers(db: DB, shopId: string, limit: number, after: number): Promise<{ customers: Customer[]; next: number | null }> {
  const rows = await db
    .selectFrom('customers')
    .select(['id', 'email', 'first_name', 'last_name', 'created_at', 'position'])
    .where('shop_id', '=', shopId)
    .where('position', '>', after)
    .orderBy('position')
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  return { customers: page.map(toCustomer), next: rows.length > limit ? Number(page[page.length - 1].position) : null };
}
