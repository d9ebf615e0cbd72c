/**
 * Issue 47 point 6: a development server fetches loopback agent profiles only for requests that are
 * not cross-site, and a refused profile's message says nothing of what the address answered.
 *
 * A stand-in for "any port on the developer's machine" answers 404, HTML or a foreign JSON document;
 * a web page on another site names it as its profile (REST `UCP-Agent`, MCP `meta`), with the
 * `Origin` or `Sec-Fetch-Site` a browser sends: nothing reaches it. Without `Origin` (a command-line
 * agent) or from a loopback page, it is fetched, and the answer names no status, parse error or path.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

let s: TestServer;
let target: Server;
let base = '';
const hits: string[] = [];

beforeAll(async () => {
  s = await startTestServer();
  target = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><title>router admin</title></html>');
    } else if (req.url === '/json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ internal_service: { secret_path: 'x' } }));
    } else {
      res.writeHead(404, { server: 'InternalThing/1.0' });
      res.end('no');
    }
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await s?.close();
  await new Promise<void>((r) => target.close(() => r()));
});

const agent = (profile: string) => ({ 'ucp-agent': `profile="${profile}"` });
const search = (profile: string, headers: Record<string, string> = {}) => s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 'x' }, { ...agent(profile), ...headers });
const mcpSearch = (profile: string, headers: Record<string, string> = {}) =>
  s.req('demo.localhost', 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: { 'ucp-agent': { profile } }, catalog: { query: 'x' } } } }, { accept: 'application/json, text/event-stream', ...headers });

const CROSS_SITE: Array<[string, Record<string, string>]> = [
  ['a foreign Origin', { origin: 'https://evil.example' }],
  ['Origin: null (a sandboxed frame)', { origin: 'null' }],
  ['a foreign Origin on a loopback port', { origin: 'http://evil.example:8080' }],
  ['Sec-Fetch-Site: cross-site without Origin', { 'sec-fetch-site': 'cross-site' }],
  ['a foreign Origin with Sec-Fetch-Site: same-site (forged or not)', { origin: 'https://evil.example', 'sec-fetch-site': 'same-site' }],
];

describe('development: cross-site requests get no loopback profile fetch', () => {
  it.each(CROSS_SITE)('REST with %s: 400 invalid_profile_url, nothing fetched', async (_what, headers) => {
    const before = hits.length;
    const r = await search(`${base}/json`, headers);
    expect([r.status, r.body.code], r.text).toEqual([400, 'invalid_profile_url']);
    expect(r.body.content).toMatch(/cross-site browser request/);
    // A https profile on a private address is refused as in production (public addresses only).
    const tls = await search('https://127.0.0.1:1/p', headers);
    expect([tls.status, tls.body.code], tls.text).toEqual([424, 'profile_unreachable']);
    expect(hits.length).toBe(before);
  });

  it.each(CROSS_SITE)('MCP with %s: refused, nothing fetched', async (_what, headers) => {
    const before = hits.length;
    const r = await mcpSearch(`${base}/json`, headers);
    expect(r.text).toContain('invalid_profile_url');
    expect(hits.length).toBe(before);
  });

  it.each([
    ['no Origin (a command-line agent)', {}],
    ['a loopback page (localhost)', { origin: 'http://localhost:5173', 'sec-fetch-site': 'cross-site' }],
    ['a *.localhost page', { origin: 'http://agent.localhost:3000', 'sec-fetch-site': 'cross-site' }],
    ['same-origin', { origin: 'http://demo.localhost', 'sec-fetch-site': 'same-origin' }],
  ])('with %s the loopback profile is fetched', async (_what, headers) => {
    const before = hits.length;
    const r = await search(`${base}/json`, headers as Record<string, string>);
    expect([r.status, r.body.code], r.text).toEqual([422, 'profile_malformed']);
    expect(hits.length).toBe(before + 1);
  });
});

describe('a refused profile says nothing of what the address answered', () => {
  it.each([
    ['/missing', 424, 'profile_unreachable'],
    ['/html', 422, 'profile_malformed'],
    ['/json', 422, 'profile_malformed'],
  ])('%s → %i %s, the URL and a generic reason', async (path, status, code) => {
    const r = await search(`${base}${path}`);
    expect([r.status, r.body.code]).toEqual([status, code]);
    const content = String(r.body.content);
    expect(content).toContain(`The agent profile ${base}${path} could not be used`);
    for (const leak of ['404', 'HTTP', 'answered', 'JSON at', 'Unexpected token', 'not valid JSON', 'internal_service', 'secret_path', 'ucp.services', 'Invalid input', 'InternalThing', 'router admin']) {
      expect(content, leak).not.toContain(leak);
    }
  });
});
