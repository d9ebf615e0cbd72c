/**
 * Development-only accounts: two users owning the demo shops and two apps. Idempotent; never called
 * in production mode (server/server.ts checks `config.mode`).
 */
import type { DB } from '../db/index.ts';
import { DEMO_APPS, createUser, registerApp } from '../core/accounts/accounts.ts';
import { verifyPassword } from '../lib/crypto.ts';

export const DEMO_REDIRECT_URI = 'http://127.0.0.1:5555/callback';

export const DEMO_ACCOUNTS = {
  users: [
    { id: 'usr_demo_owner', username: 'owner@demo.localhost', password: 'demo', name: 'Demo Owner', merchantId: 'shop_demo' },
    { id: 'usr_other_owner', username: 'owner@other.localhost', password: 'other', name: 'Other Owner', merchantId: 'shop_other' },
  ],
  apps: [
    { id: DEMO_APPS.confidential, secret: 'demo-secret', name: 'Demo App (confidential)', confidential: true, redirectUris: [DEMO_REDIRECT_URI] },
    { id: DEMO_APPS.public, secret: undefined, name: 'Demo App (public, PKCE)', confidential: false, redirectUris: [DEMO_REDIRECT_URI] },
  ],
} as const;

/** Who owns the demo apps (listed on their /admin page, which keeps them: KEPT_APP_IDS). */
export const DEMO_APP_OWNER = 'usr_demo_owner';

export async function seedAccounts(db: DB): Promise<void> {
  for (const u of DEMO_ACCOUNTS.users) {
    const shop = await db.selectFrom('shops').select('id').where('id', '=', u.merchantId).executeTakeFirst();
    const exists = await db.selectFrom('users').select('id').where('id', '=', u.id).executeTakeFirst();
    if (shop && !exists) await createUser(db, { ...u });
  }
  // The demo apps belong to the demo owner, so /admin lists them (they cannot be deleted there: KEPT_APP_IDS).
  const owner = await db.selectFrom('users').select('id').where('id', '=', DEMO_APP_OWNER).executeTakeFirst();
  for (const a of DEMO_ACCOUNTS.apps) {
    const exists = await db.selectFrom('oauth_clients').select(['id', 'owner_user_id']).where('id', '=', a.id).executeTakeFirst();
    if (!exists) await registerApp(db, { id: a.id, name: a.name, confidential: a.confidential, secret: a.secret, redirectUris: [...a.redirectUris] });
    // Databases seeded before the demo apps had an owner get one too.
    if (owner && !exists?.owner_user_id) await db.updateTable('oauth_clients').set({ owner_user_id: owner.id }).where('id', '=', a.id).execute();
  }
}

/** Accounts the start banner names; more are counted. */
export const BANNER_ACCOUNTS = 10;

/**
 * The banner's accounts lines: the accounts that exist in the database (the demo users with their
 * password while it is still the seeded one, any other with its e-mail and shop only), the demo
 * apps that exist, and where to sign in. Nothing here is printed from a list of what should exist.
 */
export async function accountsText(db: DB, port: number): Promise<string> {
  const base = `http://localhost:${port}`;
  const users = await db.selectFrom('users').select(['username', 'merchant_id', 'password_hash']).orderBy('merchant_id').orderBy('username').limit(BANNER_ACCOUNTS + 1).execute();
  const known = new Map<string, string>(DEMO_ACCOUNTS.users.map((u) => [u.username, u.password]));
  const named: string[] = [];
  for (const u of users.slice(0, BANNER_ACCOUNTS)) {
    const demo = known.get(u.username);
    named.push(demo !== undefined && (await verifyPassword(demo, u.password_hash)) ? `${u.username} / ${demo} (${u.merchant_id})` : `${u.username} (${u.merchant_id})`);
  }
  if (users.length > BANNER_ACCOUNTS) {
    const { n } = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    named.push(`… and ${Number(n) - BANNER_ACCOUNTS} more (npx ucp-storefront owners list)`);
  }
  const apps = await db.selectFrom('oauth_clients').select('id').where('id', 'in', [DEMO_APPS.confidential, DEMO_APPS.public]).execute();
  const has = (id: string) => apps.some((a) => a.id === id);
  const appText = [has(DEMO_APPS.confidential) ? `${DEMO_APPS.confidential} / demo-secret (confidential)` : '', has(DEMO_APPS.public) ? `${DEMO_APPS.public} (public, PKCE)` : ''].filter(Boolean);
  const lines = [`  account service      ${base}/oauth2/authorize  (metadata ${base}/.well-known/oauth-authorization-server)`];
  if (named.length) lines.push(`  accounts             ${named.join(', ')}`);
  else lines.push('  accounts             none: create a shop owner with `npx ucp-storefront owners create --shop ID --email E --password-stdin`');
  if (appText.length) lines.push(`  demo apps            ${appText.join(', ')}; redirect URI ${DEMO_REDIRECT_URI}`);
  if (users.length) lines.push(`  merchant API         ${base}/merchants/${users[0].merchant_id}/3.0/products`);
  lines.push(`  admin, own apps      ${base}/admin  (sign in as an account above; register OAuth apps while the server runs)`);
  return lines.join('\n');
}
