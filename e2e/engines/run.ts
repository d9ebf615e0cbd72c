/**
 * Runs the shopper flows (./flows.ts) in Firefox ESR or WebKit against a fresh server, as
 * scripts/test-all.sh does after Playwright's Chromium run:
 *   npx tsx e2e/engines/run.ts firefox|webkit [--port N] [--only WORDS]
 * (`--only`: just the flows whose name contains WORDS, while working on one).
 * Prints one line per flow and writes `.tmp/engines-<engine>.json` ({passed, failed, flows, ms});
 * screenshots go to test-results/engines/<engine>/. Exit status 1 when a flow failed or the engine
 * could not start (that counts as one failure: never a silent skip). docs/benchmarks.md "Browsers".
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLOWS } from './flows.ts';
import { firefoxDriver, webkitDriver, type Driver } from './driver.ts';

const engine = process.argv[2];
if (engine !== 'firefox' && engine !== 'webkit') {
  console.error('usage: tsx e2e/engines/run.ts firefox|webkit [--port N] [--only WORDS]');
  process.exit(2);
}
const portArg = process.argv.indexOf('--port');
const PORT = portArg > 0 ? Number(process.argv[portArg + 1]) : engine === 'firefox' ? 8395 : 8396;
const onlyArg = process.argv.indexOf('--only');
const only = onlyArg > 0 ? process.argv[onlyArg + 1] : '';
const children: ChildProcess[] = [];
const cleanups: Array<() => void> = [];

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1', () => (s.end(), resolve(true)));
    s.on('error', () => resolve(false));
  });
async function waitPort(port: number, what: string, ms = 120_000) {
  const end = Date.now() + ms;
  while (!(await listening(port))) {
    if (Date.now() > end) throw new Error(`${what} did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
function start(cmd: string, args: string[], env: Record<string, string> = {}) {
  // Its own process group: the server script execs npx, which starts tsx, which starts node, and
  // WebKitWebDriver starts MiniBrowser; stopping the group stops them all.
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let err = '';
  child.stderr!.on('data', (b) => (err = (err + b).slice(-2000)));
  children.push(child);
  return { child, err: () => err };
}
/** SIGTERM to each group (Xvfb must get it, not SIGKILL, or it leaves its lock behind), SIGKILL after 5 s. */
async function stopAll() {
  const group = (c: ChildProcess, sig: NodeJS.Signals) => {
    try {
      process.kill(-c.pid!, sig);
    } catch {}
  };
  const alive = children.filter((c) => c.exitCode === null && c.signalCode === null);
  const exited = alive.map((c) => new Promise((r) => c.once('exit', r)));
  for (const c of alive.reverse()) group(c, 'SIGTERM');
  await Promise.race([Promise.all(exited), new Promise((r) => setTimeout(r, 5000))]);
  for (const c of alive) group(c, 'SIGKILL');
}
const which = (name: string) => execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();

/** WebKit: Xvfb on a free display, MiniBrowser's chrome allowed to shrink to 390 px, WebKitWebDriver. */
async function startWebKit(): Promise<Driver> {
  const mini = execFileSync('sh', ['-c', 'dpkg -L libwebkit2gtk-4.1-0 | grep "/MiniBrowser$"'], { encoding: 'utf8' }).trim();
  const display = `:${90 + (PORT % 10)}`;
  start(which('Xvfb'), [display, '-screen', '0', '1400x1000x24', '-nolisten', 'tcp']);
  const config = mkdtempSync(join(tmpdir(), 'ucp-webkit-'));
  mkdirSync(join(config, 'gtk-3.0'));
  writeFileSync(join(config, 'gtk-3.0', 'gtk.css'), 'headerbar *, toolbar *, .toolbar *, entry, button { min-width: 0; padding-left: 0; padding-right: 0; margin-left: 0; margin-right: 0; }\n');
  cleanups.push(() => rmSync(config, { recursive: true, force: true }));
  await new Promise((r) => setTimeout(r, 500));
  const wdPort = PORT + 1000;
  start(which('WebKitWebDriver'), [`--port=${wdPort}`], { DISPLAY: display, XDG_CONFIG_HOME: config });
  await waitPort(wdPort, 'WebKitWebDriver', 20_000);
  return webkitDriver(`http://127.0.0.1:${wdPort}`, mini);
}

async function main() {
  const began = Date.now();
  const results: Array<{ name: string; ok: boolean; ms: number; error?: string }> = [];
  const server = start('bash', ['scripts/e2e-server.sh'], { PORT: String(PORT), DATA_DIR: `.tmp/engines-db-${engine}` });
  // The MCP Apps test host (the official AppBridge) two ports up, as flows.ts expects it.
  const appsHost = start('npx', ['tsx', 'e2e/apps-host/serve.ts', String(PORT + 2)]);
  let d: Driver | undefined;
  try {
    await waitPort(PORT, 'the server').catch((e) => {
      throw new Error(`${e.message}: ${server.err()}`);
    });
    await waitPort(PORT + 2, 'the MCP Apps test host').catch((e) => {
      throw new Error(`${e.message}: ${appsHost.err()}`);
    });
    d = engine === 'firefox' ? await firefoxDriver(which('firefox-esr')) : await startWebKit();
    const shop = `http://demo.localhost:${PORT}`;
    for (const flow of FLOWS.filter((f) => f.name.includes(only))) {
      const t = Date.now();
      try {
        await flow.run(d, shop);
        results.push({ name: flow.name, ok: true, ms: Date.now() - t });
        console.log(`  ✓ ${engine}: ${flow.name} (${Date.now() - t} ms)`);
      } catch (e) {
        const error = String((e as Error).stack ?? e).split('\n').slice(0, 3).join(' ');
        results.push({ name: flow.name, ok: false, ms: Date.now() - t, error });
        console.log(`  ✘ ${engine}: ${flow.name}\n      ${error}`);
        await d.screenshot(`test-results/engines/${engine}/failed-${results.length}.png`).catch(() => {});
        await d.errors().catch(() => []);
      }
    }
  } catch (e) {
    results.push({ name: `${engine} could not start`, ok: false, ms: 0, error: String(e) });
    console.log(`  ✘ ${engine} could not start: ${String(e)}`);
  } finally {
    await d?.close().catch(() => {});
    await stopAll();
    for (const f of cleanups) f();
  }
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  mkdirSync('.tmp', { recursive: true });
  writeFileSync(`.tmp/engines-${engine}.json`, `${JSON.stringify({ engine, passed, failed, ms: Date.now() - began, flows: results }, null, 2)}\n`);
  console.log(`${engine}: ${passed} passed, ${failed} failed (${Math.round((Date.now() - began) / 1000)} s)`);
  process.exit(failed ? 1 : 0);
}
main();
