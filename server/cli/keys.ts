/**
 * Webhook signing keys (docs/webhooks.md):
 *   `npm run keys -- rotate --shop shop_demo [--grace-days 7]`  new current key; the old one stays
 *                                                               published for the grace period
 *   `npm run keys -- list --shop shop_demo`                     kids, created, retire_at
 * Uses DATABASE_URL or DATA_DIR like the server (stop a server that uses the same embedded database
 * first: PGlite is single-process). KEY_ENCRYPTION_SECRET must match the server's.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { migrateToLatest } from '../db/index.ts';
import { openForCli } from './open.ts';
import { listShopKeys, rotateShopKey } from '../core/signing-keys.ts';
import { findShopById } from '../core/shops.ts';

const USAGE = 'usage: keys rotate --shop SHOP_ID [--grace-days N] | keys list --shop SHOP_ID';
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { shop: { type: 'string' }, 'grace-days': { type: 'string' } },
});

const db = await openForCli(loadConfig());
try {
  await migrateToLatest(db);
  if (!values.shop) throw new Error(USAGE);
  if (!(await findShopById(db, values.shop))) throw new Error(`no shop ${values.shop}`);
  if (positionals[0] === 'rotate') {
    const graceDays = values['grace-days'] === undefined ? 7 : Number(values['grace-days']);
    if (!Number.isFinite(graceDays) || graceDays < 0) throw new Error('--grace-days must be a number >= 0');
    const r = await rotateShopKey(db, values.shop, { graceDays });
    console.log(`new key:     ${r.kid}`);
    console.log(r.retired ? `retiring:    ${r.retired} (published until ${r.retireAt!.toISOString()})` : 'retiring:    none (first key of this shop)');
  } else if (positionals[0] === 'list') {
    for (const k of await listShopKeys(db, values.shop)) {
      const state = k.retire_at === null ? 'current' : new Date(k.retire_at) > new Date() ? `retiring until ${new Date(k.retire_at).toISOString()}` : 'retired';
      console.log(`${k.kid}\t${new Date(k.created_at).toISOString()}\t${state}`);
    }
  } else {
    throw new Error(USAGE);
  }
} catch (e) {
  console.error((e as Error).message);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
