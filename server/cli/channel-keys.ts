/**
 * Channel API keys for agent platforms (docs/access.md):
 *
 *   npm run channel-keys -- create --shop shop_demo --profile https://agent.example/.well-known/ucp [--label "Agent X"]
 *   npm run channel-keys -- list --shop shop_demo
 *   npm run channel-keys -- revoke --shop shop_demo --id ck_…
 *
 * `create` prints the key once (only its sha256 is stored). The key acts only for the named
 * platform profile (identity binding). Uses DATABASE_URL or DATA_DIR like the server (stop a
 * server that uses the same embedded database first: PGlite is single-process).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { migrateToLatest } from '../db/index.ts';
import { openForCli } from './open.ts';
import { findShopById } from '../core/shops.ts';
import { issueChannelKey, listChannelKeys, revokeChannelKey } from '../core/channel-keys.ts';
import { allowInsecureProfiles } from '../http/authenticate.ts';

const USAGE =
  'usage: channel-keys create --shop SHOP_ID --profile URL [--label TEXT] | list --shop SHOP_ID | revoke --shop SHOP_ID --id KEY_ID';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { shop: { type: 'string' }, profile: { type: 'string' }, label: { type: 'string' }, id: { type: 'string' } },
});

const config = loadConfig();
const db = await openForCli(config);
try {
  await migrateToLatest(db);
  if (!values.shop) throw new Error(USAGE);
  const shop = await findShopById(db, values.shop);
  if (!shop) throw new Error(`No shop ${values.shop}.`);
  if (positionals[0] === 'create') {
    if (!values.profile) throw new Error(USAGE);
    const { key, record } = await issueChannelKey(db, shop.id, { profileUrl: values.profile, label: values.label }, { allowInsecureLoopback: allowInsecureProfiles(config) });
    console.log(`id:      ${record.id}`);
    console.log(`key:     ${key}   (shown once; only its digest is stored)`);
    console.log(`profile: ${record.profile_url}`);
    console.log(`send as: Authorization: Bearer ${record.prefix}…   or   X-API-Key: ${record.prefix}…`);
  } else if (positionals[0] === 'list') {
    for (const k of await listChannelKeys(db, shop.id)) {
      console.log(`${k.id}\t${k.prefix}…\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}\t${k.profile_url}\t${k.label ?? ''}`);
    }
  } else if (positionals[0] === 'revoke') {
    if (!values.id) throw new Error(USAGE);
    const k = await revokeChannelKey(db, shop.id, values.id);
    if (!k) throw new Error(`No channel key ${values.id} on ${shop.id}.`);
    console.log(`${k.id} revoked at ${k.revoked_at}`);
  } else {
    throw new Error(USAGE);
  }
} catch (e) {
  console.error((e as Error).message);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
