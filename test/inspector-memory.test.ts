/**
 * Issue 39 point 1: the request inspector's memory has a real bound. The crafted bodies of the
 * report (MCP create_cart with a ~950 KB meta["ucp-agent"].profile, ~1 MB REST carts answered 400,
 * keyed writes whose fingerprints were the canonical JSON of the whole body, huge idempotency keys)
 * are sent to several shops; the inspector's own accounting stays under MAX_BYTES and the process
 * heap (the server runs in this process) grows by less than HEAP_BOUND after a collection.
 * Before the fix the same traffic kept every profile, every fingerprint and a sliced view of every
 * body (a V8 slice keeps its whole parent): hundreds of MB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { inspectorBytes, MAX_BYTES } from '../server/http/inspector/store.ts';
import { startTestServer, type TestServer } from './support/server.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const MB = 1024 * 1024;
/** What the process may keep after all this traffic: the inspector's MAX_BYTES plus room for the server's own caches. */
const HEAP_BOUND = MAX_BYTES + 48 * MB;

describe('the inspector under crafted bodies (issue 39 point 1)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  it(`holds its accounting under ${MAX_BYTES / MB} MiB and the heap's growth under ${HEAP_BOUND / MB} MiB`, async () => {
    const shops = ['demo.localhost', 'other.localhost', 'strict.localhost'];
    // Clones: more shops that take anonymous writes (the report used 11).
    for (let i = 0; i < 3; i++) {
      const c = await s.req('localhost', 'POST', '/dev/shops/shop_demo/clone', {});
      expect(c.status).toBe(201);
      shops.push(c.body.domain);
    }
    const before = heap();
    const big = 'p'.repeat(950 * 1024);
    let sent = 0;
    for (let round = 0; round < 25; round++) {
      for (const shop of shops) {
        // MCP: the profile kept raw before; each call a new key and body (500 remembered fingerprints per shop).
        const profile = `https://agent.example/profile?pad=${big}`;
        const key = randomUUID() + 'k'.repeat(8000);
        const m = await s.req(shop, 'POST', '/mcp', { jsonrpc: '2.0', id: round, method: 'tools/call', params: { name: 'create_cart', arguments: { meta: { 'ucp-agent': { profile }, 'idempotency-key': key }, cart: { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] } } } });
        expect(m.status).toBeLessThan(500);
        // REST: a ~1 MB cart the server refuses (400), keyed, so it is fingerprinted too.
        const r = await s.req(shop, 'POST', '/api/ucp/carts', { line_items: [{ item: { id: `var_${round}` }, quantity: 1 }], note: big }, { 'idempotency-key': randomUUID() + 'i'.repeat(7000) });
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        sent += 2 * big.length;
      }
    }
    const grown = heap() - before;
    const accounted = inspectorBytes();
    console.log(`inspector: ${(sent / MB).toFixed(0)} MB sent; accounting ${(accounted / MB).toFixed(1)} MiB (bound ${MAX_BYTES / MB}); heap grew ${(grown / MB).toFixed(1)} MiB (bound ${HEAP_BOUND / MB})`);
    expect(sent).toBeGreaterThan(250 * MB);
    expect(accounted).toBeLessThanOrEqual(MAX_BYTES);
    expect(grown).toBeLessThan(HEAP_BOUND);
    // Still readable, and what it shows is cut.
    const list = await s.req('localhost', 'GET', '/dev/shops/shop_demo/requests');
    expect(list.status).toBe(200);
    expect(list.body.exchanges.length).toBeGreaterThan(0);
    for (const x of list.body.exchanges) {
      expect((x.agent ?? '').length).toBeLessThanOrEqual(300);
      expect((x.idempotency_key ?? '').length).toBeLessThanOrEqual(200);
      expect((x.request.body ?? '').length).toBeLessThanOrEqual(8192);
    }
    expect(inspectorBytes()).toBeLessThanOrEqual(MAX_BYTES);
  }, 240_000);
});

describe('the byte budget across shops', () => {
  it('past MAX_BYTES the oldest exchanges go first, whatever their shop; what is shown is smaller still', async () => {
    const { logFor, nextExchangeId, exchangesOf, KEEP_CHARS, MAX_SHOPS, RING_SIZE } = await import('../server/http/inspector/store.ts');
    const body = 'b'.repeat(KEEP_CHARS);
    const added: Array<[number, string]> = [];
    for (let i = 0; i < MAX_SHOPS * RING_SIZE; i++) {
      // Shops take turns unevenly (shop 0 every other time), so the oldest overall is not each shop's in turn.
      const shop = `shop_budget_${i % 2 ? 0 : 1 + ((i >> 1) % (MAX_SHOPS - 1))}`;
      const id = nextExchangeId();
      added.push([id, shop]);
      logFor(shop, `${shop}.test`).add({ id, at: Date.now(), transport: 'rest', method: 'POST', path: '/', operation: 'x', status: 200, durationMs: 1, agent: null, idempotencyKey: null, requestHeaders: [], responseHeaders: [], requestBody: body, responseBody: body, notes: [] });
      expect(inspectorBytes()).toBeLessThanOrEqual(MAX_BYTES);
    }
    const kept = exchangesOf('shop_budget_1').length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(RING_SIZE); // the budget, not the ring, was the limit
    // The oldest went first, whatever their shop: an exchange newer than the oldest kept one is gone
    // only because its own shop's ring is full (shop 0, which took every other turn).
    const keptBy = new Map(Array.from({ length: MAX_SHOPS }, (_, n) => [`shop_budget_${n}`, exchangesOf(`shop_budget_${n}`).map((x) => x.id)]));
    const keptIds = new Set([...keptBy.values()].flat());
    const oldestKept = Math.min(...keptIds);
    const droppedNewer = added.filter(([id]) => id > oldestKept && !keptIds.has(id));
    expect(droppedNewer.length).toBeGreaterThan(0);
    for (const [id, shop] of droppedNewer) expect(keptBy.get(shop), `#${id} of ${shop}`).toHaveLength(RING_SIZE);
    expect([...keptBy.values()].filter((ids) => ids.length < RING_SIZE).every((ids) => ids.length > 0)).toBe(true);
    expect(exchangesOf(`shop_budget_${MAX_SHOPS - 1}`)[0].request.body).toHaveLength(8192); // shown: cut
  });
});
