/**
 * Managing webhook endpoints after creating them: read one, change its URL or events, disable and
 * enable it, and send a delivery again (server/core/orders/webhook-endpoints.ts, webhooks.ts). Deliveries
 * go to a real receiver on loopback through the real worker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { merchantApi, newOrder, startReceiver, verifyDelivery, type Receiver } from './support/webhooks.ts';

// Fast worker for tests: poll every 50 ms, 2 attempts before failing. The first retry comes ~1 s
// after a failure (±20 %): the window in which a test changes or disables the endpoint before it.
process.env.WEBHOOK_POLL_MS = '50';
process.env.WEBHOOK_RETRY_BASE_MS = '1000';
process.env.WEBHOOK_MAX_ATTEMPTS = '2';

let s: TestServer;
let a: Receiver;
let b: Receiver;
let api: Awaited<ReturnType<typeof merchantApi>>;
let endpoint: { id: string; url: string };
beforeAll(async () => {
  s = await startTestServer();
  [a, b] = await Promise.all([startReceiver(), startReceiver()]);
  api = await merchantApi(s);
  endpoint = (await api('POST', '/3.0/webhooks', { url: a.url, events: ['order.created'] })).body;
});
afterAll(async () => {
  await s.close();
  await Promise.all([a.close(), b.close()]);
});

const deliveries = async (status?: string) => (await api('GET', `/3.0/webhooks/deliveries${status ? `?status=${status}` : ''}`)).body.deliveries as any[];
const until = async (f: () => Promise<boolean>, what: string) => {
  const end = Date.now() + 10_000;
  while (!(await f())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('webhook endpoints: read and change', () => {
  it('GET one endpoint; unknown ids and other shops’ ids are 404', async () => {
    const r = await api('GET', `/3.0/webhooks/${endpoint.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: endpoint.id, url: a.url, events: ['order.created'], active: true, created_at: expect.any(String) });
    expect((await api('GET', '/3.0/webhooks/whe_nope')).status).toBe(404);
    const other = await merchantApi(s, { username: 'owner@other.localhost', password: 'other', shop: 'shop_other' });
    expect((await other('GET', `/3.0/webhooks/${endpoint.id}`)).status).toBe(404);
    expect((await other('PUT', `/3.0/webhooks/${endpoint.id}`, { active: false })).status).toBe(404);
    expect((await api('GET', `/3.0/webhooks/${endpoint.id}`)).body.active).toBe(true); // untouched
  });

  it('bad changes name every bad field and change nothing', async () => {
    const r = await api('PUT', `/3.0/webhooks/${endpoint.id}`, { url: 'ftp://x', events: ['order.deleted'], active: 'no', public_origin: 'https://a.example', extra: 1 });
    expect(r.status).toBe(422);
    const paths = r.body.error.details.map((d: any) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['$.url', '$.events[0]', '$.active', '$.public_origin', '$.extra']));
    expect((await api('PUT', `/3.0/webhooks/${endpoint.id}`, {})).status).toBe(422);
    expect((await api('GET', `/3.0/webhooks/${endpoint.id}`)).body).toMatchObject({ url: a.url, events: ['order.created'], active: true });
  });

  it('a new URL takes effect for new deliveries and for pending retries', async () => {
    a.script.push(500, 500); // the old URL fails the first attempt
    const before = a.received.length;
    const order = await newOrder(api, 'move@example.com');
    await a.waitFor(before + 1);
    const pending = (await deliveries('pending')).find((d) => d.payload.data.order.id === order.id);
    expect(pending).toBeTruthy();
    const r = await api('PUT', `/3.0/webhooks/${endpoint.id}`, { url: b.url });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: endpoint.id, url: b.url, events: ['order.created'], active: true });
    // The retry goes to the new URL, same Webhook-Id, still verifiable.
    const [retried] = await b.waitFor(1);
    expect(retried.headers['webhook-id']).toBe(pending.id);
    expect((await verifyDelivery(s, b, retried)).ok).toBe(true);
    await until(async () => (await deliveries('delivered')).some((d) => d.id === pending.id && d.url === b.url), 'the retry to be recorded');
  });

  it('disabled: no new deliveries, pending ones fail as "endpoint disabled"; enabled again: deliveries resume', async () => {
    b.script.push(500, 500);
    const n = b.received.length;
    const first = await newOrder(api, 'pause1@example.com');
    await b.waitFor(n + 1); // first attempt failed, a retry is pending
    expect((await api('PUT', `/3.0/webhooks/${endpoint.id}`, { active: false })).body.active).toBe(false);
    const failed = (await deliveries('failed')).find((d) => d.payload.data.order.id === first.id);
    expect(failed).toMatchObject({ status: 'failed', last_error: 'endpoint disabled' });

    const second = await newOrder(api, 'pause2@example.com');
    await new Promise((r) => setTimeout(r, 400)); // several worker polls
    expect((await deliveries()).some((d) => d.payload.data.order.id === second.id)).toBe(false);
    expect(b.received.length).toBeLessThanOrEqual(n + 2); // at most the retry already in flight

    expect((await api('PUT', `/3.0/webhooks/${endpoint.id}`, { active: true })).body.active).toBe(true);
    const m = b.received.length;
    const third = await newOrder(api, 'pause3@example.com');
    const [d] = (await b.waitFor(m + 1)).slice(m);
    expect(d.json.data.order.id).toBe(third.id);
  });
});

describe('redeliver', () => {
  it('sends a failed delivery again with the same Webhook-Id and a fresh set of attempts', async () => {
    const failed = (await deliveries('failed')).find((d) => d.last_error === 'endpoint disabled');
    const n = b.received.length;
    const r = await api('POST', `/3.0/webhooks/deliveries/${failed.id}/redeliver`);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ id: failed.id, status: 'pending', attempts: 0, url: b.url });
    const [again] = (await b.waitFor(n + 1)).slice(n);
    expect(again.headers['webhook-id']).toBe(failed.id);
    expect(again.json).toEqual(failed.payload);
    await until(async () => (await deliveries('delivered')).some((d) => d.id === failed.id), 'the redelivery to be recorded');
  });

  it('a delivered one can be sent again too; a pending one, a missing one, another shop’s one and one whose endpoint is gone are refused', async () => {
    const delivered = (await deliveries('delivered'))[0];
    const ok = await api('POST', `/3.0/webhooks/deliveries/${delivered.id}/redeliver`);
    expect(ok.status).toBe(202);
    await until(async () => (await deliveries('delivered')).some((d) => d.id === delivered.id), 'the second delivery');
    // Pending (here: a retry scheduled far ahead): refused, it will be attempted on its own.
    await s.db.updateTable('webhook_deliveries').set({ status: 'pending', next_attempt_at: new Date(Date.now() + 3600_000) }).where('id', '=', delivered.id).execute();
    const again = await api('POST', `/3.0/webhooks/deliveries/${delivered.id}/redeliver`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'already_pending' });
    await s.db.updateTable('webhook_deliveries').set({ status: 'delivered' }).where('id', '=', delivered.id).execute();
    expect((await api('POST', '/3.0/webhooks/deliveries/00000000-0000-4000-8000-000000000000/redeliver')).status).toBe(404);
    const other = await merchantApi(s, { username: 'owner@other.localhost', password: 'other', shop: 'shop_other' });
    expect((await other('POST', `/3.0/webhooks/deliveries/${delivered.id}/redeliver`)).status).toBe(404);

    await until(async () => !(await deliveries('pending')).length, 'the queue to drain');
    expect((await api('DELETE', `/3.0/webhooks/${endpoint.id}`)).status).toBe(204);
    const gone = await api('POST', `/3.0/webhooks/deliveries/${delivered.id}/redeliver`);
    expect(gone.status).toBe(409);
    expect(gone.body.error).toMatchObject({ code: 'endpoint_unavailable' });
  });
});
