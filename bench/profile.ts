/**
 * Where a request's time goes: runs the server under `node --cpu-prof`, drives one case with
 * autocannon, and prints each thread's busy time per request, split by what the code is (HTTP
 * stack, validation, domain, database client, PGlite, JSON, GC...). Used for the figures in
 * docs/benchmarks.md where a target is not met (issue 17).
 *
 *   npx tsx bench/profile.ts cart-create [seconds]
 *   npx tsx bench/profile.ts mcp-search | rest-search | mcp-create
 *   PROFILE_KEEP=1 npx tsx bench/profile.ts cart-create     # keep the .cpuprofile files
 *   PROFILE_LIMITS=on npx tsx bench/profile.ts rest-search  # with the transport limiter on (off by default)
 *   PROFILE_INLINE=off npx tsx bench/profile.ts rest-search # V8 inlining off: a small function's time is its own, not its caller's
 *   PROFILE_INSPECTOR=off npx tsx bench/profile.ts rest-search # the request inspector off (UCP_INSPECTOR), to compare
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { freePort, measure, startChild, stop } from './support.ts';

interface CallFrame {
  functionName: string;
  url: string;
}
interface Profile {
  nodes: Array<{ id: number; callFrame: CallFrame }>;
  samples: number[];
  timeDeltas: number[];
}

/** What a sampled function is, by where it lives. First match wins. */
const CATEGORIES: Array<[string, (f: CallFrame) => boolean]> = [
  ['idle', (f) => f.functionName === '(idle)'],
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['PGlite (PostgreSQL in WASM + its JS)', (f) => f.url.includes('@electric-sql/pglite') || f.url.startsWith('wasm://')],
  ['disk (WAL writes, flushes)', (f) => ['writeBuffer', 'fdatasync', 'fsync', 'writeSync'].includes(f.functionName)],
  ['worker messaging', (f) => f.functionName === 'postMessage' || f.url.includes('js_transferable') || f.url.includes('internal/worker')],
  ['socket writes', (f) => f.functionName.startsWith('writev') || f.url.includes('stream_base_commons')],
  ['MCP SDK', (f) => f.url.includes('@modelcontextprotocol')],
  ['zod (validation)', (f) => f.url.includes('/zod/')],
  ['kysely + dialect (query building)', (f) => f.url.includes('/kysely/') || f.url.includes('server/db/')],
  ['Hono + node adapter', (f) => f.url.includes('/hono/') || f.url.includes('@hono/node-server')],
  ['node http + undici', (f) => f.url.startsWith('node:_http') || f.url.includes('undici') || f.url.includes('node:internal/http')],
  ['JSON parse/stringify', (f) => f.functionName === 'parse' || f.functionName === 'stringify' || f.functionName === 'JSON.parse'],
  ['our code: request inspector', (f) => f.url.includes('/server/http/inspector/')],
  ['our code: server/mcp', (f) => f.url.includes('/server/mcp/')],
  ['our code: server/core', (f) => f.url.includes('/server/core/')],
  ['our code: server/ucp + http', (f) => f.url.includes('/server/ucp/') || f.url.includes('/server/http/') || f.url.includes('/server/app.ts')],
  ['our code: src/wire', (f) => f.url.includes('/src/wire/')],
  ['crypto', (f) => f.url.includes('crypto')],
];

function breakdown(p: Profile): Map<string, number> {
  const byId = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  const out = new Map<string, number>();
  for (let i = 0; i < p.samples.length; i++) {
    const f = byId.get(p.samples[i])!;
    const cat = CATEGORIES.find(([, test]) => test(f))?.[0] ?? 'other (node internals, program)';
    out.set(cat, (out.get(cat) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  return out;
}

const CASES: Record<string, { path: string; body: (profile: string) => string; headers?: (profile: string) => Record<string, string> }> = {
  'cart-create': { path: '/api/ucp/carts', body: () => JSON.stringify({ line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 2 }] }) },
  'rest-search': { path: '/api/ucp/catalog/search', body: () => JSON.stringify({ query: 'tee' }) },
  // The same search as mcp-search, the caller named as MCP names it (UCP-Agent instead of meta).
  'rest-search-agent': { path: '/api/ucp/catalog/search', body: () => JSON.stringify({ query: 'tee' }), headers: (profile) => ({ 'ucp-agent': `profile="${profile}"` }) },
  // The same, the demo agent speaking UCP 2026-08-25 (its profile at the version's leaf path).
  'rest-search-agent-0825': { path: '/api/ucp/catalog/search', body: () => JSON.stringify({ query: 'tee' }), headers: (profile) => ({ 'ucp-agent': `profile="${profile}/2026-08-25"` }) },
  'mcp-search': {
    path: '/mcp',
    headers: () => ({ accept: 'application/json' }),
    body: (profile) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: { 'ucp-agent': { profile } }, catalog: { query: 'tee' } } } }),
  },
  'mcp-create': {
    path: '/mcp',
    headers: () => ({ accept: 'application/json' }),
    body: (profile) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_cart', arguments: { meta: { 'ucp-agent': { profile } }, cart: { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 2 }] } } } }),
  },
};

async function main() {
  const name = process.argv[2] ?? 'cart-create';
  const seconds = Number(process.argv[3] ?? 10);
  const c = CASES[name];
  if (!c) throw new Error(`unknown case ${name}; one of ${Object.keys(CASES).join(', ')}`);
  const dir = mkdtempSync(join(tmpdir(), 'ucp-profile-'));
  try {
    execFileSync(process.execPath, ['--import', 'tsx', 'bench/prepare.ts', join(dir, 'data'), '200'], { stdio: 'inherit' });
    const port = await freePort();
    const profiles = join(dir, 'cpu');
    const server = await startChild(process.execPath, [...(process.env.PROFILE_INLINE === 'off' ? ['--no-turbo-inlining'] : []), '--cpu-prof', `--cpu-prof-dir=${profiles}`, '--import', 'tsx', 'server/main.ts'], { PORT: String(port), DATA_DIR: join(dir, 'data'), HOST: '127.0.0.1', UCP_RATE_LIMITS: process.env.PROFILE_LIMITS ?? 'off', UCP_INSPECTOR: process.env.PROFILE_INSPECTOR ?? 'on' }, /listening/);
    const profile = `http://agent.localhost:${port}/.well-known/ucp`;
    const body = c.body(profile);
    const opts = { url: `http://127.0.0.1:${port}${c.path}`, connections: 10, method: 'POST' as const, body, headers: { host: 'demo.localhost', 'content-type': 'application/json', ...c.headers?.(profile) } };
    await measure({ ...opts, duration: 2 }); // warm-up, in the profile too (small next to the run)
    const started = Date.now();
    const result = await measure({ ...opts, duration: seconds });
    const wall = Date.now() - started;
    await stop(server); // SIGTERM: the profiles are written on exit
    const requests = result.requests.total;
    console.log(`\n${name}: ${Math.round(result.requests.average)} req/s over ${seconds} s (${requests} requests, ${result.non2xx} non-2xx)`);
    for (const file of readdirSync(profiles).sort()) {
      const p = JSON.parse(readFileSync(join(profiles, file), 'utf8')) as Profile;
      const cats = breakdown(p);
      const busy = [...cats].filter(([k]) => k !== 'idle').reduce((a, [, v]) => a + v, 0);
      // The module loader's thread (tsx) does its work at startup only.
      if (!cats.has('our code: server/ucp + http') && !cats.has('PGlite (PostgreSQL in WASM + its JS)')) continue;
      if (busy < 0.05 * wall * 1000) continue;
      const thread = cats.has('PGlite (PostgreSQL in WASM + its JS)') && (cats.get('PGlite (PostgreSQL in WASM + its JS)') ?? 0) > busy * 0.2 ? 'database worker thread' : 'main thread';
      console.log(`\n  ${thread}: ${((busy / 1000 / requests) * 1000).toFixed(0)} µs busy per request (startup included)`);
      for (const [k, v] of [...cats].filter(([k]) => k !== 'idle').sort((a, b) => b[1] - a[1])) {
        console.log(`    ${k.padEnd(40)} ${((v / busy) * 100).toFixed(1).padStart(5)}%  ${((v / requests)).toFixed(0).padStart(5)} µs/request`);
      }
    }
  } finally {
    // PROFILE_KEEP=1 keeps the .cpuprofile files (open them in Chrome DevTools) and says where.
    if (process.env.PROFILE_KEEP) console.log(`\nprofiles kept in ${join(dir, 'cpu')}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

await main();
