/**
 * The two MCP protocol eras one `/mcp` serves, chosen per request (docs/mcp.md "Eras"), for suites
 * that run the same tests in both: the official v2 client's options that reach each era, and what a
 * raw JSON-RPC POST adds in 2026-07-28 (the `_meta` envelope in `params`, the standard headers).
 *
 *     describe.each(ERAS)('… ($era)', ({ era }) => { … connectInEra(url, era) … rawRequest(era, …) … })
 */
import { expect } from 'vitest';
import { Client, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client';
import { isObject } from '../../server/mcp/messages.ts';

export const LEGACY = '2025-11-25';
export const MODERN = '2026-07-28';
export type Era = typeof LEGACY | typeof MODERN;

/** One row per era: the v2 client's default (`legacy`: the initialize handshake) and pinned to 2026-07-28. */
export const ERAS: ReadonlyArray<{ era: Era; options: ClientOptions }> = [
  { era: LEGACY, options: {} },
  { era: MODERN, options: { versionNegotiation: { mode: { pin: MODERN } } } },
];

/** A v2 client connected to `url` in `era`, having checked that this era is what it negotiated. */
export async function connectInEra(url: URL, era: Era, name = 'era-test'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, ERAS.find((e) => e.era === era)!.options);
  await client.connect(new StreamableHTTPClientTransport(url));
  expect(client.getNegotiatedProtocolVersion()).toBe(era);
  return client;
}

/** The 2026-07-28 per-request envelope (`params._meta`). */
export const envelope = (version: string = MODERN) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
});

/**
 * One JSON-RPC request as a raw POST sends it in `era`: in 2025 the plain request (what
 * @shopify/ucp-cli sends); in 2026-07-28 the envelope added to `params._meta` (beside any `_meta`
 * already there) and `MCP-Protocol-Version`, `Mcp-Method` and, on a string `params.name` /
 * `params.uri`, `Mcp-Name`. Params that are not an object cannot carry the envelope: 2025 only.
 */
export function rawRequest(era: Era, id: string | number, method: string, params?: unknown) {
  if (era === LEGACY) return { body: { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }, headers: {} as Record<string, string> };
  if (params !== undefined && !isObject(params)) throw new Error(`a ${MODERN} request's params must be an object to carry the _meta envelope`);
  const p = params ?? {};
  const name = typeof p.name === 'string' ? p.name : typeof p.uri === 'string' ? p.uri : undefined;
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) };
  return { body: { jsonrpc: '2.0', id, method, params: { ...p, _meta: { ...(isObject(p._meta) ? p._meta : {}), ...envelope() } } }, headers };
}

/**
 * What every 2026-07-28 result carries and a 2025 one never does: `resultType: "complete"` and
 * the server's name and version in `_meta["io.modelcontextprotocol/serverInfo"]`.
 */
export function expectEraResult(era: Era, result: Record<string, any>) {
  if (era === MODERN) {
    expect(result.resultType).toBe('complete');
    expect(result._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'ucp-storefront', version: expect.any(String) });
  } else {
    expect(result.resultType).toBeUndefined();
    expect(result._meta?.['io.modelcontextprotocol/serverInfo']).toBeUndefined();
  }
}
