import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';
import { expectUcpValid } from './support/ucp-schemas.ts';
import { platformProfile, serveProfiles } from './support/platform.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const search = (body: unknown, host = 'demo.localhost', headers: Record<string, string> = {}) =>
  s.req(host, 'POST', '/api/ucp/catalog/search', body, headers);

describe('POST /api/ucp/catalog/search', () => {
  it('finds products by full-text query with full product objects', async () => {
    const r = await search({ query: 'flask' });
    expect(r.status).toBe(200);
    expectUcpValid('shopping/catalog_search.json#/$defs/search_response', r.body);
    expect(r.body.ucp.capabilities).toEqual({ 'dev.ucp.shopping.catalog.search': [{ version: '2026-04-08' }] });
    const flask = r.body.products.find((p: any) => p.id === 'prod_engraved_flask');
    expect(flask).toBeDefined();
    expect(flask.title).toBe('Engraved Steel Flask');
    expect(flask.url).toBe(`http://demo.localhost:${s.port}/products/engraved-flask`);
    expect(flask.variants.map((v: any) => v.id).sort()).toEqual(['var_flask_black', 'var_flask_steel']);
    const steel = flask.variants.find((v: any) => v.id === 'var_flask_steel');
    expect(steel.price).toEqual({ amount: 3200, currency: 'USD' });
    expect(steel.metadata.customizations.map((c: any) => [c.id, c.type, c.required])).toEqual([
      ['engraving', 'text', true],
      ['gift_box', 'single_select', true],
      ['extras', 'multi_select', false],
    ]);
    expect(flask.media[0].url).toMatch(new RegExp(`^http://demo\\.localhost:${s.port}/media/`));
  });

  it('ranks title matches above products that only mention the word', async () => {
    const r = await search({ query: 'flask', limit: 50 });
    const titles = r.body.products.map((p: any) => /flask/i.test(p.title));
    expect(titles[0]).toBe(true);
    // Once the ranking reaches products without the word in the title, no title match follows.
    const firstWithout = titles.indexOf(false);
    if (firstWithout >= 0) expect(titles.slice(firstWithout)).not.toContain(true);
  });

  it('never returns another shop\'s products (tenant isolation)', async () => {
    const demo = await search({ query: 'flask' });
    const other = await search({ query: 'flask' }, 'other.localhost');
    expect(other.status).toBe(200);
    expect(other.body.products.length).toBeGreaterThan(0);
    expect(other.body.products.every((p: any) => p.id.startsWith('other_'))).toBe(true);
    expect(demo.body.products.some((p: any) => p.id.startsWith('other_'))).toBe(false);
  });

  it('searches and localizes in French, converting prices to EUR', async () => {
    const r = await search({ query: 'gravée', context: { language: 'fr', currency: 'EUR' } });
    expect(r.status).toBe(200);
    expectUcpValid('shopping/catalog_search.json#/$defs/search_response', r.body);
    const flask = r.body.products.find((p: any) => p.id === 'prod_engraved_flask');
    expect(flask.title).toBe('Flasque en acier gravée');
    // 32.00 USD * 0.92 = 29.44 EUR
    expect(flask.variants.find((v: any) => v.id === 'var_flask_steel').price).toEqual({ amount: 2944, currency: 'EUR' });
    expect(r.headers['content-language']).toBe('fr');
  });

  it('converts to a zero-decimal currency (JPY)', async () => {
    const r = await search({ query: 'flask', context: { currency: 'JPY' } });
    const steel = r.body.products.find((p: any) => p.id === 'prod_engraved_flask').variants.find((v: any) => v.id === 'var_flask_steel');
    // 32.00 USD * 151.5 = 4848 JPY (no minor units)
    expect(steel.price).toEqual({ amount: 4848, currency: 'JPY' });
  });

  it('falls back to Accept-Language when context.language is absent', async () => {
    const r = await search({ query: 'flask' }, 'demo.localhost', { 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' });
    expect(r.body.products.find((p: any) => p.id === 'prod_engraved_flask').title).toBe('Flasque en acier gravée');
  });

  it('answers unknown currency and language with warnings, not failures', async () => {
    const r = await search({ query: 'flask', context: { currency: 'XYZ', language: 'de' } });
    expect(r.status).toBe(200);
    expectUcpValid('shopping/catalog_search.json#/$defs/search_response', r.body);
    const codes = r.body.messages.map((m: any) => [m.code, m.path]);
    expect(codes).toContainEqual(['unsupported_currency', '$.context.currency']);
    expect(codes).toContainEqual(['unsupported_language', '$.context.language']);
    expect(r.body.products[0].price_range.min.currency).toBe('USD');
  });

  it('browses by filters without a query and pages through every product exactly once', async () => {
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const body: any = { filters: {}, pagination: { limit: 7, ...(cursor ? { cursor } : {}) } };
      const r = await search(body);
      expect(r.status).toBe(200);
      expectUcpValid('shopping/catalog_search.json#/$defs/search_response', r.body);
      expect(r.body.products.length).toBeLessThanOrEqual(7);
      for (const p of r.body.products) {
        expect(seen.has(p.id)).toBe(false);
        seen.add(p.id);
      }
      cursor = r.body.pagination.has_next_page ? r.body.pagination.cursor : undefined;
      if (r.body.pagination.has_next_page) expect(typeof cursor).toBe('string');
      pages++;
    } while (cursor && pages < 20);
    expect(seen.size).toBeGreaterThanOrEqual(40);
    const dflt = await search({ filters: {} });
    expect(dflt.body.products).toHaveLength(10);
    const seedForm = await search({ filters: {}, limit: 3 });
    expect(seedForm.body.products).toHaveLength(3);
    const next = await search({ filters: {}, limit: 3, cursor: seedForm.body.pagination.cursor });
    expect(next.body.products[0].id).not.toBe(seedForm.body.products[0].id);
  });

  it('clamps a huge limit to the documented maximum', async () => {
    const r = await search({ filters: {}, limit: 10_000 });
    expect(r.status).toBe(200);
    expect(r.body.products.length).toBeLessThanOrEqual(50);
    expect(r.body.products.length).toBeGreaterThan(10);
  });

  it('filters by category and price range in the request currency', async () => {
    const r = await search({ filters: { categories: ['accessories'] }, limit: 50 });
    expect(r.body.products.length).toBeGreaterThan(0);
    expect(r.body.products.every((p: any) => p.categories.some((c: any) => c.value === 'accessories'))).toBe(true);
    const cheap = await search({ filters: { price: { max: 2000 } }, limit: 50 });
    expect(cheap.body.products.length).toBeGreaterThan(0);
    expect(cheap.body.products.every((p: any) => p.price_range.min.amount <= 2000)).toBe(true);
  });

  it('returns an empty list (no error) when nothing matches', async () => {
    const r = await search({ query: 'zzzqqqxxyy' });
    expect(r.status).toBe(200);
    expect(r.body.products).toEqual([]);
    expect(r.body.pagination.has_next_page).toBe(false);
    expectUcpValid('shopping/catalog_search.json#/$defs/search_response', r.body);
  });

  it('rejects an empty request, naming the field', async () => {
    const r = await search({});
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_request');
    expect(r.body.messages[0].path).toBe('$.query');
  });

  it('rejects a forged cursor', async () => {
    const r = await search({ filters: {}, cursor: 'not-a-cursor' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_cursor');
  });
});

describe('POST /api/ucp/catalog/lookup', () => {
  it('resolves product and variant ids, dedupes, and marks inputs', async () => {
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/lookup', {
      ids: ['prod_classic_tee', 'var_flask_black', 'var_flask_black', 'nope_123'],
    });
    expect(r.status).toBe(200);
    expectUcpValid('shopping/catalog_lookup.json#/$defs/lookup_response', r.body);
    expect(r.body.ucp.capabilities).toEqual({ 'dev.ucp.shopping.catalog.lookup': [{ version: '2026-04-08' }] });
    const ids = r.body.products.map((p: any) => p.id).sort();
    expect(ids).toEqual(['prod_classic_tee', 'prod_engraved_flask']);
    const flask = r.body.products.find((p: any) => p.id === 'prod_engraved_flask');
    expect(flask.variants).toHaveLength(1);
    expect(flask.variants[0].inputs).toEqual([{ id: 'var_flask_black', match: 'exact' }]);
    const tee = r.body.products.find((p: any) => p.id === 'prod_classic_tee');
    expect(tee.variants).toHaveLength(1);
    expect(tee.variants[0].inputs).toEqual([{ id: 'prod_classic_tee', match: 'featured' }]);
    expect(r.body.messages).toContainEqual({ type: 'info', code: 'not_found', content: 'nope_123' });
  });

  it('cannot see another shop\'s ids', async () => {
    const other = await s.req('other.localhost', 'POST', '/api/ucp/catalog/lookup', { ids: ['var_flask_black'] });
    expect(other.status).toBe(200);
    expect(other.body.products).toEqual([]);
  });

  it('refuses batches over the limit with 400 request_too_large', async () => {
    const ids = Array.from({ length: 51 }, (_, i) => `id_${i}`);
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/lookup', { ids });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('request_too_large');
  });

  it('requires at least one id', async () => {
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/lookup', { ids: [] });
    expect(r.status).toBe(400);
    expect(r.body.messages[0].path).toBe('$.ids');
  });
});

describe('POST /api/ucp/catalog/product', () => {
  it('returns one full product with the requested variant first and a selection', async () => {
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/product', { id: 'var_tee_l_navy', context: { currency: 'GBP' } });
    expect(r.status).toBe(200);
    expectUcpValid('shopping/catalog_lookup.json#/$defs/get_product_response', r.body);
    expect(r.body.product.id).toBe('prod_classic_tee');
    expect(r.body.product.variants[0].id).toBe('var_tee_l_navy');
    expect(r.body.product.variants).toHaveLength(6);
    expect(r.body.product.selected.map((x: any) => x.id).sort()).toEqual(['l', 'navy']);
    // 25.00 USD * 0.79 = 19.75 GBP
    expect(r.body.product.variants[0].price).toEqual({ amount: 1975, currency: 'GBP' });
  });

  it('honours selected options', async () => {
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/product', {
      id: 'prod_classic_tee',
      selected: [{ name: 'size', label: 'S', id: 's' }, { name: 'color', label: 'White', id: 'white' }],
    });
    expect(r.body.product.variants[0].id).toBe('var_tee_s_white');
    const size = r.body.product.options.find((o: any) => o.name === 'Size');
    expect(size.values.every((v: any) => v.exists === true)).toBe(true);
  });

  it("option names are display names in the request's language (UCP: 'Size'); requests may name options either way", async () => {
    const fr = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/product', {
      id: 'prod_classic_tee',
      context: { language: 'fr' },
      selected: [{ name: 'Taille', label: 'S' }, { name: 'couleur', label: 'Blanc' }],
    });
    expectUcpValid('shopping/catalog_lookup.json#/$defs/get_product_response', fr.body);
    expect(fr.body.product.options.map((o: any) => o.name)).toEqual(['Taille', 'Couleur']);
    expect(fr.body.product.variants[0].id).toBe('var_tee_s_white');
    expect(fr.body.product.selected).toEqual([{ name: 'Taille', label: 'S', id: 's' }, { name: 'Couleur', label: 'Blanc', id: 'white' }]);
    // The English display name, and the catalog's option id, select the same way; preferences too.
    for (const selected of [[{ name: 'Size', label: 'M' }, { name: 'Color', label: 'Navy' }], [{ name: 'size', id: 'm', label: 'M' }, { name: 'color', id: 'navy', label: 'Navy' }]]) {
      const r = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/product', { id: 'prod_classic_tee', selected, preferences: ['Color'] });
      expect(r.body.product.variants[0].id).toBe('var_tee_m_navy');
      expect(r.body.product.options.map((o: any) => o.name)).toEqual(['Size', 'Color']);
    }
  });

  it('answers a miss with a UCP error_response (200, not_found)', async () => {
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/product', { id: 'missing_product' });
    expect(r.status).toBe(200);
    expectUcpValid('shopping/types/error_response.json', r.body);
    expect(r.body.ucp.status).toBe('error');
    expect(r.body.messages[0]).toMatchObject({ type: 'error', code: 'not_found', severity: 'unrecoverable' });
  });

  it('does not resolve another shop\'s product', async () => {
    const r = await s.req('other.localhost', 'POST', '/api/ucp/catalog/product', { id: 'prod_engraved_flask' });
    expect(r.body.ucp.status).toBe('error');
  });
});

describe('bad input on the REST transport', () => {
  it('malformed JSON is a 400 with code and content', async () => {
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', '{"query": ');
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_json');
    expect(typeof r.body.content).toBe('string');
  });

  it('schema violations name every bad field', async () => {
    const r = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', { query: 5, pagination: { limit: 0 }, filters: { price: { min: -1 } } });
    expect(r.status).toBe(400);
    const paths = r.body.messages.map((m: any) => m.path).sort();
    expect(paths).toEqual(['$.filters.price.min', '$.pagination.limit', '$.query'].sort());
    expect(r.text).not.toMatch(/at .*\.ts:\d+/); // no stack traces
  });

  it('wrong content type is 415, oversized body 413, wrong method 405, unknown route 404', async () => {
    const t = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', 'query=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(t.status).toBe(415);
    const big = await s.req('demo.localhost', 'POST', '/api/ucp/catalog/search', JSON.stringify({ query: 'x'.repeat(1024 * 1024 + 10) }));
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('request_too_large');
    const m = await s.req('demo.localhost', 'GET', '/api/ucp/catalog/search');
    expect(m.status).toBe(405);
    expect(m.headers.allow).toBe('POST');
    const n = await s.req('demo.localhost', 'GET', '/api/ucp/nothing-here');
    expect(n.status).toBe(404);
    expect(n.body.code).toBe('not_found');
  });

  it('parses UCP-Agent as an RFC 8941 dictionary and rejects a malformed one', async () => {
    // A well-formed header makes the server fetch the profile (docs/access.md): serve one.
    serveProfiles({ 'https://agent.example/.well-known/ucp': platformProfile() });
    const ok = await search({ query: 'mug' }, 'demo.localhost', { 'ucp-agent': 'profile="https://agent.example/.well-known/ucp"' });
    expect(ok.status).toBe(200);
    const bad = await search({ query: 'mug' }, 'demo.localhost', { 'ucp-agent': 'profile=https://no-quotes' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_profile_url');
    const notUrl = await search({ query: 'mug' }, 'demo.localhost', { 'ucp-agent': 'profile="not a url"' });
    expect(notUrl.status).toBe(400);
  });
});
