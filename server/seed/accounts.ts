/**
 * Development-only accounts: two users owning the demo shops and two apps. Idempotent; never called
 * in production mode (server/server.ts checks `config.mode`).
 */
import type { DB } from '../db/index.ts';
import { DEMO_APPS, createUser, registerApp } from '../core/accounts/accounts.ts';

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

export function demoCredentialsText(port: number): string {
  const base = `http://localhost:${port}`;
  return [
    `  account service      ${base}/oauth2/authorize  (metadata ${base}/.well-known/oauth-authorization-server)`,
    `  demo users           owner@demo.localhost / demo (shop_demo), owner@other.localhost / other (shop_other)`,
    `  demo apps            ${DEMO_APPS.confidential} / demo-secret (confidential), ${DEMO_APPS.public} (public, PKCE); redirect URI ${DEMO_REDIRECT_URI}`,
    `  merchant API         ${base}/merchants/shop_demo/3.0/products`,
    `  admin, own apps      ${base}/admin  (sign in as a demo user; register OAuth apps while the server runs)`,
  ].join('\n');
}
