/**
 * `ucp-storefront`: the one command line of the project (docs/cli.md; bin/ucp-storefront.mjs runs
 * this file). `runCli(argv, io)` returns the exit code (-1: a server was started and keeps running),
 * so tests run commands in-process.
 */
import { pathToFileURL } from 'node:url';
import { CliError, parse, processIo, UsageError, type Command, type Io } from './cli.ts';
import { apps } from './commands/apps.ts';
import { channelKeys } from './commands/channel-keys.ts';
import { feeds } from './commands/feeds.ts';
import { importCommand } from './commands/import.ts';
import { keys } from './commands/keys.ts';
import { owners } from './commands/owners.ts';
import { reset } from './commands/reset.ts';
import { requests } from './commands/requests.ts';
import { seed } from './commands/seed.ts';
import { start } from './commands/start.ts';

export const COMMANDS: Command[] = [start, seed, importCommand, feeds, apps, owners, channelKeys, keys, reset, requests];

export const USAGE = `usage: ucp-storefront COMMAND [options]

commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(14)}${c.summary}`).join('\n')}

Every command takes --help. List and create commands take --json. Settings come from the
environment like the server's (DATABASE_URL or DATA_DIR, NODE_ENV; README "Settings").
Exit codes: 0 done, 1 failed, 2 usage mistake.`;

export async function runCli(argv: string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.err(USAGE);
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out(USAGE);
    return 0;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    io.err(`ucp-storefront: unknown command '${name}'\n\n${USAGE}`);
    return 2;
  }
  try {
    const { values, positionals } = parse(cmd, rest);
    if (values.help) {
      io.out(cmd.usage);
      return 0;
    }
    return (await cmd.run({ values, positionals, io })) ?? 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`ucp-storefront ${cmd.name}: ${e.message}\n\n${cmd.usage}`);
      return 2;
    }
    if (e instanceof CliError) {
      io.err(`ucp-storefront ${cmd.name}: ${e.message}`);
      return 1;
    }
    io.err(`ucp-storefront ${cmd.name}: ${(e as Error)?.message ?? e}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const code = await runCli(process.argv.slice(2));
  if (code >= 0) process.exit(code);
}
