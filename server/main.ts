/** `npm start`: the storefront server with the embedded database and demo data. */
import { startServer } from './server.ts';
import { demoCredentialsText } from './seed/accounts.ts';
import { demoAgentProfileUrl } from './ucp/profile.ts';
import { allowInsecureProfiles } from './http/authenticate.ts';

const running = await startServer();
const { port, config } = running;
const shops = await running.db.selectFrom('shops').select(['domain', 'protocol_enabled']).orderBy('domain').execute();
console.log(`UCP storefront listening on http://${config.host}:${port} (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`})`);
if (!shops.length) console.log('  no shops yet: load one with `npm run seed -- FILE` (docs/catalog-format.md), or start with SEED_DEMO=1 for the demo shops');
for (const s of shops) {
  const base = `http://${s.domain}:${port}`;
  console.log(`  ${s.domain.padEnd(20)} ${base}/  discovery ${base}/.well-known/ucp${s.protocol_enabled ? '' : ' (protocol off: 404)'}`);
}
console.log(`  platform             http://localhost:${port}/  (account service and merchant API)`);
console.log(`  agent demo           http://agent.localhost:${port}/  (an agent page on another origin embedding the demo cart)`);
if (allowInsecureProfiles(config)) {
  // The profile agent builders name on their first call (docs/access.md "Zero setup").
  console.log(`  agent profile        ${demoAgentProfileUrl(port)}  (use it as UCP-Agent: profile="…" on REST, meta["ucp-agent"].profile on MCP)`);
}
if (config.mode === 'development') console.log(demoCredentialsText(port));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    running.close().finally(() => process.exit(0));
  });
}
