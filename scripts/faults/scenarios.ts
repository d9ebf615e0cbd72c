/**
 * Crash and fault scenarios, each returning a report instead of throwing:
 *
 * - {@link killDuringWrites}: the server is `kill -9`ed while carts, orders and OAuth tokens are
 *   being created; after a restart on the same database, every write that was acknowledged with a
 *   2xx must be there with the content it was acknowledged with.
 * - {@link databaseRestartDuringWrites} (PostgreSQL): the database server restarts (immediate
 *   stop = crash recovery) under the same load; every answer is a 2xx or a 503 with Retry-After
 *   (never a 500, never wrong data), the service resumes by itself, and every 2xx write is there.
 */
import { randomUUID } from 'node:crypto';
import { Browser, authorizeInBrowser, REDIRECT, tokensFor } from '../../test/support/oauth.ts';
import type { TestServer } from '../../test/support/server.ts';
import { CART_BODY, prepareDatabase, send, sleep, spawnServer, type Reply, type ServerProcess } from './lib.ts';

export interface ScenarioResult {
  name: string;
  pass: boolean;
  /** One line per check, `ok ...` or `FAIL ...`. */
  lines: string[];
}

const SHOP_HOST = 'demo.localhost';
const PLATFORM = '127.0.0.1';
const MERCHANT = '/merchants/shop_demo/3.0';

interface Acked {
  carts: Map<string, number>; // cart id -> quantity acknowledged
  keyed: Map<string, { id: string; qty: number }>; // idempotency key -> acknowledged cart
  orders: Map<string, number>; // order id -> quantity
  tokens: string[]; // access tokens acknowledged
  statuses: Map<number, number>;
  bad: string[]; // answers that are neither 2xx nor 503+Retry-After (status 0 = connection failed: allowed while down)
}

interface Setup {
  access: string;
  refresh: string;
  customerId: string;
}

async function setup(p: ServerProcess): Promise<Setup> {
  const t = await tokensFor({ url: p.url } as TestServer, 'customers_read customers_write sales_read sales_write');
  const cus = await send(p.port, PLATFORM, 'POST', `${MERCHANT}/customers`, { email: `fault-${randomUUID()}@example.com` }, { authorization: `Bearer ${t.access_token}` });
  if (cus.status !== 201) throw new Error(`customer: ${cus.status} ${cus.text}`);
  return { access: t.access_token, refresh: t.refresh_token!, customerId: cus.body.id };
}

function note(a: Acked, r: Reply, what: string): boolean {
  a.statuses.set(r.status, (a.statuses.get(r.status) ?? 0) + 1);
  if (r.status >= 200 && r.status < 300) return true;
  if (r.status === 0) return false; // no answer: the process is gone or restarting
  if (r.status === 503 && r.headers['retry-after']) return false;
  if (a.bad.length < 10) a.bad.push(`${what}: ${r.status} ${r.text.slice(0, 160)}`);
  else a.bad.push('');
  return false;
}

/** Write load until `until()` is true: `conc` cart writers, one order writer, one token refresher. */
const newAcked = (): Acked => ({ carts: new Map(), keyed: new Map(), orders: new Map(), tokens: [], statuses: new Map(), bad: [] });

/**
 * Lets the load run at least `seconds`, then until it has acknowledged enough of every kind to
 * prove something (a busy machine is slow), at most `maxSeconds`.
 */
async function loadFor(a: Acked, seconds: number, maxSeconds = 40): Promise<void> {
  const start = Date.now();
  await sleep(seconds * 1000);
  while (Date.now() - start < maxSeconds * 1000 && (a.carts.size < 20 || a.orders.size < 3 || a.tokens.length < 2)) await sleep(100);
}

async function writeLoad(a: Acked, getPort: () => number, s: Setup, until: () => boolean, conc = 6): Promise<Acked> {
  const carts = async (w: number) => {
    for (let i = 0; !until(); i++) {
      const qty = 1 + ((i + w) % 9);
      const keyed = i % 2 === 0;
      const key = randomUUID();
      const r = await send(getPort(), SHOP_HOST, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: qty }] }, keyed ? { 'idempotency-key': key } : {}, 5000);
      if (note(a, r, 'create cart')) {
        a.carts.set(r.body.id, qty);
        if (keyed) a.keyed.set(key, { id: r.body.id, qty });
      } else if (r.status === 0) await sleep(50);
    }
  };
  const orders = async () => {
    for (let i = 0; !until(); i++) {
      const qty = 1 + (i % 5);
      const r = await send(getPort(), PLATFORM, 'POST', `${MERCHANT}/orders`, { customer_id: s.customerId, items: [{ variant_id: 'var_tee_s_white', quantity: qty }] }, { authorization: `Bearer ${s.access}` }, 5000);
      if (note(a, r, 'create order')) a.orders.set(r.body.id, qty);
      else if (r.status === 0) await sleep(50);
    }
  };
  // Tokens from independent authorization-code grants (one browser session, kept in the database):
  // rotation never revokes an earlier one, so every acknowledged token must still work afterwards.
  const browser = new Browser(`http://127.0.0.1:${getPort()}`);
  const tokens = async () => {
    while (!until()) {
      let code: string | null = null;
      try {
        const cb = await authorizeInBrowser({ url: `http://127.0.0.1:${getPort()}` } as TestServer, { client_id: 'demo-app', scope: 'customers_read' }, { browser });
        code = cb.searchParams.get('code');
      } catch (e) {
        // `authorize: 503 ...`: a status from a step of the flow; a fetch failure: no answer.
        const status = Number(/^\w+: (\d{3})/.exec((e as Error).message)?.[1] ?? 0);
        note(a, { status, headers: { 'retry-after': status === 503 ? 'assumed' : undefined }, text: (e as Error).message, body: undefined }, 'authorize');
        await sleep(50);
        continue;
      }
      const form = new URLSearchParams({ grant_type: 'authorization_code', code: code ?? '', redirect_uri: REDIRECT, client_id: 'demo-app', client_secret: 'demo-secret' }).toString();
      const r = await send(getPort(), PLATFORM, 'POST', '/oauth2/access_token', form, { 'content-type': 'application/x-www-form-urlencoded' }, 5000);
      if (note(a, r, 'token')) a.tokens.push(r.body.access_token);
      else if (r.status === 0) await sleep(50);
    }
  };
  await Promise.all([...Array.from({ length: conc }, (_, w) => carts(w)), orders(), tokens()]);
  return a;
}

/** Every acknowledged write, read back through the API of a running server. */
async function verify(p: ServerProcess, s: Setup, a: Acked, lines: string[]): Promise<boolean> {
  let ok = true;
  const missing: string[] = [];
  const wrong: string[] = [];
  const ids = [...a.carts];
  for (let i = 0; i < ids.length; i += 16) {
    await Promise.all(
      ids.slice(i, i + 16).map(async ([id, qty]) => {
        const r = await send(p.port, SHOP_HOST, 'GET', `/api/ucp/carts/${id}`);
        if (r.status !== 200 || r.body?.id !== id) missing.push(`cart ${id} (${r.status})`);
        else if (r.body.line_items?.[0]?.quantity !== qty) wrong.push(`cart ${id}: quantity ${r.body.line_items?.[0]?.quantity}, acknowledged ${qty}`);
      }),
    );
  }
  // Replaying an acknowledged key returns the acknowledged cart, not a new one.
  for (const [key, { id, qty }] of [...a.keyed].slice(0, 25)) {
    const r = await send(p.port, SHOP_HOST, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: qty }] }, { 'idempotency-key': key });
    if (r.body?.id !== id) wrong.push(`replay of key ${key}: ${r.status} ${r.body?.id}, acknowledged ${id}`);
  }
  const access = s.access;
  for (const [id, qty] of a.orders) {
    const r = await send(p.port, PLATFORM, 'GET', `${MERCHANT}/orders/${id}`, undefined, { authorization: `Bearer ${access ?? ''}` });
    if (r.status !== 200) missing.push(`order ${id} (${r.status})`);
    else if (r.body.items?.[0]?.quantity !== qty) wrong.push(`order ${id}: quantity ${r.body.items?.[0]?.quantity}, acknowledged ${qty}`);
  }
  for (const t of a.tokens) {
    const r = await send(p.port, PLATFORM, 'GET', '/oauth2/resource', undefined, { authorization: `Bearer ${t}` });
    if (r.status !== 200) missing.push(`token …${t.slice(-6)} (${r.status})`);
  }
  const counts = `${a.carts.size} carts (${a.keyed.size} with keys), ${a.orders.size} orders, ${a.tokens.length} tokens acknowledged`;
  if (missing.length) {
    ok = false;
    lines.push(`FAIL ${missing.length} acknowledged writes missing after restart: ${missing.slice(0, 5).join(', ')}`);
  } else lines.push(`ok   all acknowledged writes present: ${counts}`);
  if (wrong.length) {
    ok = false;
    lines.push(`FAIL ${wrong.length} writes differ from what was acknowledged: ${wrong.slice(0, 5).join('; ')}`);
  } else lines.push('ok   every write reads back as acknowledged; acknowledged keys replay the same cart');
  if (!a.carts.size || !a.orders.size || !a.tokens.length) {
    ok = false;
    lines.push(`FAIL the load acknowledged too little to prove anything: ${counts}`);
  }
  return ok;
}

function statusLine(a: Acked): string {
  return [...a.statuses].sort(([x], [y]) => x - y).map(([s, n]) => `${s === 0 ? 'no answer' : s}×${n}`).join(', ');
}

export interface DatabaseTarget {
  /** Label: `embedded` or `PostgreSQL`. */
  label: string;
  env: Record<string, string>;
}

/** kill -9 under write load, restart on the same database, check every acknowledged write. */
export async function killDuringWrites(target: DatabaseTarget, opts: { seconds?: number } = {}): Promise<ScenarioResult> {
  const name = `kill -9 under write load (${target.label})`;
  const lines: string[] = [];
  let server: ServerProcess | undefined;
  try {
    await prepareDatabase({ databaseUrl: target.env.DATABASE_URL, dataDir: target.env.DATA_DIR });
    server = await spawnServer({ env: target.env });
    const port = server.port;
    const s = await setup(server);
    let done = false;
    const acked = newAcked();
    const loadDone = writeLoad(acked, () => port, s, () => done);
    await loadFor(acked, opts.seconds ?? 3);
    server.child.kill('SIGKILL');
    const exit = await server.exited;
    lines.push(`ok   server killed (${exit.signal}) mid-load`);
    // Keep the writers going against the dead port for a moment, then stop them.
    await sleep(300);
    done = true;
    const a = await loadDone;
    lines.push(`     answers: ${statusLine(a)}`);
    server = await spawnServer({ env: target.env, port });
    lines.push('ok   restarted on the same database');
    let ok = await verify(server, s, a, lines);
    if (a.bad.length) {
      ok = false;
      lines.push(`FAIL ${a.bad.length} answers were neither 2xx nor 503+Retry-After: ${a.bad.filter(Boolean).slice(0, 3).join(' | ')}`);
    }
    const after = await send(server.port, SHOP_HOST, 'POST', '/api/ucp/carts', CART_BODY);
    if (after.status !== 201) {
      ok = false;
      lines.push(`FAIL a new cart after the restart: ${after.status}`);
    } else lines.push('ok   new writes succeed after the restart');
    return { name, pass: ok, lines };
  } catch (e) {
    lines.push(`FAIL ${(e as Error).stack ?? e}`);
    return { name, pass: false, lines };
  } finally {
    await server?.kill();
  }
}

/**
 * The database restarts (immediate stop: crash recovery) under write load. `restart` performs it
 * (e.g. TempPostgres.restart('immediate')); `databaseUrl` is the database the server uses.
 */
export async function databaseRestartDuringWrites(databaseUrl: string, restart: () => Promise<void>, opts: { seconds?: number } = {}): Promise<ScenarioResult> {
  const name = 'database restart under write load (PostgreSQL)';
  const lines: string[] = [];
  let server: ServerProcess | undefined;
  try {
    await prepareDatabase({ databaseUrl });
    server = await spawnServer({ env: { DATABASE_URL: databaseUrl, PG_CONNECT_TIMEOUT_MS: '2000' } });
    const port = server.port;
    const s = await setup(server);
    let done = false;
    const acked = newAcked();
    const loadDone = writeLoad(acked, () => port, s, () => done);
    await loadFor(acked, opts.seconds ?? 2);
    const t0 = Date.now();
    await restart();
    lines.push(`ok   database stopped (immediate) and started again in ${Date.now() - t0} ms`);
    // Service must resume by itself: a write succeeds within 30 s of the database being back.
    let resumedAt = 0;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const r = await send(port, SHOP_HOST, 'POST', '/api/ucp/carts', CART_BODY);
      if (r.status === 201) {
        resumedAt = Date.now();
        break;
      }
      await sleep(200);
    }
    await sleep(1000);
    done = true;
    const a = await loadDone;
    lines.push(`     answers: ${statusLine(a)}`);
    let ok = true;
    if (!resumedAt) {
      ok = false;
      lines.push('FAIL service did not resume within 30 s of the database restart');
    } else lines.push(`ok   service resumed by itself ${resumedAt - t0} ms after the restart began`);
    if (a.bad.length) {
      ok = false;
      lines.push(`FAIL ${a.bad.length} answers were neither 2xx nor 503+Retry-After: ${a.bad.filter(Boolean).slice(0, 3).join(' | ')}`);
    } else lines.push(`ok   every answer was a 2xx or a 503 with Retry-After (${a.statuses.get(503) ?? 0} × 503)`);
    if (server.child.exitCode !== null) {
      ok = false;
      lines.push('FAIL the server process died');
    }
    ok = (await verify(server, s, a, lines)) && ok;
    return { name, pass: ok, lines };
  } catch (e) {
    lines.push(`FAIL ${(e as Error).stack ?? e}`);
    return { name, pass: false, lines };
  } finally {
    await server?.kill();
  }
}

export function printReport(results: ScenarioResult[]): boolean {
  console.log('\nFault tests');
  for (const r of results) {
    console.log(`\n${r.pass ? 'PASS' : 'FAIL'}  ${r.name}`);
    for (const l of r.lines) console.log(`      ${l}`);
  }
  const failed = results.filter((r) => !r.pass).length;
  console.log(`\n${results.length - failed} passed, ${failed} failed`);
  return failed === 0;
}
