/**
 * A database host that stops answering without closing its connections (a partition, a frozen VM):
 * a TCP proxy between the server and the test PostgreSQL stops forwarding, both ways, and keeps
 * every socket open. Requests that need the database answer 503 + Retry-After within the query
 * timeout (PG_QUERY_TIMEOUT_MS, server/db/failover.ts) instead of waiting for the OS to give up on
 * the socket, and service resumes by itself once the host answers again. docs/deploy.md "Failover".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { startTestServer, type TestServer } from './support/server.ts';
import { createTestDatabase, requirePostgres, type TestDatabase } from './support/postgres.ts';

/** Forwards TCP to `target`; `stall()` holds every byte (both ways, connections stay open) until `resume()`. */
class SilentProxy {
  stalled = false;
  private held: Array<() => void> = [];
  private readonly sockets = new Set<Socket>();
  readonly server: Server;
  constructor(target: { host: string; port: number }) {
    this.server = createServer((down) => {
      const up = connect(target.port, target.host);
      for (const [from, to] of [[down, up], [up, down]] as const) {
        this.sockets.add(from);
        from.on('data', (b) => (this.stalled ? this.held.push(() => to.write(b)) : to.write(b)));
        from.on('close', () => (this.sockets.delete(from), to.destroy()));
        from.on('error', () => {});
      }
    });
  }
  listen(): Promise<number> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', () => resolve((this.server.address() as AddressInfo).port)));
  }
  stall() {
    this.stalled = true;
  }
  resume() {
    this.stalled = false;
    for (const f of this.held.splice(0)) f();
  }
  close() {
    for (const s of this.sockets) s.destroy();
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

const QUERY_TIMEOUT_MS = 1000;
const TEE = [{ item: { id: 'var_tee_s_white' }, quantity: 1 }];
let tdb: TestDatabase;
let proxy: SilentProxy;
let s: TestServer;

beforeAll(async () => {
  tdb = await createTestDatabase(requirePostgres());
  const u = new URL(tdb.url);
  proxy = new SilentProxy({ host: u.hostname, port: Number(u.port || 5432) });
  u.host = `127.0.0.1:${await proxy.listen()}`;
  s = await startTestServer({ databaseUrl: u.toString(), pgQueryTimeoutMs: QUERY_TIMEOUT_MS, pgConnectTimeoutMs: QUERY_TIMEOUT_MS });
}, 60_000);
afterAll(async () => {
  proxy?.resume();
  await s?.close().catch(() => {});
  await proxy?.close();
  await tdb?.drop();
});

const timed = async <T>(f: () => Promise<T>) => {
  const t = Date.now();
  const r = await f();
  return { r, ms: Date.now() - t };
};

describe('a database host that goes silent (PostgreSQL behind a proxy that stops forwarding)', () => {
  it('requests answer 503 + Retry-After within the query timeout, and the service resumes by itself', async () => {
    const created = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: TEE });
    expect(created.status).toBe(201);
    const cart = `/api/ucp/carts/${created.body.id}`;
    expect((await s.req('demo.localhost', 'GET', cart)).status).toBe(200);

    proxy.stall();
    // Reads and writes, several at once: pooled connections whose statements go unanswered, and
    // new connections whose start-up goes unanswered.
    const during = await Promise.all([
      timed(() => s.req('demo.localhost', 'GET', cart)),
      timed(() => s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: TEE })),
      timed(() => s.req('demo.localhost', 'GET', cart)),
    ]);
    for (const { r, ms } of during) {
      expect(r.status).toBe(503);
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      expect(r.body.code).toBe('service_unavailable');
      // The bound: one statement's timeout (or one connection's), with room for a loaded machine.
      expect(ms).toBeLessThan(QUERY_TIMEOUT_MS * 4);
    }
    // A request arriving later, on whatever the pool holds now, is bounded the same way.
    const later = await timed(() => s.req('demo.localhost', 'GET', cart));
    expect(later.r.status).toBe(503);
    expect(later.ms).toBeLessThan(QUERY_TIMEOUT_MS * 4);

    proxy.resume();
    // Back: the same cart is read, and a new one is written, without a restart.
    await expect.poll(async () => (await s.req('demo.localhost', 'GET', cart)).status, { timeout: 10_000, interval: 200 }).toBe(200);
    const after = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: TEE });
    expect(after.status).toBe(201);
  }, 60_000);
});
