/**
 * Issue 39 point 7: idempotency keys belong to their caller. A second caller who sends a known key
 * and body gets its own new cart, never the first caller's; the same caller replays over REST and
 * MCP alike (one store); a channel API key is one caller from any address (docs/security.md).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { requestFrom } from './support/from-address.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';
import { issueChannelKey } from '../server/core/access/channel-keys.ts';

const P1 = 'https://agent-one.example/.well-known/ucp';
const P2 = 'https://agent-two.example/.well-known/ucp';
const CART = { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] };

let s: TestServer;
let channelKey: string;
beforeAll(async () => {
  s = await startTestServer();
  serveProfiles({ [P1]: platformProfile(), [P2]: platformProfile() });
  channelKey = (await issueChannelKey(s.db, 'shop_demo', { profileUrl: P1 })).key;
});
afterAll(() => s.close());

const restFrom = (from: string, profile: string, key: string, headers: Record<string, string> = {}) =>
  requestFrom({ port: s.port, from, host: 'demo.localhost', method: 'POST', path: '/api/ucp/carts', body: CART, headers: { 'ucp-agent': `profile="${profile}"`, 'idempotency-key': key, ...headers } });
let rpc = 1;
const mcpFrom = (from: string, profile: string, key: string) =>
  requestFrom({ port: s.port, from, host: 'demo.localhost', method: 'POST', path: '/mcp', headers: { accept: 'application/json' }, body: { jsonrpc: '2.0', id: rpc++, method: 'tools/call', params: { name: 'create_cart', arguments: { meta: { 'ucp-agent': { profile }, 'idempotency-key': key }, cart: CART } } } });
const mcpCartId = (r: { body: any }) => r.body.result.structuredContent.id as string;

describe('idempotency keys are scoped to the caller', () => {
  it('REST: another anonymous caller (address and profile) with the same key and body gets its own cart', async () => {
    const key = randomUUID();
    const first = await restFrom('127.0.7.1', P1, key);
    expect(first.status).toBe(201);
    const stranger = await restFrom('127.0.7.2', P2, key);
    expect(stranger.status).toBe(201);
    expect(stranger.body.id).not.toBe(first.body.id);
    // Naming the first caller's profile from another address is not enough either (an unverified URL is no identity).
    const impostor = await restFrom('127.0.7.3', P1, key);
    expect(impostor.body.id).not.toBe(first.body.id);
    // The first caller's retry still replays its own cart.
    expect((await restFrom('127.0.7.1', P1, key)).body.id).toBe(first.body.id);
  });

  it('MCP: the same, and a key used over MCP replays over REST for the same caller (one store)', async () => {
    const key = randomUUID();
    const first = await mcpFrom('127.0.8.1', P1, key);
    expect(first.status).toBe(200);
    const id = mcpCartId(first);
    expect(id).toMatch(/^cart_/);
    expect(mcpCartId(await mcpFrom('127.0.8.2', P2, key))).not.toBe(id);
    expect(mcpCartId(await mcpFrom('127.0.8.1', P1, key))).toBe(id);
    const overRest = await restFrom('127.0.8.1', P1, key);
    expect(overRest.status).toBe(201);
    expect(overRest.body.id).toBe(id);
    expect((await restFrom('127.0.8.2', P2, key)).body.id).not.toBe(id);
  });

  it('a channel API key is one caller from any address; without it the same key is someone else', async () => {
    const key = randomUUID();
    const auth = { authorization: `Bearer ${channelKey}` };
    const first = await restFrom('127.0.9.1', P1, key, auth);
    expect(first.status).toBe(201);
    expect((await restFrom('127.0.9.2', P1, key, auth)).body.id).toBe(first.body.id);
    const anonymous = await restFrom('127.0.9.1', P1, key);
    expect(anonymous.status).toBe(201);
    expect(anonymous.body.id).not.toBe(first.body.id);
  });
});
