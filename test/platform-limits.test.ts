/**
 * Bodies on the platform address are bounded before anything reads them (server/platform.ts):
 * 413 in each area's own error format, nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { startTestServer, type TestServer } from './support/server.ts';
import { MAX_BODY_BYTES } from '../server/app.ts';
import { FORM_MAX_BYTES, MERCHANT_MAX_BYTES } from '../server/platform.ts';

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

describe('the UCP body limit, with and without Content-Length', () => {
  const post = (path: string, chunks: Buffer[], headers: Record<string, string | number>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const r = httpRequest({ host: '127.0.0.1', port: s.port, method: 'POST', path, headers: { host: `demo.localhost:${s.port}`, 'content-type': 'application/json', ...headers } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      r.on('error', reject);
      for (const c of chunks) r.write(c);
      r.end();
    });

  it('a chunked body over the limit is 413 request_too_large; one under it is read', async () => {
    // No Content-Length (Transfer-Encoding: chunked): the size is counted while reading.
    const big = await post('/api/ucp/catalog/search', [Buffer.from('{"query":"'), Buffer.alloc(MAX_BODY_BYTES, 0x61), Buffer.from('"}')], { 'transfer-encoding': 'chunked' });
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body).code).toBe('request_too_large');
    const small = await post('/api/ucp/catalog/search', [Buffer.from('{"query":'), Buffer.from('"mug"}')], { 'transfer-encoding': 'chunked' });
    expect(small.status).toBe(200);
  });

  it('a Content-Length over the limit is 413 without reading; exactly the limit is read', async () => {
    const over = await post('/api/ucp/catalog/search', [Buffer.alloc(16, 0x20)], { 'content-length': MAX_BODY_BYTES + 1 });
    expect(over.status).toBe(413);
    const body = Buffer.from(JSON.stringify({ query: 'mug' }).padEnd(MAX_BODY_BYTES, ' '));
    const exact = await post('/api/ucp/catalog/search', [body], { 'content-length': body.length });
    expect(exact.status).toBe(200);
  });
});

