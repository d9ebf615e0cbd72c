import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { API_VERSION } from '../server/version.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('GraphQL version query on the real server', () => {
  it('answers on every storefront domain, protocol on or off', async () => {
    for (const host of ['demo.localhost', 'other.localhost', 'offline.localhost']) {
      const r = await s.req(host, 'POST', '/graphql/3.0', { query: 'query { apiVersion }' });
      expect(r.status, host).toBe(200);
      expect(r.body).toEqual({ data: { apiVersion: API_VERSION } });
    }
  });

  it('rejects a malformed query with 400 and errors', async () => {
    const r = await s.req('demo.localhost', 'POST', '/graphql/3.0', { query: 'query { apiVersion' });
    expect(r.status).toBe(400);
    expect(Array.isArray(r.body.errors)).toBe(true);
  });
});
