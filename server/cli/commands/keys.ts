/**
 * `ucp-storefront keys`: a shop's webhook signing keys (docs/webhooks.md). `rotate` makes a new
 * current key; the old one stays published for the grace period. KEY_ENCRYPTION_SECRET must match
 * the server's.
 */
import { listShopKeys, rotateShopKey } from '../../core/access/signing-keys.ts';
import { findShopById } from '../../core/shops/shops.ts';
import { CliError, printList, printRecord, required, subcommand, UsageError, type Command } from '../cli.ts';
import { withDb } from '../open.ts';

export const keys: Command = {
  name: 'keys',
  summary: "rotate and list a shop's webhook signing keys",
  usage: `usage: ucp-storefront keys rotate --shop SHOP_ID [--grace-days N] [--json]
       ucp-storefront keys list --shop SHOP_ID [--json]

  rotate   a new current key; the previous one stays published for --grace-days (default 7)
  list     the shop's keys: kid, created, state (current, retiring until …, retired)`,
  options: { shop: { type: 'string' }, 'grace-days': { type: 'string' } },
  positionals: true,
  async run({ values, positionals, io }) {
    const sub = subcommand(positionals, ['rotate', 'list']);
    required(values, 'shop');
    const graceDays = values['grace-days'] === undefined ? 7 : Number(values['grace-days']);
    if (!Number.isFinite(graceDays) || graceDays < 0) throw new UsageError('--grace-days must be a number >= 0');
    const json = !!values.json;
    await withDb(io, async (db) => {
      if (!(await findShopById(db, values.shop))) throw new CliError(`No shop ${values.shop}.`);
      if (sub === 'rotate') {
        const r = await rotateShopKey(db, values.shop, { graceDays });
        printRecord(io, json, { new_key: r.kid, retiring: r.retired ?? null, retiring_until: r.retireAt?.toISOString() ?? null });
      } else {
        const now = new Date();
        printList(io, json, [['kid', 'KID'], ['created_at', 'CREATED'], ['state', 'STATE']],
          (await listShopKeys(db, values.shop)).map((k) => ({
            kid: k.kid,
            created_at: new Date(k.created_at).toISOString(),
            state: k.retire_at === null ? 'current' : new Date(k.retire_at) > now ? `retiring until ${new Date(k.retire_at).toISOString()}` : 'retired',
          })));
      }
    });
  },
};
