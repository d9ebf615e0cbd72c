#!/usr/bin/env node
// `ucp-storefront` (docs/cli.md): the server and its commands are TypeScript run through tsx (a
// dependency); this launcher registers tsx's loader, then hands argv to server/cli/main.ts.
import { register } from 'tsx/esm/api';

// Under `npx` / `npm exec`, npm runs us through `sh -c` and forwards SIGTERM/SIGINT to that shell,
// which dies without passing them on: the server was left running, port still taken (issue 30).
// So here, when the process that started us goes away, we stop as if sent SIGTERM (the server's
// own clean stop, server/main.ts). Only under npm exec: `nohup node bin/… start &` may outlive
// its shell on purpose.
if (process.env.npm_command === 'exec' && process.ppid > 1) {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 250);
  watch.unref();
}

register();
const { runCli } = await import('../server/cli/main.ts');
const code = await runCli(process.argv.slice(2));
if (code >= 0) process.exit(code);
