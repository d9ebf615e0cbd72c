/**
 * Shops answer people with pages (server/storefront/error-pages.ts): a browser navigation to a
 * missing page, or while the database is down, gets HTML in the shop's chrome with a language and a
 * title; API clients (JSON, curl's `*\/*`, API paths) keep the flat JSON error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/server.ts';

const PAGE = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s?.close());

describe('404', () => {
  it('a browser gets an HTML page in the shop chrome, with lang, title and a way back', async () => {
    for (const path of ['/nope', '/products/', '/products/nope/extra']) {
      const r = await s.req('demo.localhost', 'GET', path, undefined, PAGE);
      expect(r.status, path).toBe(404);
      expect(r.headers['content-type']).toMatch(/^text\/html/);
      expect(r.text).toMatch(/<html lang="en">/);
      expect(r.text).toContain('<title>Page not found · Demo Outfitters</title>');
      expect(r.text).toContain('<h1>Page not found</h1>');
      expect(r.text).toContain('<a href="/">Back to the shop</a>');
      expect(r.text).toContain('<header class="top"><a class="brand" href="/">Demo Outfitters</a>');
      expect(r.headers['content-security-policy']).toContain("script-src 'self'");
    }
  });

  it('in the shopper\'s language; a missing product says so', async () => {
    const r = await s.req('demo.localhost', 'GET', '/products/nope', undefined, { ...PAGE, cookie: 'ucp_lang=fr' });
    expect(r.status).toBe(404);
    expect(r.text).toMatch(/<html lang="fr">/);
    expect(r.text).toContain('<title>Produit introuvable · Demo Outfitters</title>');
    expect(r.text).toContain('Retour à la boutique');
  });

  it('API clients keep JSON: by Accept, and on API paths whatever the Accept', async () => {
    for (const [path, headers] of [
      ['/nope', { accept: 'application/json' }],
      ['/nope', {}],
      ['/api/ucp/nope', PAGE],
      ['/ucp/nope.js', PAGE],
    ] as const) {
      const r = await s.req('demo.localhost', 'GET', path, undefined, headers);
      expect(r.status, path).toBe(404);
      expect(r.headers['content-type'], path).toMatch(/^application\/json/);
      expect(r.body.code).toBe('not_found');
    }
    // A POST is never a navigation.
    expect((await s.req('demo.localhost', 'POST', '/nope', {}, PAGE)).headers['content-type']).toMatch(/json/);
  });
});

describe('5xx', () => {
  it('with the database gone, the shop home is a page in the shop chrome for a browser, JSON for an API client', async () => {
    const t = await startTestServer();
    const destroy = t.db.destroy.bind(t.db);
    try {
      expect((await t.req('demo.localhost', 'GET', '/', undefined, PAGE)).status).toBe(200); // the shop is now known
      await destroy();
      const r = await t.req('demo.localhost', 'GET', '/?q=flask', undefined, PAGE);
      expect(r.status).toBeGreaterThanOrEqual(500);
      expect(r.headers['content-type']).toMatch(/^text\/html/);
      expect(r.text).toMatch(/<html lang="en">/);
      expect(r.text).toMatch(/<title>(Something went wrong|The shop is unavailable) · Demo Outfitters<\/title>/);
      expect(r.text).not.toContain('/ucp/host'); // no widget while the shop cannot serve
      const api = await t.req('demo.localhost', 'GET', '/?q=flask', undefined, { accept: 'application/json' });
      expect(api.status).toBe(r.status);
      expect(api.headers['content-type']).toMatch(/json/);
    } finally {
      t.db.destroy = async () => {};
      await t.close().catch(() => {});
    }
  });

  it('503 (a connection refused: the database server is down) keeps Retry-After; an unknown host gets a plain page', async () => {
    const t = await startTestServer();
    try {
      // The shop known (its settings cached for the page's words) through its 404 page, not its home:
      // the home page builds the shop's search index, and once built the listing needs no database, so
      // the 503 below would depend on how fast the build was (a 200 was seen under load).
      expect((await t.req('demo.localhost', 'GET', '/nope', undefined, PAGE)).status).toBe(404);
      // The database refuses connections from now on, as a stopped PostgreSQL server does.
      const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      const exec = t.db.getExecutor();
      const original = exec.executeQuery.bind(exec);
      exec.executeQuery = async () => {
        throw refused();
      };
      try {
        const r = await t.req('demo.localhost', 'GET', '/', undefined, { ...PAGE, cookie: 'ucp_lang=fr' });
        expect(r.status).toBe(503);
        expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
        expect(r.text).toMatch(/<html lang="fr">/);
        expect(r.text).toContain('<title>La boutique est indisponible · Demo Outfitters</title>');
        const unknown = await t.req('nowhere.localhost', 'GET', '/', undefined, PAGE);
        expect(unknown.status).toBe(503);
        expect(unknown.text).toMatch(/<html lang="en">/);
        expect(unknown.text).toContain('<title>The shop is unavailable</title>');
        expect((await t.req('demo.localhost', 'GET', '/', undefined, { accept: '*/*' })).body.code).toBe('service_unavailable');
      } finally {
        exec.executeQuery = original;
      }
    } finally {
      await t.close().catch(() => {});
    }
  });
});
