/**
 * `ucp-storefront requests --shop ID_OR_DOMAIN`: the running development server's request
 * inspector for one shop (docs/sandbox.md), oldest first like a log: one line per exchange, its
 * hygiene notes underneath; `--json` one JSON object per line; `--follow` keeps asking for newer
 * ones (`?since=`) once a second until interrupted.
 */
import { CliError, required, UsageError, type Command, type Io } from '../cli.ts';
import { describeAddress, serverAddress, type ServerAddress } from '../server-address.ts';

const MAX_LIMIT = 100;
const FOLLOW_EVERY_MS = 1000;

interface Exchange {
  id: number;
  at: string;
  transport: string;
  method: string;
  operation: string;
  status: number;
  duration_ms: number;
  agent: string | null;
  idempotency_key: string | null;
  notes: Array<{ code: string; message: string }>;
}

async function fetchPage(addr: ServerAddress, shop: string, query: string): Promise<{ exchanges: Exchange[]; since: number }> {
  const url = `${addr.url}/dev/shops/${encodeURIComponent(shop)}/requests?${query}`;
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message;
    throw new CliError(`no server answered at ${describeAddress(addr)}: ${cause}. Start one with \`npx ucp-storefront start\` (development mode), or name it with --server URL.`);
  }
  const body = (await res.json().catch(() => null)) as { content?: string; exchanges?: Exchange[]; since?: number } | null;
  if (res.ok && body?.exchanges) return { exchanges: body.exchanges, since: body.since ?? 0 };
  if (res.status === 404 && body?.content?.startsWith('Nothing at')) {
    throw new CliError(`the server at ${addr.url} has no request inspector: it runs in production mode (NODE_ENV=production), where development routes are absent.`);
  }
  throw new CliError(`${addr.url} answered ${res.status}: ${body?.content ?? 'no JSON body'}`);
}

function print(io: Io, json: boolean, x: Exchange): void {
  if (json) return io.out(JSON.stringify(x));
  const time = x.at.slice(11, 23);
  const extra = [x.agent ? `agent ${x.agent}` : 'no agent', x.idempotency_key ? `key ${x.idempotency_key}` : ''].filter(Boolean).join('  ');
  io.out(`#${x.id}  ${time}  ${x.transport.padEnd(8)} ${x.operation.padEnd(16)} ${x.status}  ${`${x.duration_ms} ms`.padStart(9)}  ${extra}`);
  for (const n of x.notes) io.out(`    ! ${n.code}: ${n.message}`);
}

const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

export const requests: Command = {
  name: 'requests',
  summary: "show a shop's recent UCP exchanges and their hygiene notes (running development server)",
  usage: `usage: ucp-storefront requests --shop ID_OR_DOMAIN [--limit N] [--follow] [--json] [--server URL]

  Prints the shop's recent exchanges (REST, MCP, host.js on its pages, the embedded cart) as the
  running development server's request inspector recorded them, oldest first: time, transport,
  operation, status, duration, agent profile, idempotency key, then each hygiene note indented
  (docs/sandbox.md). Bodies are in --json and on the page at http://localhost:PORT/dev/.
    --shop      the shop's id (shop_demo) or domain (demo.localhost)
    --limit N   how many of the most recent (1-${MAX_LIMIT}, default 20)
    --follow    keep printing new exchanges until interrupted (Ctrl-C)
    --json      one JSON object per line, bodies included
    --server    the server's address; default: the one the server holding DATA_DIR recorded,
                else http://HOST:PORT from the environment (127.0.0.1:8080)`,
  options: { shop: { type: 'string' }, limit: { type: 'string' }, follow: { type: 'boolean' }, server: { type: 'string' } },
  async run({ values, io }) {
    required(values, 'shop');
    const limit = values.limit === undefined ? 20 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT || !/^\d+$/.test(values.limit ?? '20')) throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}; got '${values.limit}'`);
    const addr = serverAddress(io.env, values.server);
    const first = await fetchPage(addr, values.shop, `limit=${limit}`);
    for (const x of first.exchanges.reverse()) print(io, !!values.json, x);
    if (!values.follow) {
      if (!first.exchanges.length && !values.json) io.out(`none yet: send ${values.shop} a request (or watch ${addr.url}/dev/)`);
      return;
    }
    let since = first.since;
    while (!io.signal?.aborted) {
      await wait(FOLLOW_EVERY_MS, io.signal);
      if (io.signal?.aborted) break;
      const next = await fetchPage(addr, values.shop, `since=${since}`);
      for (const x of next.exchanges.reverse()) print(io, !!values.json, x);
      since = next.since;
    }
  },
};
