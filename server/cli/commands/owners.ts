/**
 * `ucp-storefront owners`: the accounts that own a shop (docs/cli.md "owners"). An owner signs in
 * at /admin and through the OAuth flow, and apps act on their shop with the tokens they grant. A
 * shop loaded from a file has none until one is created here. The password is read from standard
 * input (never an argument: those show in `ps` and shell history) and hashed by the accounts core,
 * as every account's is; removing an owner revokes everything issued to them at once.
 */
import { createOwner as createOwnerAccount, deleteUser, listUsers, normalizeEmail, PASSWORD_RULES } from '../../core/accounts/accounts.ts';
import { findShopById } from '../../core/shops/shops.ts';
import { CliError, printList, printRecord, readStdinLine, required, subcommand, UsageError, type Command, type Io } from '../cli.ts';
import { withDb } from '../open.ts';

const SERVER_HOLDS_IT = 'Stop the server first (the embedded database is one process), or run both on PostgreSQL (DATABASE_URL).';

export const owners: Command = {
  name: 'owners',
  summary: 'create, list and remove the accounts that own a shop',
  usage: `usage: ucp-storefront owners create --shop SHOP_ID --email EMAIL --password-stdin [--name NAME] [--platform-admin] [--json]
       ucp-storefront owners list [--shop SHOP_ID] [--json]
       ucp-storefront owners remove --email EMAIL [--json]

  create   an account owning the shop: it signs in at /admin and through the OAuth flow
           (password: one line on standard input, at least ${PASSWORD_RULES.minLength} characters)
  list     every owner, or one shop's (email, name, shop, created)
  remove   deletes the account and revokes its tokens, codes, sessions and the apps it registered

  --password-stdin   read the password from standard input: printf '%s\\n' "$PASSWORD" | ucp-storefront owners create …
  --name             the name shown on the consent page (default: the e-mail's local part)
  --platform-admin   the account may also create owners for any shop from /admin`,
  options: { shop: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, 'password-stdin': { type: 'boolean' }, 'platform-admin': { type: 'boolean' } },
  positionals: true,
  async run({ values, positionals, io }) {
    const sub = subcommand(positionals, ['create', 'list', 'remove']);
    const json = !!values.json;
    if (sub === 'create') return createOwner(values, io, json);
    if (sub === 'list') {
      if (values.email || values.name || values['password-stdin'] || values['platform-admin']) throw new UsageError('list takes only --shop');
      const rows = await withDb(io, async (db) => {
        if (values.shop !== undefined && !(await findShopById(db, values.shop))) throw new CliError(`No shop ${values.shop}.`);
        return listUsers(db, values.shop);
      });
      printList(io, json, [['email', 'EMAIL'], ['name', 'NAME'], ['shop', 'SHOP'], ['created', 'CREATED']],
        rows.map((u) => ({ id: u.id, email: u.username, name: u.name, shop: u.merchantId, created: u.createdAt.toISOString(), platform_admin: u.platformAdmin })));
      return;
    }
    required(values, 'email');
    if (values.shop || values.name || values['password-stdin'] || values['platform-admin']) throw new UsageError('remove takes only --email');
    const removed = await withDb(io, (db) => deleteUser(db, values.email), SERVER_HOLDS_IT);
    if (!removed) throw new CliError(`No owner ${values.email}.`);
    printRecord(io, json, { id: removed.id, email: removed.username, shop: removed.merchantId, apps_deleted: removed.apps }, ['Removed; every token, code and session issued to this account is revoked.']);
  },
};

async function createOwner(values: Record<string, any>, io: Io, json: boolean): Promise<void> {
  required(values, 'shop', 'email');
  if (!values['password-stdin']) throw new UsageError('--password-stdin is required: the password is read from standard input, never from an argument');
  // Mistakes in the command line itself are usage errors (exit 2), before standard input is read.
  const email = normalizeEmail(values.email);
  if (!email.ok) throw new UsageError(email.problem);
  if (values.name !== undefined && !values.name.trim()) throw new UsageError('--name is empty');
  const password = await readStdinLine(io);
  const created = await withDb(io, (db) => createOwnerAccount(db, { shopId: values.shop, email: values.email, name: values.name, password, platformAdmin: !!values['platform-admin'] }), SERVER_HOLDS_IT);
  if (!created.ok) {
    if (created.field === 'password') throw new CliError(`${created.problem}; nothing created`);
    if (created.field === 'shop') throw new CliError(`No shop ${values.shop}.`);
    throw new CliError(`${created.problem}.`);
  }
  const { user } = created;
  const notes = [`${user.username} can sign in at /admin on the platform address and authorize apps for ${user.merchantId}.`];
  if (user.platformAdmin) notes.push('As a platform administrator it can also create owners for any shop there.');
  printRecord(io, json, { id: user.id, email: user.username, name: user.name, shop: user.merchantId, platform_admin: user.platformAdmin }, notes);
}
