/**
 * `ucp-storefront apps`: OAuth apps of the account service (docs/oauth.md). While the server runs
 * on the embedded database, register apps at http://localhost:8080/admin instead.
 */
import { listApps, registerApp } from '../../core/accounts/accounts.ts';
import { printList, printRecord, required, subcommand, UsageError, type Command } from '../cli.ts';
import { withDb } from '../open.ts';

export const apps: Command = {
  name: 'apps',
  summary: 'register and list OAuth apps',
  usage: `usage: ucp-storefront apps create --name NAME --redirect-uri URI [--redirect-uri URI ...] [--public] [--json]
       ucp-storefront apps list [--json]

  create   registers an app; prints its client_id and, for a confidential app, its secret (shown once)
  list     lists every app (id, type, name, redirect URIs)

  --public   a public client (PKCE, no secret); default: confidential
Apps can also be registered at http://localhost:8080/admin (the platform address) while the server runs.`,
  options: { name: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true }, public: { type: 'boolean' } },
  positionals: true,
  async run({ values, positionals, io }) {
    const sub = subcommand(positionals, ['create', 'list']);
    if (sub === 'list') {
      if (values.name || values['redirect-uri'] || values.public) throw new UsageError('list takes no --name, --redirect-uri or --public');
      const rows = await withDb(io, (db) => listApps(db));
      printList(io, !!values.json, [['id', 'CLIENT_ID'], ['type', 'TYPE'], ['name', 'NAME'], ['redirect_uris', 'REDIRECT_URIS']],
        rows.map((a) => ({ id: a.id, type: a.confidential ? 'confidential' : 'public', name: a.name, redirect_uris: a.redirectUris })));
      return;
    }
    required(values, 'name', 'redirect-uri');
    const { app, secret } = await withDb(io, (db) => registerApp(db, { name: values.name, redirectUris: values['redirect-uri'], confidential: !values.public }));
    printRecord(io, !!values.json, { client_id: app.id, client_secret: secret ?? undefined, type: secret ? 'confidential' : 'public', redirect_uris: app.redirectUris },
      [secret ? 'The secret is shown once; only its digest is stored.' : 'Public client: no secret; use PKCE (S256).']);
  },
};
