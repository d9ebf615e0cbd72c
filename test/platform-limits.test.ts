/**
 * Bodies on the platform address are bounded before anything reads them (server/oauth/platform.ts):
 * 413 in each area's own error format, nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { FORM_MAX_BYTES, MERCHANT_MAX_BYTES } from '../server/oauth/platform.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

const form = (bytes: number) => `grant_type=refresh_token&client_id=demo-app&refresh_token=${'a'.repeat(bytes)}`;

describe('platform body limits', () => {
  it('token endpoint: an oversized form is 413 invalid_request (OAuth JSON); a normal one is processed', async () => {
    const big = await s.req('localhost', 'POST', '/oauth2/access_token', form(FORM_MAX_BYTES + 1), { 'content-type': 'application/x-www-form-urlencoded' });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ error: 'invalid_request' });
    const small = await s.req('localhost', 'POST', '/oauth2/access_token', form(16), { 'content-type': 'application/x-www-form-urlencoded' });
    expect(small.status).toBe(400); // processed by the endpoint (no secret for a confidential client), not cut off
    expect(small.body).toMatchObject({ error: 'invalid_client' });
  });

  it('admin and login forms: 413 page', async () => {
    for (const path of ['/admin/login', '/oauth2/login']) {
      const r = await s.req('localhost', 'POST', path, `username=${'x'.repeat(FORM_MAX_BYTES)}`, { 'content-type': 'application/x-www-form-urlencoded' });
      expect(r.status, path).toBe(413);
    }
  });

  it('merchant API: an oversized JSON body is 413 request_too_large before authentication, and creates nothing', async () => {
    const before = (await s.db.selectFrom('customers').select('id').execute()).length;
    const body = JSON.stringify({ email: 'big@example.com', first_name: 'x'.repeat(MERCHANT_MAX_BYTES) });
    const r = await s.req('localhost', 'POST', '/merchants/shop_demo/3.0/customers', body, { authorization: 'Bearer whatever' });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ error: { code: 'request_too_large', message: `The body exceeds ${MERCHANT_MAX_BYTES} bytes.` } });
    expect((await s.db.selectFrom('customers').select('id').execute()).length).toBe(before);
  });
});

describe('a refused body closes the connection', () => {
  it('413 before the body is read says Connection: close, and a keep-alive client carries on', async () => {
    const { Agent, request } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, headers: Record<string, string | number>, body?: Buffer) =>
      new Promise<{ status: number; connection?: string }>((resolve, reject) => {
        const r = request({ host: '127.0.0.1', port: s.port, agent, method, path, headers: { host: `demo.localhost:${s.port}`, ...headers } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
        });
        r.on('error', reject);
        // Only the first part of a body announced as far larger than the limit: the answer comes before the rest.
        if (body) r.write(body);
        else r.end();
      });
    try {
      const big = await send('POST', '/api/ucp/carts', { 'content-type': 'application/json', 'content-length': 8 * 1024 * 1024 }, Buffer.alloc(64 * 1024, 0x20));
      expect(big.status).toBe(413);
      expect(big.connection).toBe('close');
      for (let i = 0; i < 3; i++) {
        const next = await send('GET', '/.well-known/ucp', {});
        expect(next.status).toBe(200);
      }
      const query = Buffer.from('{"query":"mug"}');
      const read = await send('POST', '/api/ucp/catalog/search', { 'content-type': 'application/json', 'content-length': query.length }, query);
      expect(read.status).toBe(200);
      expect(read.connection).toBe('keep-alive'); // a body that was read keeps the connection
    } finally {
      agent.destroy();
    }
  });
});
