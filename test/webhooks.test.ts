import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { expectUcp20260825Valid, expectUcpValid, PROFILE_2026_08_25, PROFILE_ID } from './support/ucp-schemas.ts';
import { merchantApi, newOrder, profileKeys, startReceiver, verifyDelivery, type Receiver } from './support/webhooks.ts';
import { rotateShopKey } from '../server/core/access/signing-keys.ts';
import { retryDelayMs } from '../server/core/orders/webhooks.ts';
import { webhookUrlProblem } from '../server/core/orders/webhook-endpoints.ts';

// Fast worker for tests: poll every 50 ms, first retry after ~100 ms.
process.env.WEBHOOK_POLL_MS = '50';
process.env.WEBHOOK_RETRY_BASE_MS = '100';

let s: TestServer;
let rx: Receiver;
let api: Awaited<ReturnType<typeof merchantApi>>;
beforeAll(async () => {
  s = await startTestServer();
  rx = await startReceiver();
  api = await merchantApi(s);
});
afterAll(async () => {
  await s.close();
  await rx.close();
});

const sigKid = (d: { headers: Record<string, unknown> }) => /keyid="([^"]+)"/.exec(String(d.headers['signature-input']))?.[1];

describe('order webhooks', () => {
  it('webhooks off: no signing_keys, no deliveries', async () => {
    for (const host of ['demo.localhost', 'other.localhost']) {
      const p = await s.req(host, 'GET', '/.well-known/ucp');
      expect(p.status).toBe(200);
      expect(p.body.signing_keys, host).toBeUndefined();
    }
    await newOrder(api, 'before@example.com');
    const log = await api('GET', '/3.0/webhooks/deliveries');
    expect(log.status).toBe(200);
    expect(log.body.deliveries).toEqual([]);
  });

  it('validates endpoint URLs (https only, loopback http in development)', async () => {
    for (const url of ['http://example.com/hook', 'ftp://127.0.0.1/x', 'not a url', 'https://user:pw@example.com/']) {
      const r = await api('POST', '/3.0/webhooks', { url });
      expect(r.status, url).toBe(422);
      expect(r.body.error.details[0].path).toBe('$.url');
    }
    expect((await api('POST', '/3.0/webhooks', { url: rx.url, events: ['order.deleted'] })).status).toBe(422);
    expect(webhookUrlProblem('https://hooks.example.com/x', 'production')).toBeNull();
    expect(webhookUrlProblem('http://127.0.0.1:9/x', 'production')).toMatch(/https/);
    expect(webhookUrlProblem('https://127.0.0.1/x', 'production')).toMatch(/loopback|private/);
    expect(webhookUrlProblem('https://10.1.2.3/x', 'production')).toMatch(/private/);
    expect(webhookUrlProblem('http://localhost:8080/x', 'development')).toBeNull();
  });

  it('the first endpoint enables webhooks: signing_keys published (schema-valid), other shops unaffected', async () => {
    const created = await api('POST', '/3.0/webhooks', { url: rx.url });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^whe_/), url: rx.url, events: ['order.created', 'order.updated'], active: true });
    expect((await api('GET', '/3.0/webhooks')).body.webhooks.map((w: any) => w.id)).toEqual([created.body.id]);

    const p = await s.req('demo.localhost', 'GET', '/.well-known/ucp/2026-04-08');
    expectUcpValid(`${PROFILE_ID}#/$defs/business_profile`, p.body);
    expect(p.body.signing_keys).toHaveLength(1);
    const [key] = p.body.signing_keys;
    expectUcpValid(`${PROFILE_ID}#/$defs/signing_key`, key);
    expect(key).toEqual({ kid: expect.any(String), kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), alg: 'ES256', use: 'sig' });
    expect(key.d).toBeUndefined();
    expect((await s.req('other.localhost', 'GET', '/.well-known/ucp')).body.signing_keys).toBeUndefined();
  });

  it('the 2026-08-25 profile publishes the same keys as top-level keys[], the 2026-04-08 leaf as signing_keys', async () => {
    const latest = await s.req('demo.localhost', 'GET', '/.well-known/ucp');
    expectUcp20260825Valid(`${PROFILE_2026_08_25}#/$defs/business_schema`, latest.body);
    expect(latest.body.ucp.version).toBe('2026-08-25');
    expect(latest.body.signing_keys).toBeUndefined();
    for (const k of latest.body.keys) expectUcp20260825Valid(`${PROFILE_2026_08_25}#/$defs/jwk_public_key`, k);
    const leaf = await s.req('demo.localhost', 'GET', '/.well-known/ucp/2026-04-08');
    expect(leaf.body.keys).toBeUndefined();
    expect(latest.body.keys).toEqual(leaf.body.signing_keys);
    expect(latest.body.keys).toHaveLength(1);
  });

  it('an order created through the merchant API is delivered once, signed and verifiable with the published keys', async () => {
    const before = rx.received.length;
    const order = await newOrder(api, 'ada@example.com');
    const [d] = (await rx.waitFor(before + 1)).slice(before);
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.received).toHaveLength(before + 1);

    expect(d.method).toBe('POST');
    expect(d.path).toBe('/hooks/orders');
    expect(d.headers['content-type']).toBe('application/json');
    // The 2026-04-08 leaf, whose `signing_keys` a receiver reads (docs/webhooks.md), not the 2026-08-25 profile.
    expect(d.headers['ucp-agent']).toBe('profile="http://demo.localhost/.well-known/ucp/2026-04-08"');
    expect(d.headers['webhook-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Math.abs(Number(d.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    expect(d.headers['signature-input']).toBe(
      `sig1=("@method" "@authority" "@path" "content-digest" "content-type" "webhook-id" "webhook-timestamp" "ucp-agent");created=${d.headers['webhook-timestamp']};keyid="${sigKid(d)}"`,
    );
    expect(d.json).toMatchObject({ id: expect.any(String), type: 'order.created', shop_id: 'shop_demo', data: { order: { id: order.id, status: 'created', totals: order.totals } } });

    const v = await verifyDelivery(s, rx, d);
    expect(v).toMatchObject({ ok: true, alg: 'ES256' });
    const keys = await profileKeys(s, String(d.headers['ucp-agent']));
    expect(keys.map((k) => k.kid)).toContain(sigKid(d));

    const log = await api('GET', '/3.0/webhooks/deliveries?status=delivered');
    const entry = log.body.deliveries.find((e: any) => e.id === d.headers['webhook-id']);
    expect(entry).toMatchObject({ event: 'order.created', status: 'delivered', attempts: 1, last_status: 200, last_error: null, kid: sigKid(d), url: rx.url });
    expect(entry.delivered_at).toBeTruthy();
  });

  it('tampered bodies and headers fail verification', async () => {
    const d = rx.received[rx.received.length - 1];
    const tampered = Buffer.from(d.body.toString('utf8').replace('"order.created"', '"order.updated"'));
    expect(await verifyDelivery(s, rx, d, { body: tampered })).toMatchObject({ ok: false, code: 'digest_mismatch' });
    for (const [name, value] of [
      ['webhook-id', '00000000-0000-4000-8000-000000000000'],
      ['webhook-timestamp', String(Number(d.headers['webhook-timestamp']) + 1)],
      ['content-type', 'text/plain'],
    ]) {
      expect(await verifyDelivery(s, rx, d, { headers: { ...d.headers, [name]: value } }), name).toMatchObject({ ok: false, code: 'signature_invalid' });
    }
    const sig = String(d.headers.signature);
    const flipped = sig.replace(/:(.)/, (_, c) => `:${c === 'A' ? 'B' : 'A'}`);
    expect(await verifyDelivery(s, rx, d, { headers: { ...d.headers, signature: flipped } })).toMatchObject({ ok: false, code: 'signature_invalid' });
  });

  it('status changes emit order.updated; the transition rule is enforced', async () => {
    const order = await newOrder(api, 'grace@example.com');
    const n = rx.received.length + 1; // order.created
    await rx.waitFor(n);
    const upd = await api('PUT', `/3.0/orders/${order.id}`, { status: 'processing' });
    expect(upd.status).toBe(200);
    expect(upd.body.status).toBe('processing');
    const [d] = (await rx.waitFor(n + 1)).slice(n);
    expect(d.json).toMatchObject({ type: 'order.updated', data: { order: { id: order.id, status: 'processing' } } });
    expect((await verifyDelivery(s, rx, d)).ok).toBe(true);
    expect((await api('GET', `/3.0/orders/${order.id}`)).body.status).toBe('processing');

    expect((await api('PUT', `/3.0/orders/${order.id}`, { status: 'cancelled' })).status).toBe(200);
    await rx.waitFor(n + 2);
    const back = await api('PUT', `/3.0/orders/${order.id}`, { status: 'created' });
    expect(back.status).toBe(422);
    expect(back.body.error.details[0]).toMatchObject({ path: '$.status', code: 'invalid_transition' });
    expect((await api('PUT', `/3.0/orders/${order.id}`, { status: 'shipped' })).status).toBe(422);
    expect((await api('PUT', '/3.0/orders/ord_nope', { status: 'processing' })).status).toBe(404);
    await new Promise((r) => setTimeout(r, 200));
    expect(rx.received).toHaveLength(n + 2);
  });

  it('a failing receiver (500, then 200) is retried with the same Webhook-Id and attempts are recorded', async () => {
    const before = rx.received.length;
    rx.script.push(500);
    await newOrder(api, 'retry@example.com');
    const [first, second] = (await rx.waitFor(before + 2)).slice(before);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect((await verifyDelivery(s, rx, second)).ok).toBe(true);
    let entry: any;
    for (let i = 0; i < 40 && entry?.status !== 'delivered'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      entry = (await api('GET', '/3.0/webhooks/deliveries?limit=250')).body.deliveries.find((e: any) => e.id === first.headers['webhook-id']);
    }
    expect(entry).toMatchObject({ status: 'delivered', attempts: 2, last_status: 200 });
  });

  it('rotation publishes both kids during the grace period; new deliveries use the new kid', async () => {
    const oldKeys = (await s.req('demo.localhost', 'GET', '/.well-known/ucp/2026-04-08')).body.signing_keys;
    expect(oldKeys).toHaveLength(1);
    const { kid, retired } = await rotateShopKey(s.db, 'shop_demo', { graceDays: 7 });
    expect(retired).toBe(oldKeys[0].kid);
    const p = await s.req('demo.localhost', 'GET', '/.well-known/ucp/2026-04-08');
    expect(p.body.signing_keys.map((k: any) => k.kid)).toEqual([kid, retired]);
    expect((await s.req('demo.localhost', 'GET', '/.well-known/ucp')).body.keys.map((k: any) => k.kid)).toEqual([kid, retired]);
    expectUcpValid(`${PROFILE_ID}#/$defs/business_profile`, p.body);

    const before = rx.received.length;
    await newOrder(api, 'rotated@example.com');
    const [d] = (await rx.waitFor(before + 1)).slice(before);
    expect(sigKid(d)).toBe(kid);
    expect((await verifyDelivery(s, rx, d)).ok).toBe(true);
    // A delivery signed before the rotation still verifies during the grace period.
    const older = rx.received.find((x) => sigKid(x) === retired)!;
    expect(await verifyDelivery(s, rx, older)).toMatchObject({ ok: true, keyid: retired });

    // Grace over: the retired key is no longer published.
    await s.db.updateTable('shop_signing_keys').set({ retire_at: new Date(Date.now() - 1000) }).where('kid', '=', retired!).execute();
    expect((await s.req('demo.localhost', 'GET', '/.well-known/ucp/2026-04-08')).body.signing_keys.map((k: any) => k.kid)).toEqual([kid]);
    expect(await verifyDelivery(s, rx, older)).toMatchObject({ ok: false, code: 'key_not_found' });
  });

  it('deleting the last endpoint turns webhooks off and hides signing_keys', async () => {
    const list = (await api('GET', '/3.0/webhooks')).body.webhooks;
    for (const w of list) expect((await api('DELETE', `/3.0/webhooks/${w.id}`)).status).toBe(204);
    expect((await api('DELETE', '/3.0/webhooks/whe_nope')).status).toBe(404);
    expect((await s.req('demo.localhost', 'GET', '/.well-known/ucp/2026-04-08')).body.signing_keys).toBeUndefined();
    expect((await s.req('demo.localhost', 'GET', '/.well-known/ucp')).body.keys).toBeUndefined();
  });

  it('backoff doubles from the base, capped, with ±20 % jitter', () => {
    expect(retryDelayMs(1, 30_000, 6 * 3600_000, () => 0.5)).toBe(30_000);
    expect(retryDelayMs(3, 30_000, 6 * 3600_000, () => 0.5)).toBe(120_000);
    expect(retryDelayMs(12, 30_000, 6 * 3600_000, () => 0.5)).toBe(6 * 3600_000);
    expect(retryDelayMs(1, 30_000, 6 * 3600_000, () => 0)).toBe(24_000);
    expect(retryDelayMs(1, 30_000, 6 * 3600_000, () => 1)).toBe(36_000);
  });
});
