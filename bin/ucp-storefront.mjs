#!/usr/bin/env node
// `ucp-storefront` (docs/cli.md): the server and its commands are TypeScript run through tsx (a
// dependency); this launcher registers tsx's loader, then hands argv to server/cli/main.ts.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../server/cli/main.ts');
const code = await runCli(process.argv.slice(2));
if (code >= 0) process.exit(code);
