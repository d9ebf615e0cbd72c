/**
 * Catalog search's typo-tolerant second pass (server/core/search/search-correction.ts, docs/ucp.md):
 * the edit distance and its allowance by word length, which word wins, and the whole path on REST
 * and MCP — a misspelt query finds the product with an `info` message saying what was searched,
 * its cursors page through the corrected results, a query with nothing close stays empty, and a
 * product written through the merchant API is a correction target at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { correctQuery, editDistance, wordsOf } from '../server/core/search/search-correction.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { expectUcpValid } from './support/ucp-schemas.ts';
import { tokensFor } from './support/oauth.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';

describe('edit distance (optimal string alignment)', () => {
  it('counts insertions, deletions, substitutions and a swap of neighbours as one each', () => {
    expect(editDistance('flask', 'flask', 2)).toBe(0);
    expect(editDistance('flsk', 'flask', 2)).toBe(1);
    expect(editDistance('falsk', 'flask', 2)).toBe(1);
    expect(editDistance('flasks', 'flask', 2)).toBe(1);
    expect(editDistance('blask', 'flask', 2)).toBe(1);
    expect(editDistance('kettle', 'kitten', 3)).toBe(3);
  });

  it('stops at the allowance: anything farther is max + 1', () => {
    expect(editDistance('flask', 'fl', 1)).toBe(2);
    expect(editDistance('abcdefgh', 'hgfedcba', 2)).toBe(3);
  });
});

describe('correctQuery', () => {
  const vocabulary = new Map([
    ['engraved', 3],
    ['steel', 5],
    ['flask', 2],
    ['flash', 1],
    ['mug', 4],
    ['linen', 6],
    ['lines', 6],
  ]);

  it('replaces unknown words by the closest catalog word; known words and the rest of the text stay', () => {
    expect(correctQuery('Engraved flsk', vocabulary)).toBe('Engraved flask');
    expect(correctQuery('stel', vocabulary)).toBe('steel');
    expect(correctQuery('engarved steel', vocabulary)).toBe('engraved steel');
  });

  it('a tie goes to the word more products use, then to alphabetical order', () => {
    expect(correctQuery('flasj', vocabulary)).toBe('flask'); // flask (2 products) beats flash (1)
    expect(correctQuery('lineq', vocabulary)).toBe('linen'); // linen and lines: same use, alphabetical
  });

  it('never corrects words under 4 characters, allows 1 edit below 8 characters and 2 from 8', () => {
    expect(correctQuery('mgu', vocabulary)).toBeNull();
    expect(correctQuery('stiil', vocabulary)).toBeNull(); // 2 edits from "steel", 5 characters
    expect(correctQuery('engrvaedd', vocabulary)).toBe('engraved'); // 2 edits, 9 characters
  });

  it('answers null when nothing is unknown or nothing is close', () => {
    expect(correctQuery('steel mug', vocabulary)).toBeNull();
    expect(correctQuery('zzzzqqq', vocabulary)).toBeNull();
  });

  it('words are runs of letters and digits, lower-cased, accents kept', () => {
    expect(wordsOf('Flasque en acier gravée, 8-inch')).toEqual(['flasque', 'en', 'acier', 'gravée', '8', 'inch']);
  });
});

describe('the second pass on the transports', () => {
  let s: TestServer;
  const PROFILE = 'https://platform.example/.well-known/ucp';
  serveProfiles({ [PROFILE]: platformProfile() });
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s?.close());

  const search = (body: object) => s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', body);

  it('REST: a misspelt query finds the product, says what it searched for, and stays schema-valid', async () => {
    const r = await search({ query: 'engarved flsk' });
    expect(r.status).toBe(200);
    expectUcpValid('shopping/catalog_search.json#/$defs/search_response', r.body);
    expect(r.body.products.map((p: any) => p.id)).toContain('prod_engraved_flask');
    expect(r.body.messages).toEqual([{ type: 'info', code: 'query_corrected', content: 'No products match "engarved flsk"; showing results for "engraved flask".' }]);
  });

  it('REST: a query with nothing close stays empty, with no message; an exact query gets no message', async () => {
    const miss = await search({ query: 'zzzzqqq' });
    expect(miss.body.products).toEqual([]);
    expect(miss.body.messages).toBeUndefined();
    const hit = await search({ query: 'flask' });
    expect(hit.body.products.length).toBeGreaterThan(0);
    expect(hit.body.messages).toBeUndefined();
  });

  it("the original query's cursors page through the corrected results", async () => {
    const exact = await search({ query: 'ceramic', pagination: { limit: 1 } });
    expect(exact.body.products.length).toBe(1);
    const first = await search({ query: 'ceramik', pagination: { limit: 1 } });
    expect(first.body.products.map((p: any) => p.id)).toEqual(exact.body.products.map((p: any) => p.id));
    if (!exact.body.pagination.has_next_page) return;
    const next = await search({ query: 'ceramik', pagination: { limit: 1, cursor: first.body.pagination.cursor } });
    const exactNext = await search({ query: 'ceramic', pagination: { limit: 1, cursor: exact.body.pagination.cursor } });
    expect(next.body.products.map((p: any) => p.id)).toEqual(exactNext.body.products.map((p: any) => p.id));
    expect(next.body.messages?.[0]?.code).toBe('query_corrected');
  });

  it('MCP search_catalog carries the same message', async () => {
    const r = await s.req('demo.localhost', 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_catalog', arguments: { meta: { 'ucp-agent': { profile: PROFILE } }, catalog: { query: 'flsk' } } } }, { accept: 'application/json' });
    const result = r.body.result.structuredContent;
    expect(result.products.map((p: any) => p.id)).toContain('prod_engraved_flask');
    expect(result.messages).toEqual([expect.objectContaining({ type: 'info', code: 'query_corrected' })]);
  });

  it('a product written through the merchant API is a correction target at once', async () => {
    expect((await search({ query: 'zephyrkraft' })).body.products).toEqual([]);
    const token = (await tokensFor(s, 'products_write products_read')).access_token;
    const created = await s.req('localhost', 'POST', '/merchants/shop_demo/3.0/products', { id: 'prod_zephyrcraft', handle: 'zephyrcraft-kettle', title: 'Zephyrcraft Kettle', description: 'A kettle.', variants: [{ id: 'var_zephyrcraft', price: 4500 }] }, { authorization: `Bearer ${token}` });
    expect(created.status).toBe(201);
    const r = await search({ query: 'zephyrkraft' });
    expect(r.body.products.map((p: any) => p.id)).toEqual(['prod_zephyrcraft']);
    expect(r.body.messages[0].content).toContain('"zephyrcraft"');
  });
});
