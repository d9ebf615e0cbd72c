/**
 * The storefront server as `npm start` / `ucp-storefront start` runs it: start, print the banner
 * (every shop's address, the platform, the demo credentials in development), stop on SIGINT/SIGTERM.
 * Run directly (`tsx server/main.ts`) it starts with the environment's settings.
 */
import { pathToFileURL } from 'node:url';
import { startServer } from './server.ts';
import { ConfigError, loadConfig, logJson, type Config } from './config.ts';
import { configureLog, log as serverLog } from './lib/log.ts';
import { describeStartFailure } from './db/start-failure.ts';
import { accountsText } from './seed/accounts.ts';
import { DEMO_FIXTURES } from './seed/fixtures.ts';
import { demoAgentProfileUrl } from './core/shops/ucp-profile.ts';
import { UCP_LATEST } from './version.ts';
import { allowInsecureProfiles } from './http/authenticate.ts';

/** Shops the start-up banner lists by name. */
const BANNER_SHOPS = 20;

/**
 * The one line a server that cannot start writes, then its exit: a setting refused (2), the
 * database unreachable, refusing us or missing (1, start-failure.ts), anything else (1, with its
 * stack: a bug). In production a JSON line in the log stream (`scope: "start"`, a `cause` to alert
 * on); in development a plain sentence for the person starting it, no timestamp and no stack.
 */
export function notStarting(e: unknown, config: Pick<Config, 'mode' | 'accessLog' | 'databaseUrl'>): never {
  const json = logJson(config);
  configureLog({ json });
  if (e instanceof ConfigError) {
    if (json) serverLog.error('start', `Not starting: ${e.message}`, { cause: 'setting' });
    else console.error(`Not starting: ${e.message}`);
    process.exit(2);
  }
  const known = describeStartFailure(e, config.databaseUrl);
  if (known && json) serverLog.error('start', `Not starting: ${known.sentence}`, { cause: known.cause });
  else if (known) console.error(`Not starting: ${known.sentence}`);
  else serverLog.error('start', 'Not starting: the server failed to start', { err: e });
  process.exit(1);
}

/**
 * A bug that escapes every handler (an uncaught exception, an unhandled rejection) still ends the
 * process, as Node would, but through the log: in production one JSON line (`scope: "process"`,
 * `cause: "bug"`, the stack in `err`) instead of raw text in the JSON stream; in development the
 * same line as text. Exit 1, so a process manager restarts it. Installed by the processes that
 * are a server (this file run directly, `ucp-storefront start`, the cluster), never by a caller
 * that imports main() into its own process (tests).
 */
export function logFatalErrors(): void {
  const fatal = (what: string) => (e: unknown) => {
    serverLog.error('process', `${what}: exiting`, { err: e, cause: 'bug' });
    process.exit(1);
  };
  process.on('uncaughtException', fatal('uncaught exception'));
  process.on('unhandledRejection', fatal('unhandled promise rejection'));
}

export async function main(overrides: Partial<Config> = {}, sink: (line: string) => void = (line) => serverLog.plain(line)) {
  const settings = { ...loadConfig(), ...overrides };
  configureLog({ json: logJson(settings) });
  const running = await startServer(overrides).catch((e: unknown) => notStarting(e, settings));
  // In production (and with ACCESS_LOG=1) every line is JSON, the banner and the stop lines too,
  // whoever asked for them (the CLI passes its own output): a log collector reads one format.
  const log = logJson(settings) ? (line: string) => serverLog.plain(line) : sink;
  const { port, config } = running;
  // A platform of thousands of shops lists the first few: start time does not grow with the shops.
  const shops = await running.db.selectFrom('shops').select(['domain', 'protocol_enabled']).orderBy('domain').limit(BANNER_SHOPS + 1).execute();
  log(`UCP storefront listening on http://${config.host}:${port} (${config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`})`);
  if (!shops.length) log('  no shops yet: load one with `npx ucp-storefront seed FILE` (docs/catalog-format.md), or `npx ucp-storefront seed --demo` for the demo shops');
  // Public addresses: in production the shops' own https domains and AUTH_URL (TLS ends in front of
  // us), never this process's listening address; in development the local ones.
  const production = config.mode === 'production';
  for (const s of shops.slice(0, BANNER_SHOPS)) {
    const base = production ? `https://${s.domain}` : `http://${s.domain}:${port}`;
    log(`  ${s.domain.padEnd(20)} ${base}/  discovery ${base}/.well-known/ucp${s.protocol_enabled ? '' : ' (protocol off: 404)'}`);
  }
  if (shops.length > BANNER_SHOPS) {
    const { n } = await running.db.selectFrom('shops').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    log(`  … and ${Number(n) - BANNER_SHOPS} more shops`);
  }
  log(`  platform             ${config.authUrl ?? `http://localhost:${port}`}/  (account service and merchant API)`);
  // The demo agent's origin is served in development only (server/app.ts).
  if (!production) log(`  agent demo           http://agent.localhost:${port}/  (an agent page on another origin embedding the demo cart)`);
  if (allowInsecureProfiles(config)) {
    // The profile agent builders name on their first call (docs/access.md "Zero setup").
    log(`  agent profile        ${demoAgentProfileUrl(port)}  (use it as UCP-Agent: profile="…" on REST, meta["ucp-agent"].profile on MCP)`);
    log(`  agent profile, UCP ${UCP_LATEST}  ${demoAgentProfileUrl(port, UCP_LATEST)}  (the same agent speaking UCP ${UCP_LATEST}: answers come in that version)`);
  }
  if (config.mode === 'development') {
    // The sandbox (docs/sandbox.md): where to see what an agent sent, and the demo's test fixtures.
    log(`  request inspector    http://localhost:${port}/dev/  (every shop's recent REST and MCP exchanges, with hygiene notes; \`npx ucp-storefront requests --shop demo.localhost\`)`);
    if (shops.some((s) => s.domain === 'demo.localhost')) log(`  demo fixtures        ${DEMO_FIXTURES} (docs/sandbox.md)`);
    log(await accountsText(running.db, port));
  }

  stopOnSignals(running, log);
  return running;
}

/**
 * SIGTERM (process managers, CI, `docker stop`) and SIGINT (Ctrl-C) stop the server cleanly: no
 * new connections, the requests in flight finish, the database closes, exit 0. A second signal
 * while stopping exits at once (1). `npm start` execs node (package.json), so npm's forwarded
 * signal reaches this process rather than a shell that would not pass it on (issue 29).
 */
export function stopOnSignals(running: { close(): Promise<void> }, log: (line: string) => void): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`${signal} again: exiting without waiting.`);
      process.exit(1);
    }
    stopping = true;
    log(`${signal}: stopping (finishing the requests in flight, then closing the database)…`);
    running.close().then(
      () => {
        log('Stopped.');
        process.exit(0);
      },
      (e: unknown) => {
        serverLog.error('stop', 'stopping failed', { err: e });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  logFatalErrors();
  await main();
}
