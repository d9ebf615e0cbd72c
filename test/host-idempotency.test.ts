/**
 * host.js's own cart writes carry an Idempotency-Key (src/client/api.ts), as UCP recommends on
 * create: the request inspector no longer flags our widget with `idempotency_key_missing`, and a
 * create the browser sends twice (a retry after a dropped answer) makes one cart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UcpClient } from '../src/client/api.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { requestFrom } from './support/from-address.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe("host.js's cart create", () => {
  it('sends a fresh 128-bit Idempotency-Key with each create; sent again, the same key answers the same cart', async () => {
    const sent: Array<{ url: string; init: RequestInit }> = [];
    // Node does not resolve *.localhost: the same request, sent to 127.0.0.1 with the shop's Host.
    const viaLoopback: typeof fetch = async (input, init = {}) => {
      sent.push({ url: String(input), init });
      const u = new URL(String(input));
      const r = await requestFrom({ port: s.port, host: u.hostname, method: init.method ?? 'GET', path: u.pathname, body: init.body ? JSON.parse(String(init.body)) : undefined, headers: init.headers as Record<string, string> });
      return new Response(r.text, { status: r.status, headers: { 'content-type': 'application/json' } });
    };
    const client = new UcpClient({ origin: `http://demo.localhost:${s.port}`, fetch: viaLoopback });
    const line = { line_items: [{ item: { id: 'var_tee_s_white' }, quantity: 1 }] };
    const first = await client.createCart(line);
    const second = await client.createCart(line);
    expect(first.ok && second.ok).toBe(true);
    const keys = sent.map((r) => (r.init.headers as Record<string, string>)['Idempotency-Key']);
    expect(keys).toEqual([expect.stringMatching(/^\d{1,10}(-\d{1,10}){3}$/), expect.stringMatching(/^\d{1,10}(-\d{1,10}){3}$/)]);
    expect(keys[0]).not.toBe(keys[1]);
    // The first request replayed (what a retry sends): the original cart, not a new one.
    const replay = await viaLoopback(sent[0].url, sent[0].init);
    expect((await replay.json()).id).toBe(first.ok && first.data.id);
  });
});
