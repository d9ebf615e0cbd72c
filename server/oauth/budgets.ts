/**
 * Failure budgets of the account service (sign-in forms and the token endpoint) and the sign-in
 * check that spends them.
 */
import type { Context } from 'hono';
import { clientAddress, type BucketPolicy } from '../http/rate-limit.ts';
import { failures } from '../http/db-bucket-store.ts';
import type { AppEnv } from '../http/env.ts';
import type { DB } from '../db/index.ts';
import { verifyLogin, type User } from '../core/accounts/accounts.ts';

/** Failed sign-ins allowed per account from one client address before throttling, and how fast the allowance returns. */
export const LOGIN_FAILURES = { capacity: 5, refillPerSecond: 1 / 60 };
/** Failed sign-ins allowed per client address (one password tried on many accounts). */
export const LOGIN_FAILURES_PER_ADDRESS = { capacity: 20, refillPerSecond: 1 / 30 };
/** Failed token requests (invalid_client, invalid_grant) allowed per client address. */
export const TOKEN_FAILURES_PER_ADDRESS = { capacity: 20, refillPerSecond: 1 / 6 };

// The failure-budget mechanism itself lives beside the bucket store (http/db-bucket-store.ts): the
// metrics token spends one too.
export { failures };

export const addressOf = (c: Context<AppEnv>) => clientAddress(c, c.get('config').trustProxy);

/**
 * The account check of every sign-in form (the authorization flow's login page and /admin).
 * Password guessing: after LOGIN_FAILURES.capacity wrong passwords for one account from one client
 * address, one more try per minute from there; password spraying: the same per client address, with
 * a larger allowance. Every budget includes the address, so nobody can lock an owner out from
 * elsewhere (docs/security.md). The budgets are checked before any password hashing; a throttled
 * answer has set Retry-After.
 */
export async function signIn(
  c: Context<AppEnv>,
  username: string,
  password: string,
): Promise<{ ok: true; user: User } | { ok: false; status: 401 | 429; error: string }> {
  const db = c.get('db');
  const budgets: Array<[string, BucketPolicy]> = [
    // Keyed by account *and* address: guessing one account is throttled where the guesses come
    // from, and the owner signing in from anywhere else is never refused because of them.
    [`login:${addressOf(c)}:${username.trim().toLowerCase()}`, LOGIN_FAILURES],
    [`login-from:${addressOf(c)}`, LOGIN_FAILURES_PER_ADDRESS],
  ];
  const wait = await failures.wait(db, budgets);
  if (wait) {
    c.header('Retry-After', String(wait));
    return { ok: false, status: 429, error: `Too many failed sign-ins. Try again in ${wait} seconds.` };
  }
  const user = await verifyLogin(db, username, password);
  if (!user) {
    await failures.fail(db, budgets);
    return { ok: false, status: 401, error: 'Wrong e-mail or password.' };
  }
  return { ok: true, user };
}
