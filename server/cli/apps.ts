/**
 * Registers OAuth apps: `npm run apps -- create --name X --redirect-uri U [--redirect-uri U2] [--public]`
 * prints the client id (and, for confidential apps, the secret, shown this once only).
 * `npm run apps -- list` lists apps. Uses DATABASE_URL or DATA_DIR like the server (stop a server
 * that uses the same embedded database first: PGlite is single-process). While the server runs, a
 * signed-in user can register apps at http://localhost:8080/admin instead (the platform address).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { migrateToLatest } from '../db/index.ts';
import { openForCli } from './open.ts';
import { listApps, registerApp } from '../core/accounts.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { name: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true }, public: { type: 'boolean', default: false } },
});

const ADMIN_HINT = 'Apps can also be registered at http://localhost:8080/admin (the platform address) while the server runs.';

const db = await openForCli(loadConfig());
try {
  await migrateToLatest(db);
  if (positionals[0] === 'create') {
    if (!values.name || !values['redirect-uri']?.length) throw new Error(`usage: apps create --name NAME --redirect-uri URI [--redirect-uri URI] [--public]\n${ADMIN_HINT}`);
    const { app, secret } = await registerApp(db, { name: values.name, redirectUris: values['redirect-uri'], confidential: !values.public });
    console.log(`client_id:     ${app.id}`);
    console.log(secret ? `client_secret: ${secret}   (shown once; only its digest is stored)` : 'public client: no secret; use PKCE (S256)');
    console.log(`redirect URIs: ${app.redirectUris.join(' ')}`);
  } else if (positionals[0] === 'list') {
    for (const a of await listApps(db)) console.log(`${a.id}\t${a.confidential ? 'confidential' : 'public'}\t${a.name}\t${a.redirectUris.join(' ')}`);
  } else {
    throw new Error(`usage: apps create --name NAME --redirect-uri URI [--public] | apps list\n${ADMIN_HINT}`);
  }
} catch (e) {
  console.error((e as Error).message);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
