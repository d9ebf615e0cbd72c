/**
 * MCP Apps on the shop's MCP server (docs/mcp-apps.md): which tools name the view and which the view
 * may never call, the `ui://` resource (MIME type, CSP, a self-contained document), and that hosts
 * without the extension get exactly the results they got before. The view itself is tested in
 * browsers with the official AppBridge (e2e/mcp-apps.spec.ts, e2e/engines/flows.ts).
 *
 * Both protocol eras (docs/mcp.md "MCP Apps hosts in each era"): each `describe.each(ERAS)` block
 * runs with the official client in its default 2025 handshake and pinned to 2026-07-28, and its raw
 * POSTs in that era's form (test/support/mcp-eras.ts), with the same assertions; where an answer's
 * form differs by era, each era's own form is asserted.
 */
import './support/localhost-dns.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';
import { APP_MIME, APP_URI } from '../server/mcp/apps.ts';
import { connectInEra, ERAS, expectEraResult, MODERN, rawRequest, type Era } from './support/mcp-eras.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const PROFILE = 'https://platform.example/.well-known/ucp';
serveProfiles({ [PROFILE]: platformProfile() });
const meta = { 'ucp-agent': { profile: PROFILE } };
const JSON_ONLY = { accept: 'application/json' };
let id = 1;
/** A raw JSON-RPC POST in `era` (2026-07-28: with the `_meta` envelope and the MCP headers). */
const rawIn = (era: Era) => (method: string, params?: unknown, host = 'demo.localhost') => {
  const req = rawRequest(era, id++, method, params);
  return s.req(host, 'POST', '/mcp', req.body, { ...JSON_ONLY, ...req.headers });
};

const sdkClient = (era: Era) => connectInEra(new URL(`http://demo.localhost:${s.port}/mcp`), era, 'apps-test');

describe.each(ERAS)('tools name the view (official SDK client, $era)', ({ era }) => {
  const rpc = rawIn(era);

  it('the catalog and cart tools carry _meta.ui.resourceUri; cancel_cart is visible to the model only', async () => {
    const client = await sdkClient(era);
    try {
      const { tools } = await client.listTools();
      const ui = Object.fromEntries(tools.map((t) => [t.name, (t._meta as { ui?: unknown } | undefined)?.ui]));
      for (const name of ['search_catalog', 'lookup_catalog', 'get_product', 'create_cart', 'get_cart', 'update_cart']) expect(ui[name], name).toEqual({ resourceUri: APP_URI });
      expect(ui.cancel_cart).toEqual({ visibility: ['model'] });
    } finally {
      await client.close();
    }
  });

  it('the server announces resources and the MCP Apps extension: at initialize in 2025, in server/discover in 2026-07-28', async () => {
    const r = era === MODERN ? await rpc('server/discover') : await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    expect(r.body.result.capabilities.resources).toEqual({ listChanged: false });
    expect(r.body.result.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/ui': {} });
  });
});

describe.each(ERAS)('the ui:// resource ($era)', ({ era }) => {
  const rpc = rawIn(era);

  it('resources/list names the one view with the MCP Apps MIME type', async () => {
    const client = await sdkClient(era);
    try {
      const { resources } = await client.listResources();
      expect(resources).toEqual([expect.objectContaining({ uri: APP_URI, mimeType: APP_MIME })]);
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('resources/read gives one self-contained HTML document whose CSP names only the image origin', async () => {
    const client = await sdkClient(era);
    try {
      const { contents } = await client.readResource({ uri: APP_URI });
      expect(contents).toHaveLength(1);
      const c = contents[0] as { uri: string; mimeType: string; text: string; _meta: any };
      expect(c.uri).toBe(APP_URI);
      expect(c.mimeType).toBe('text/html;profile=mcp-app');
      expect(c.text.startsWith('<!doctype html>')).toBe(true);
      // Everything inline: nothing to fetch from an origin the default CSP does not allow.
      expect(c.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=|@import/i);
      expect(c.text).toMatch(/<script type="module">/);
      // Images only; the shop's API is never a connect domain (views reach it through the host).
      expect(c._meta.ui).toEqual({ csp: { resourceDomains: [`http://demo.localhost:${s.port}`] }, prefersBorder: true });
      // Data-agnostic: the same document for another shop.
      const other = await rpc('resources/read', { uri: APP_URI }, 'strict.localhost');
      expect(other.body.result.contents[0].text).toBe(c.text);
      expect(other.body.result.contents[0]._meta.ui.csp.resourceDomains).toEqual([`http://strict.localhost:${s.port}`]);
    } finally {
      await client.close();
    }
  });

  it('an unknown URI is the era\'s not-found error naming the resource that exists; a malformed read is -32602', async () => {
    const r = await rpc('resources/read', { uri: 'ui://ucp/other.html' });
    // 2025: -32002 as before; 2026-07-28: -32602 with data {uri} (that revision's MUST; docs/mcp.md "Eras").
    if (era === MODERN) {
      expect(r.body.error.code).toBe(-32602);
      expect(r.body.error.data).toEqual({ uri: 'ui://ucp/other.html' });
    } else expect(r.body.error.code).toBe(-32002);
    expect(r.body.error.message).toContain(APP_URI);
    const bad = await rpc('resources/read', { uri: 42 });
    expect(bad.status).toBe(200);
    expect(bad.body.error.code).toBe(-32602);
  });

  it('needs no agent profile (public, like host.js) but exists only where MCP is on', async () => {
    expect((await rpc('resources/list')).body.result.resources).toHaveLength(1);
    const off = await rpc('resources/list', undefined, 'other.localhost');
    expect(off.status).toBe(404);
  });
});

describe.each(ERAS)('hosts without the extension ($era)', ({ era }) => {
  const rpc = rawIn(era);

  it('get the same tool result as before: content[] and structuredContent, nothing else (2026-07-28: and that era\'s resultType and serverInfo)', async () => {
    const r = await rpc('tools/call', { name: 'search_catalog', arguments: { meta, catalog: { query: 'flask' } } });
    expect(Object.keys(r.body.result).sort()).toEqual(era === MODERN ? ['_meta', 'content', 'resultType', 'structuredContent'] : ['content', 'structuredContent']);
    expectEraResult(era, r.body.result);
    if (era === MODERN) expect(Object.keys(r.body.result._meta)).toEqual(['io.modelcontextprotocol/serverInfo']);
    expect(JSON.parse(r.body.result.content[0].text)).toEqual(r.body.result.structuredContent);
  });
});

// A GET carries no JSON-RPC request, so no era: one test.
describe('browser MCP clients', () => {
  it("GET /mcp (a client's SSE attempt) answers 405 with CORS headers, so the client reads it", async () => {
    const r = await s.req('demo.localhost', 'GET', '/mcp', undefined, { accept: 'text/event-stream', origin: 'http://localhost:5173' });
    expect(r.status).toBe(405);
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });
});
