/**
 * A webhook receiver for the tests: an HTTP server on 127.0.0.1 that records every request and
 * answers with scripted statuses, plus a verifier that does what a platform would do: read the
 * shop's profile URL from UCP-Agent, fetch `/.well-known/ucp`, take `signing_keys`, check
 * Content-Digest and the RFC 9421 signature.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwksResolver, verify, type VerifyResult } from '../../server/core/access/http-signatures.ts';
import { WEBHOOK_COMPONENTS } from '../../server/core/orders/webhooks.ts';
import type { TestServer } from './server.ts';
import { tokensFor } from './oauth.ts';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json: any;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Statuses for the next requests, in order; afterwards 200. */
  script: number[];
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const script: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        json = undefined;
      }
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json });
      const status = script.length ? script.shift()! : 200;
      res.writeHead(status, { 'content-type': 'application/json' }).end(status < 300 ? '{"ok":true}' : '{"error":"try later"}');
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}/hooks/orders`,
    port: actual,
    received,
    script,
    async waitFor(n, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`receiver got ${received.length} requests, expected ${n}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received.slice(0, n);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The published keys, fetched as a platform would: from the profile URL named in UCP-Agent. */
export async function profileKeys(s: TestServer, ucpAgent: string): Promise<any[]> {
  const m = /profile="([^"]+)"/.exec(ucpAgent);
  if (!m) throw new Error(`UCP-Agent without profile: ${ucpAgent}`);
  const url = new URL(m[1]);
  // Node does not resolve *.localhost: send the request to the test server with that Host.
  const r = await s.req(url.hostname, 'GET', url.pathname);
  if (r.status !== 200) throw new Error(`profile fetch ${r.status}`);
  // As docs/webhooks.md tells a receiver: the named profile's top-level `signing_keys` (a 2026-04-08
  // profile, the deliveries' version; the 2026-08-25 one at /.well-known/ucp names them `keys`).
  return r.body.signing_keys ?? [];
}

/** Verifies one received delivery against the shop's published keys. */
export async function verifyDelivery(s: TestServer, rx: Receiver, d: Received, overrides: { body?: Buffer | string; headers?: IncomingHttpHeaders } = {}): Promise<VerifyResult> {
  const headers = overrides.headers ?? d.headers;
  const keys = await profileKeys(s, String(headers['ucp-agent']));
  return verify({
    message: { method: d.method, url: `http://127.0.0.1:${rx.port}${d.path}`, headers: headers as Record<string, string> },
    resolveKey: jwksResolver(keys),
    body: overrides.body ?? d.body,
    requiredComponents: WEBHOOK_COMPONENTS,
    requireCreated: true,
    maxSkewSeconds: 300,
  });
}

export const MERCHANT_SCOPES = 'sales_read sales_write settings_read settings_write customers_write';

/** The merchant API of one shop, as its owner (default: the demo shop) with MERCHANT_SCOPES. */
export async function merchantApi(s: TestServer, owner = { username: 'owner@demo.localhost', password: 'demo', shop: 'shop_demo' }) {
  const token = (await tokensFor(s, MERCHANT_SCOPES, owner)).access_token;
  return (method: string, path: string, body?: unknown) => s.req('localhost', method, `/merchants/${owner.shop}${path}`, body, { authorization: `Bearer ${token}` });
}

export async function newOrder(api: Awaited<ReturnType<typeof merchantApi>>, email: string) {
  const cus = await api('POST', '/3.0/customers', { email });
  if (cus.status !== 201) throw new Error(`customer: ${cus.status} ${cus.text}`);
  const order = await api('POST', '/3.0/orders', { customer_id: cus.body.id, items: [{ variant_id: 'var_tee_s_white', quantity: 1 }] });
  if (order.status !== 201) throw new Error(`order: ${order.status} ${order.text}`);
  return order.body;
}
