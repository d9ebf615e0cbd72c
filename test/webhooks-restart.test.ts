/**
 * The delivery log survives a restart: deliveries queued (or mid-attempt) when the server stops are
 * delivered by the next server on the same data (a temp directory for PGlite, or one PostgreSQL
 * database kept across both servers when TEST_DATABASE_URL is set).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from './support/server.ts';
import { createTestDatabase, type TestDatabase } from './support/postgres.ts';
import { merchantApi, newOrder, startReceiver, verifyDelivery, type Receiver } from './support/webhooks.ts';

process.env.WEBHOOK_POLL_MS = '50';
process.env.WEBHOOK_RETRY_BASE_MS = '100';

let dir: string;
let pg: TestDatabase | undefined;
let rx: Receiver;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ucp-webhooks-'));
  if (process.env.TEST_DATABASE_URL) pg = await createTestDatabase(process.env.TEST_DATABASE_URL);
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
  await pg?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const start = () => startTestServer(pg ? { databaseUrl: pg.url } : { dataDir: dir });

it('pending and interrupted deliveries are delivered after a restart; nothing is lost', async () => {
  let s: TestServer = await start();
  let api = await merchantApi(s);
  expect((await api('POST', '/3.0/webhooks', { url: rx.url })).status).toBe(201);

  // The receiver is down (503) for a while: the first order's delivery stays pending.
  rx.script.push(...Array(1000).fill(503));
  const o1 = await newOrder(api, 'r1@example.com');
  await rx.waitFor(1);
  // A second order whose delivery looks claimed by a process that then died: attempts counted, lease running.
  const o2 = await newOrder(api, 'r2@example.com');
  await s.db
    .updateTable('webhook_deliveries')
    .set({ attempts: sql`attempts + 1`, next_attempt_at: new Date(Date.now() + 60_000) } as never)
    .where('payload', 'like', `%${o2.id}%`)
    .where('attempts', '=', 0)
    .execute();
  const pending = (await api('GET', '/3.0/webhooks/deliveries?status=pending')).body.deliveries;
  expect(pending.map((d: any) => d.payload.data.order.id).sort()).toEqual([o1.id, o2.id].sort());
  await s.close();

  // Restart: the receiver is healthy again; the "interrupted" lease has expired by now (pretend).
  rx.script.length = 0;
  s = await start();
  try {
    await s.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: new Date(Date.now() - 1) })
      .where('payload', 'like', `%${o2.id}%`)
      .execute();
    api = await merchantApi(s);
    let log: any[] = [];
    for (let i = 0; i < 100; i++) {
      log = (await api('GET', '/3.0/webhooks/deliveries')).body.deliveries;
      if (log.length === 2 && log.every((d) => d.status === 'delivered')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(log.map((d) => [d.payload.data.order.id, d.status])).toEqual([
      [o1.id, 'delivered'],
      [o2.id, 'delivered'],
    ]);
    expect(log[0].attempts).toBeGreaterThanOrEqual(2);
    expect(log[1].attempts).toBe(2);
    // Every delivered request verifies with the keys the restarted server publishes.
    const ok = rx.received.filter((d) => d.json?.data?.order?.id === o2.id || d.json?.data?.order?.id === o1.id).slice(-2);
    for (const d of ok) expect((await verifyDelivery(s, rx, d)).ok).toBe(true);
  } finally {
    await s.close();
  }
}, 60_000);
