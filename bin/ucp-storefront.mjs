#!/usr/bin/env node
// `ucp-storefront` (docs/cli.md, docs/packaging.md): hands argv to the CLI. An installed package runs
// the JavaScript built before packing (dist/server/cli.js, scripts/build-server.mjs): no tsx, no
// esbuild, no TypeScript at run time. A checkout (server/ sources beside us and tsx installed, a dev
// dependency) runs the TypeScript through tsx instead, so an edit is live without a build and a
// build left over from an earlier `npm pack` is never run stale. UCP_RUN=compiled makes a checkout
// run dist/server too (the production start from a checkout, the cold-start benchmark).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';

/**
 * V8 flags for one command, set before it loads (docs/catalog-import.md "Memory"). `import`: a full
 * collection once the old generation has grown by half of what was live after the last one, instead
 * of V8's own factor (up to 4×). An import's garbage outlives the young generation (a feed's items
 * wait in Google's held window, records in their batch of 500) and is promoted; with V8's factor a
 * 100,000-product Google import peaked ~330 MB above a 10,000-product one, with this ~90 MB
 * (docs/benchmarks.md "Import"). No heap limit: a file of any size imports, the heap growing with
 * what the run keeps (its ids). Read at every collection, so setting it here works. A `node
 * --heap-growing-percent=N` on the command line wins. The server and every other command keep V8's
 * defaults.
 */
function v8FlagsFor(command, execArgv = process.execArgv) {
  if (command !== 'import' || execArgv.some((a) => a.startsWith('--heap-growing-percent') || a.startsWith('--heap_growing_percent'))) return [];
  return ['--heap-growing-percent=50'];
}

/** Stops as if sent SIGTERM (the server's own clean stop, server/main.ts), once. */
let stopping = false;
function stopLikeSigterm() {
  if (stopping) return;
  stopping = true;
  // Whoever read our output may be gone with the parent: a write to a closed pipe must not crash
  // the clean stop (EPIPE would skip the database close and the temp directory's removal).
  for (const s of [process.stdout, process.stderr]) s.on('error', () => {});
  process.kill(process.pid, 'SIGTERM');
}

// Started by startSandbox() (src/testing/sandbox.ts) with an IPC channel: the channel closes when
// the process that started us ends, however it ends (SIGKILL included, on every platform), so the
// server stops then instead of holding its port for ever (issue 39 point 9). No pid is watched.
if (process.channel) {
  process.channel.unref(); // the channel alone does not keep a stopped server alive
  process.once('disconnect', stopLikeSigterm);
} else if (process.env.npm_command && process.ppid > 1) {
  // Under npm (`npx`, `npm exec`, `npm start`) npm runs us through `sh -c` and forwards SIGTERM/
  // SIGINT to that shell, which dies without passing them on; and a SIGKILLed npm leaves the shell
  // waiting on us, our parent unchanged. So we watch our parent and, when it is that shell, npm
  // behind it: when either goes, we stop. (npm itself as our parent, `npm start`'s `exec node`, is
  // watched alone: its own parent, a CI step's shell, may end while npm serves on purpose.) Only
  // under npm: `nohup node bin/… start &` may outlive its shell on purpose.
  const parent = process.ppid;
  const shell = processInfo(parent);
  const grandparent = /^(sh|bash|dash|zsh|cmd(\.exe)?)$/i.test(shell.name) ? shell.ppid : 0;
  const watch = setInterval(() => {
    if (process.ppid === parent && (grandparent <= 1 || alive(grandparent))) return;
    clearInterval(watch);
    stopLikeSigterm();
  }, 250);
  watch.unref();
}

// A throwaway data directory startSandbox() made for us (`UCP_SANDBOX_TEMP`): removed when we exit,
// whether or not the caller's stop() runs (Ctrl-C to the whole process group, a killed test
// process). Only a directory that is one of startSandbox's: under the temp dir, its name, its mark.
const sandboxTemp = process.env.UCP_SANDBOX_TEMP;
if (sandboxTemp) {
  const dir = resolve(sandboxTemp);
  const ours = dirname(dir) === resolve(tmpdir()) && basename(dir).startsWith('ucp-sandbox-') && existsSync(join(dir, 'ucp-sandbox.json'));
  if (ours) process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
}

/** A process's command name and parent pid (`{name: '', ppid: 0}` when unreadable: Windows, no `ps`). */
function processInfo(pid) {
  try {
    if (process.platform === 'linux') {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) || 0 };
    }
    const [ppid, ...comm] = execFileSync('ps', ['-o', 'ppid=,comm=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split(/\s+/);
    return { name: basename(comm.join(' ')), ppid: Number(ppid) || 0 };
  } catch {
    return { name: '', ppid: 0 };
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** The CLI module: the TypeScript sources through tsx in a checkout, else the built JavaScript. */
async function loadCli() {
  const compiled = new URL('../dist/server/cli.js', import.meta.url);
  const sources = new URL('../server/cli/main.ts', import.meta.url);
  if (process.env.UCP_RUN !== 'compiled' && existsSync(sources)) {
    const tsx = await import('tsx/esm/api').catch(() => undefined);
    if (tsx) {
      tsx.register();
      return import(sources.href);
    }
  }
  if (existsSync(compiled)) return import(compiled.href);
  process.stderr.write('ucp-storefront: dist/server/cli.js is missing; build it with `npm run build` (or install the dev dependencies to run the sources through tsx)\n');
  process.exit(1);
}

for (const flag of v8FlagsFor(process.argv[2])) setFlagsFromString(flag);
const { runCli } = await loadCli();
const code = await runCli(process.argv.slice(2));
if (code >= 0) process.exit(code);
