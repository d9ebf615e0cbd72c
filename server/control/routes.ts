/**
 * The running server's control routes, for the commands beside it (docs/cli.md "import"): with the
 * embedded database only the server's process may open the data directory, so `ucp-storefront
 * import` hands its file to the server that holds it. The caller proves it may open the directory
 * by the token the server wrote into the directory's lock (data-dir-lock.ts): no token, no route
 * (404, and on PostgreSQL, where commands open the database themselves, there is none).
 */
import { Hono } from 'hono';
import type { AppEnv } from '../http/env.ts';
import { ownControlToken } from '../db/data-dir-lock.ts';
import { safeEqual } from '../lib/crypto.ts';
import { FORMATS, ImportParseError, type ImportFormat } from '../import/adapter.ts';
import { fileChunks, spool } from '../import/input.ts';
import { ImportRefused, runImport, type ImportResult } from '../import/run.ts';
import { CatalogFileError } from '../core/catalog/catalog-check.ts';
import { importWithFeeds, listFeeds, MIN_EVERY_SECONDS, removeFeed } from '../import/feeds.ts';
import { isFeedUrl } from '../import/feed-fetch.ts';

/** What the command sends besides the file: its options, as query parameters. */
export interface ControlImportQuery {
  shop: string;
  /** A file's name (its bytes are the body), or: */
  file?: string;
  /** a feed's URL, which the server fetches (no body). */
  url?: string;
  /** With url: seconds between scheduled imports. */
  every?: string;
  domain?: string;
  name?: string;
  currency?: string;
  language?: string;
  storefront_url?: string;
  format?: ImportFormat;
  source?: string;
  partial?: '1';
  allow_shrink?: '1';
  dry_run?: '1';
}

export function controlRoutes() {
  const r = new Hono<AppEnv>();
  r.use('*', async (c, next) => {
    const token = ownControlToken();
    const given = /^Bearer (\S+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    if (!token || !given || !safeEqual(given, token)) return c.json({ error: 'not_found', message: 'No such route.' }, 404);
    await next();
  });
  r.post('/import', async (c) => {
    const q = c.req.query() as Partial<ControlImportQuery>;
    const feed = q.url !== undefined;
    if (!q.shop || (feed ? !isFeedUrl(q.url!) : !q.file || !c.req.raw.body)) return c.json({ error: 'invalid_request', message: 'shop and a file with its body, or an http(s) url, are required' }, 400);
    if (q.format && !FORMATS.includes(q.format)) return c.json({ error: 'invalid_request', message: `format must be one of ${FORMATS.join(', ')}` }, 400);
    const every = q.every === undefined ? undefined : Number(q.every);
    if (every !== undefined && !(feed && Number.isInteger(every) && every >= MIN_EVERY_SECONDS)) return c.json({ error: 'invalid_request', message: `every is whole seconds, at least ${MIN_EVERY_SECONDS}, with a url` }, 400);
    const body = c.req.raw.body;
    const opts = {
      format: q.format,
      shop: { id: q.shop, domain: q.domain, name: q.name, currency: q.currency, language: q.language, storefrontUrl: q.storefront_url },
      source: q.source,
      partial: q.partial === '1',
      allowShrink: q.allow_shrink === '1',
      dryRun: q.dry_run === '1',
    };
    let file: Awaited<ReturnType<typeof spool>> | undefined;
    try {
      // The file is received whole before the import's transaction begins (input.ts spool).
      if (!feed) file = await spool(body as unknown as AsyncIterable<Uint8Array>);
      const result: ImportResult = file
        ? await runImport(c.get('db'), { ...opts, sources: [{ name: q.file!, chunks: () => fileChunks(file!.path) }] })
        : await importWithFeeds(c.get('db'), { ...opts, urls: [q.url!], every, fetch: { mode: c.get('config').mode } });
      return c.json(result);
    } catch (e) {
      if (e instanceof ImportParseError || e instanceof ImportRefused) return c.json({ error: 'import_refused', message: e.message }, 422);
      if (e instanceof CatalogFileError) return c.json({ error: 'import_refused', message: e.message, issues: e.issues }, 422);
      throw e;
    } finally {
      await file?.remove();
    }
  });
  // `ucp-storefront feeds list|remove` beside the server holding the embedded database.
  r.get('/feeds', async (c) => c.json(await listFeeds(c.get('db'), c.req.query('shop') || undefined)));
  r.delete('/feeds', async (c) => {
    const { shop, url } = c.req.query();
    if (!shop || !url) return c.json({ error: 'invalid_request', message: 'shop and url are required' }, 400);
    return c.json({ removed: await removeFeed(c.get('db'), shop, url) });
  });
  return r;
}
