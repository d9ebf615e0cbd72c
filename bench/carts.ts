/**
 * Cart benchmarks against an already-running server (bench/run.ts starts it): durable creates
 * (plain and with a unique Idempotency-Key each), full updates (PUT) and reads, via autocannon.
 *
 *   npx tsx bench/carts.ts http://127.0.0.1:8080 [seconds]     # standalone, against `npm start`
 */
import { randomUUID } from 'node:crypto';
import { measure } from './support.ts';

export interface BenchRow {
  name: string;
  rps: number;
  p99: number;
}

const LINES = [
  [{ item: { id: 'var_tee_s_white' }, quantity: 2 }],
  [{ item: { id: 'var_candle_fig' }, quantity: 1, customizations: [{ id: 'gift_wrap', value: 'paper' }] }],
  [
    {
      item: { id: 'var_flask_steel' },
      quantity: 1,
      customizations: [
        { id: 'engraving', value: 'For Sam' },
        { id: 'gift_box', value: 'kraft' },
        { id: 'extras', value: 'card' },
      ],
    },
    { item: { id: 'var_tee_m_white' }, quantity: 1 },
  ],
];
const BODIES = LINES.map((line_items, i) => JSON.stringify({ line_items, ...(i === 2 ? { discounts: { codes: ['WELCOME10'] } } : {}) }));

interface Case {
  name: string;
  method: 'GET' | 'POST' | 'PUT';
  path: (i: number) => string;
  body?: (i: number) => string;
  headers?: () => Record<string, string>;
  expect: number;
}

async function run(opts: { url: string; host: string; durationSec: number }, c: Case): Promise<BenchRow> {
  let i = 0;
  let unexpected = 0;
  const result = await measure({
    url: opts.url,
    connections: 10,
    duration: opts.durationSec,
    requests: [
      {
        method: c.method,
        setupRequest: (req: any) => {
          const n = i++;
          return {
            ...req,
            path: c.path(n),
            headers: { host: opts.host, 'content-type': 'application/json', ...(c.headers?.() ?? {}) },
            ...(c.body ? { body: c.body(n) } : {}),
          };
        },
        onResponse: (status: number) => {
          if (status !== c.expect) unexpected++;
        },
      },
    ],
  });
  if (unexpected || result.errors) console.warn(`  ! ${c.name}: ${unexpected} unexpected statuses, ${result.errors} errors`);
  return { name: c.name, rps: Math.round(result.requests.average), p99: result.latency.p99 };
}

async function createCarts(opts: { url: string; host: string }, n: number): Promise<string[]> {
  const { request } = await import('node:http');
  const u = new URL(opts.url);
  const one = () =>
    new Promise<string>((resolve, reject) => {
      const r = request(
        { host: u.hostname, port: u.port, method: 'POST', path: '/api/ucp/carts', headers: { host: opts.host, 'content-type': 'application/json' } },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(text).id) : reject(new Error(`create ${res.statusCode}: ${text}`))));
        },
      );
      r.on('error', reject);
      r.end(BODIES[0]);
    });
  const ids: string[] = [];
  for (let k = 0; k < n; k++) ids.push(await one());
  return ids;
}

export async function benchCarts(opts: { url: string; host: string; durationSec: number }): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  rows.push(await run(opts, { name: 'cart create POST /api/ucp/carts', method: 'POST', path: () => '/api/ucp/carts', body: (n) => BODIES[n % BODIES.length], expect: 201 }));
  rows.push(
    await run(opts, {
      name: 'cart create + Idempotency-Key',
      method: 'POST',
      path: () => '/api/ucp/carts',
      body: (n) => BODIES[n % BODIES.length],
      headers: () => ({ 'idempotency-key': randomUUID() }),
      expect: 201,
    }),
  );
  const ids = await createCarts(opts, 200);
  rows.push(
    await run(opts, {
      name: 'cart update PUT /api/ucp/carts/{id}',
      method: 'PUT',
      path: (n) => `/api/ucp/carts/${ids[n % ids.length]}`,
      body: (n) => BODIES[(n + 1) % BODIES.length],
      expect: 200,
    }),
  );
  rows.push(await run(opts, { name: 'cart read GET /api/ucp/carts/{id}', method: 'GET', path: (n) => `/api/ucp/carts/${ids[n % ids.length]}`, expect: 200 }));
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.argv[2] ?? 'http://127.0.0.1:8080';
  const rows = await benchCarts({ url, host: 'demo.localhost', durationSec: Number(process.argv[3] ?? 10) });
  console.log('| benchmark | req/s | p99 ms |\n|---|---:|---:|');
  for (const r of rows) console.log(`| ${r.name} | ${r.rps} | ${r.p99} |`);
}
