/**
 * `ucp-storefront channel-keys`: channel API keys for agent platforms (docs/access.md). `create`
 * prints the key once (only its sha256 is stored); the key acts only for the named platform profile.
 */
import { findShopById } from '../../core/shops/shops.ts';
import { issueChannelKey, listChannelKeys, revokeChannelKey } from '../../core/access/channel-keys.ts';
import { allowInsecureProfiles } from '../../http/authenticate.ts';
import { CliError, printList, printRecord, required, subcommand, type Command } from '../cli.ts';
import { withDb } from '../open.ts';

export const channelKeys: Command = {
  name: 'channel-keys',
  summary: 'issue, list and revoke channel API keys for agent platforms',
  usage: `usage: ucp-storefront channel-keys create --shop SHOP_ID --profile URL [--label TEXT] [--json]
       ucp-storefront channel-keys list --shop SHOP_ID [--json]
       ucp-storefront channel-keys revoke --shop SHOP_ID --id KEY_ID [--json]

  create   issues a key acting for the platform profile URL; prints the key once
  list     the shop's keys (id, prefix, state, profile, label); never the keys themselves
  revoke   revokes a key at once`,
  options: { shop: { type: 'string' }, profile: { type: 'string' }, label: { type: 'string' }, id: { type: 'string' } },
  positionals: true,
  async run({ values, positionals, io }) {
    const sub = subcommand(positionals, ['create', 'list', 'revoke']);
    required(values, 'shop', ...(sub === 'create' ? ['profile'] : sub === 'revoke' ? ['id'] : []));
    const json = !!values.json;
    await withDb(io, async (db, config) => {
      const shop = await findShopById(db, values.shop);
      if (!shop) throw new CliError(`No shop ${values.shop}.`);
      if (sub === 'create') {
        const { key, record } = await issueChannelKey(db, shop.id, { profileUrl: values.profile, label: values.label }, { allowInsecureLoopback: allowInsecureProfiles(config) });
        printRecord(io, json, { id: record.id, key, profile: record.profile_url, label: record.label ?? undefined }, [
          'The key is shown once; only its digest is stored.',
          `Send it as: Authorization: Bearer ${record.prefix}…   or   X-API-Key: ${record.prefix}…`,
        ]);
      } else if (sub === 'list') {
        const keys = await listChannelKeys(db, shop.id);
        printList(io, json, [['id', 'ID'], ['prefix', 'PREFIX'], ['state', 'STATE'], ['profile_url', 'PROFILE'], ['label', 'LABEL']],
          keys.map((k) => ({ id: k.id, prefix: `${k.prefix}…`, state: k.revoked_at ? `revoked ${new Date(k.revoked_at).toISOString()}` : 'active', profile_url: k.profile_url, label: k.label })));
      } else {
        const k = await revokeChannelKey(db, shop.id, values.id);
        if (!k) throw new CliError(`No channel key ${values.id} on ${shop.id}.`);
        printRecord(io, json, { id: k.id, revoked_at: new Date(k.revoked_at!).toISOString() });
      }
    });
  },
};
