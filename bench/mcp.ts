/**
 * MCP benchmarks against an already-running server (bench/run.ts starts it): `tools/list` and
 * `search_catalog` as plain JSON-RPC POSTs (the ucp-cli style: no initialize, no session,
 * Accept: application/json), beside REST catalog search with the same queries in the same run, so
 * the MCP/REST ratio is measured rather than inferred; `create_cart` beside REST cart create the same
 * way. Target (issue 17): MCP >= 85% of REST for both.
 *
 *   npx tsx bench/mcp.ts http://127.0.0.1:8080 [seconds]     # standalone, against `npm start`
 */
import { alternatingSlices, cpuSeconds, measure, median, pct, spread } from './support.ts';

export interface BenchRow {
  name: string;
  rps: number;
  p99: number;
  /** The server process's CPU (all its threads) per answered call, in µs, when its pid is known. */
  cpuUs?: number;
}

type Target = { url: string; host: string; durationSec: number; warmupSec?: number; serverPid?: number };

const QUERIES = ['flask', 'tee', 'linen', 'candle', 'sweater', 'socks', 'beanie', 'hoodie'];
/** The calling platform's profile: bench/run.ts serves one on loopback (BENCH_PROFILE_URL). */
const PROFILE = process.env.BENCH_PROFILE_URL ?? 'https://platform.example/.well-known/ucp';
const META = { 'ucp-agent': { profile: PROFILE } };
/** REST names the same caller in a header: the same request as the MCP call, not an anonymous one. */
const AGENT = { 'ucp-agent': `profile="${PROFILE}"` };

interface Case {
  name: string;
  path: string;
  body: (i: number) => string;
  headers: Record<string, string>;
  /** Checks a response body; counted as unexpected when false. */
  ok: (status: number, body: string) => boolean;
}

async function run(opts: Target, c: Case): Promise<BenchRow> {
  let i = 0;
  let unexpected = 0;
  // The bodies made before the clock starts: the load generator shares the machine's two cores with
  // the server, and a 2026-07-28 body (the `_meta` envelope) costs it more to stringify per call.
  const bodies = Array.from({ length: 64 }, (_, n) => c.body(n));
  const before = opts.serverPid !== undefined && !opts.warmupSec ? cpuSeconds(opts.serverPid) : undefined;
  const result = await measure({
    url: opts.url,
    connections: 10,
    duration: opts.durationSec,
    requests: [
      {
        method: 'POST',
        setupRequest: (req: any) => ({ ...req, path: c.path, headers: { host: opts.host, 'content-type': 'application/json', ...c.headers }, body: bodies[i++ % bodies.length] }),
        onResponse: (status: number, body: string) => {
          if (!c.ok(status, body)) unexpected++;
        },
      },
    ],
  }, opts.warmupSec);
  const cpuUs = before !== undefined ? Math.round((1e6 * (cpuSeconds(opts.serverPid!) - before)) / Math.max(1, result.requests.total)) : undefined;
  if (unexpected || result.errors) console.warn(`  ! ${c.name}: ${unexpected} unexpected responses, ${result.errors} errors`);
  return { name: c.name, rps: Math.round(result.requests.average), p99: result.latency.p99, ...(cpuUs !== undefined ? { cpuUs } : {}) };
}

const JSON_RPC = { accept: 'application/json' };
const MODERN = '2026-07-28';
/** What a 2026-07-28 client puts in `params._meta` on every request (server/mcp/eras.ts). */
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
const rpcOk = (status: number, body: string) => status === 200 && !body.includes('"error":{');

export async function benchMcp(opts: Target): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  rows.push(
    await run(opts, {
      name: 'mcp tools/list (JSON-RPC)',
      path: '/mcp',
      headers: JSON_RPC,
      body: (n) => JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/list', params: { arguments: { meta: META } } }),
      ok: rpcOk,
    }),
  );
  // MCP and REST search alternate in short rounds so load drift on the machine hits both alike.
  const mcpSearch: Case = {
    name: 'mcp tools/call search_catalog',
    path: '/mcp',
    headers: JSON_RPC,
    body: (n) =>
      JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: META, catalog: { query: QUERIES[n % QUERIES.length] } } } }),
    ok: rpcOk,
  };
  const restSearch: Case = {
    name: 'rest search (same queries and caller, for the MCP ratio)',
    path: '/api/ucp/catalog/search',
    headers: AGENT,
    body: (n) => JSON.stringify({ query: QUERIES[n % QUERIES.length] }),
    ok: (status) => status === 200,
  };
  // The same call in the 2026-07-28 era: the `_meta` envelope and its headers, no session either.
  const modernSearch: Case = {
    name: 'mcp tools/call search_catalog, 2026-07-28 era',
    path: '/mcp',
    headers: { ...JSON_RPC, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'search_catalog' },
    body: (n) =>
      JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: META, catalog: { query: QUERIES[n % QUERIES.length] } }, _meta: ENVELOPE } }),
    ok: rpcOk,
  };
  // Cart creates the same way: one line, durable, MCP create_cart vs REST POST /carts.
  const LINE = [{ item: { id: 'var_tee_s_white' }, quantity: 2 }];
  const mcpCreate: Case = {
    name: 'mcp tools/call create_cart',
    path: '/mcp',
    headers: JSON_RPC,
    body: (n) => JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'create_cart', arguments: { meta: META, cart: { line_items: LINE } } } }),
    ok: rpcOk,
  };
  const restCreate: Case = {
    name: 'rest cart create (same line and caller, for the MCP ratio)',
    path: '/api/ucp/carts',
    headers: AGENT,
    body: () => JSON.stringify({ line_items: LINE }),
    ok: (status) => status === 201,
  };
  // Each pair: BENCH_SLICES pairs (default 6) of slices of BENCH_SLICE_SECONDS (default half of the
  // duration), warm, alternating which side goes first (support.ts alternatingSlices); the figure is
  // the median pair's ratio with the pairs' min–max. Three summed rounds (the method before
  // 2026-12-02 afternoon) put one side's ratio anywhere in 75-105 % from run to run.
  const pairCount = Math.max(1, Number(process.env.BENCH_SLICES ?? 6));
  const slice = { ...opts, durationSec: Math.max(1, Number(process.env.BENCH_SLICE_SECONDS ?? Math.round(opts.durationSec / 2))), warmupSec: 0 };
  // BENCH_MCP_PAIRS=search,era,create (default all) picks which pairs run.
  const only = new Set((process.env.BENCH_MCP_PAIRS ?? 'search,era,create').split(','));
  const pairs = [
    ['search', mcpSearch, restSearch, 'search_catalog / rest search', 60],
    ['era', modernSearch, mcpSearch, 'search_catalog 2026-07-28 / 2025 era', 100],
    ['create', mcpCreate, restCreate, 'create_cart / rest cart create', 75],
  ] as const;
  for (const [key, mcpCase, restCase, label, target] of pairs) {
    if (!only.has(key)) continue;
    // One warm-up run of each side first: the slices then measure warm code.
    await run({ ...opts, durationSec: 1 }, mcpCase);
    await run({ ...opts, durationSec: 1 }, restCase);
    const s = await alternatingSlices(pairCount, 0, () => run(slice, mcpCase), () => run(slice, restCase));
    const mid = (xs: BenchRow[], k: 'rps' | 'p99') => Math.round(median(xs.map((x) => x[k])));
    rows.push({ name: `${mcpCase.name}: ${spread(s.ratios, pct)} of ${label.split(' / ')[1]} (median pair, min–max of ${s.ratios.length})`, rps: mid(s.a, 'rps'), p99: mid(s.a, 'p99') });
    if (!rows.some((x) => x.name === restCase.name)) rows.push({ name: restCase.name, rps: mid(s.b, 'rps'), p99: mid(s.b, 'p99') });
    console.log(`  mcp ${label} = ${spread(s.ratios, pct)} (median pair, min–max; target >= ${target}%)`);
    console.log(`    pairs: ${s.ratios.map(pct).join(', ')}`);
    if (opts.serverPid !== undefined) console.log(`    server CPU per call: ${spread((s.a as BenchRow[]).map((x) => x.cpuUs!))} µs vs ${spread((s.b as BenchRow[]).map((x) => x.cpuUs!))} µs`);
  }
  rows.push(...(await connectTimes(opts)));
  return rows;
}

/**
 * Connect time: a v1 SDK client (`initialize` + `notifications/initialized`) beside a v2 client in
 * `auto` mode (`server/discover`, then 2026-07-28), each connect and first `tools/list` timed,
 * alternating, 40 of each; rps is connects/s one at a time, p99 the slowest but one.
 */
async function connectTimes(opts: { url: string; host: string }): Promise<BenchRow[]> {
  const { Client: V1 } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport: V1Http } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { Client: V2, StreamableHTTPClientTransport: V2Http } = await import('@modelcontextprotocol/client');
  // The clients reach the shop by its own name (`*.localhost` resolved to loopback in this process).
  const shim = '../test/support/localhost-dns.mjs';
  await import(shim);
  const url = new URL(`http://${opts.host}:${new URL(opts.url).port}/mcp`);
  const kinds = {
    v1: async () => {
      const c = new V1({ name: 'bench-v1', version: '1' });
      await c.connect(new V1Http(url));
      await c.listTools();
      await c.close();
    },
    'v2 auto': async () => {
      const c = new V2({ name: 'bench-v2', version: '2' }, { versionNegotiation: { mode: 'auto' } } as never);
      await c.connect(new V2Http(url));
      await c.listTools();
      await c.close();
    },
  };
  const times: Record<string, number[]> = { v1: [], 'v2 auto': [] };
  for (let i = 0; i < 40; i++) {
    for (const name of (i % 2 ? ['v2 auto', 'v1'] : ['v1', 'v2 auto']) as Array<keyof typeof kinds>) {
      const t0 = performance.now();
      await kinds[name]();
      times[name].push(performance.now() - t0);
    }
  }
  return Object.entries(times).map(([name, ms]) => {
    const sorted = ms.sort((a, b) => a - b);
    const median = sorted[sorted.length >> 1];
    console.log(`  mcp connect + tools/list, ${name}: median ${median.toFixed(1)} ms`);
    return { name: `mcp connect + tools/list (${name} client), median ${median.toFixed(1)} ms`, rps: Math.round(1000 / median), p99: Math.round(sorted.at(-2)!) };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.argv[2] ?? 'http://127.0.0.1:8080';
  const seconds = Number(process.argv[3] ?? 10);
  const rows = await benchMcp({ url, host: 'demo.localhost', durationSec: seconds });
  for (const r of rows) console.log(`${r.name.padEnd(48)} ${String(r.rps).padStart(7)} req/s   p99 ${r.p99} ms`);
}
