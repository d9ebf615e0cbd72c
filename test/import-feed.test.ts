/**
 * Feeds by URL (docs/import-feeds.md), on both databases: `ucp-storefront import URL` fetches a
 * Google feed from a loopback HTTP server with a conditional GET (ETag, Last-Modified: 304 writes
 * nothing and says unchanged), gzip, redirects (a loop refused), 404 / too large / a cut connection
 * refused with nothing written, production refusing loopback in every spelling; `--every` schedules
 * it, the server's loop imports it when due (due time rewound in the database instead of waiting),
 * `feeds list|remove`, and several workers on one database fetch a due feed once.
 * Embedded: the command goes through the running server's control route (the server holds DATA_DIR);
 * PostgreSQL: the command opens the database itself.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../server/cli/main.ts';
import type { Io } from '../server/cli/cli.ts';
import { FEED_LIMITS } from '../server/import/feed-fetch.ts';
import { importWithFeeds } from '../server/import/feeds.ts';
import { feedTuning, startFeedWorker } from '../server/import/feed-worker.ts';
import { startTestServer, type TestServer } from './support/server.ts';

const FEED = readFileSync('test/fixtures/import/google/example_feed_xml_rss.xml', 'utf8');
const onPg = !!process.env.TEST_DATABASE_URL;
const dir = mkdtempSync(join(tmpdir(), 'ucp-import-feed-'));
let server: TestServer;
let feeds: Server;
let base: string;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
const hits = new Map<string, number>();
const lastHeaders = new Map<string, IncomingMessage['headers']>();

beforeAll(async () => {
  feedTuning.pollMs = 100; // the server's loop looks for due feeds every 100 ms
  feeds = createServer((req, res) => {
    const path = req.url!.split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    lastHeaders.set(path, req.headers);
    const h = routes.get(path);
    if (!h) return void res.writeHead(404).end('not here');
    h(req, res);
  });
  await new Promise<void>((ok) => feeds.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(feeds.address() as AddressInfo).port}`;
  server = await startTestServer(onPg ? {} : { dataDir: join(dir, 'data') });
});
afterAll(async () => {
  await server?.close();
  feeds?.closeAllConnections();
  await new Promise((ok) => feeds?.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const env = onPg ? { DATABASE_URL: server.config.databaseUrl, NODE_ENV: 'development' } : { DATA_DIR: join(dir, 'data'), DATABASE_URL: '', NODE_ENV: 'development' };
  const io: Io = { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`), isTTY: false, env };
  const code = await runCli(argv, io);
  return { code, out, err, json: () => JSON.parse(out) };
}

/** A feed answering `state.body` with its ETag, 304 when the request names that ETag. */
function etagFeed(path: string, state: { etag: string; body: string }) {
  routes.set(path, (req, res) => {
    if (req.headers['if-none-match'] === state.etag) return void res.writeHead(304, { etag: state.etag }).end();
    res.writeHead(200, { etag: state.etag, 'content-type': 'application/rss+xml' }).end(state.body);
  });
}

/** The shop's catalog version (every catalog write bumps it) and its products' documents. */
async function catalogOf(shop: string) {
  const { rows: v } = await sql<{ version: string }>`select version from catalog_versions where shop_id = ${shop}`.execute(server.db);
  const { rows: p } = await sql<{ id: string; doc: { source?: string; status?: string; variants: Array<{ price: number }> } }>`select id, doc from products where shop_id = ${shop} order by id`.execute(server.db);
  return { version: v[0]?.version ?? null, products: p };
}
const feedRow = async (shop: string, url: string) =>
  (await sql<{ etag: string | null; last_modified: string | null; interval_seconds: number | null; next_due: Date | null; last_status: string | null; last_error: string | null; last_run_at: Date | null }>`select * from import_feeds where shop_id = ${shop} and url = ${url}`.execute(server.db)).rows[0];

async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  let v = await what();
  for (const t0 = Date.now(); !ok(v) && Date.now() - t0 < ms; v = await what()) await new Promise((r) => setTimeout(r, 50));
  return v;
}

const cheaper = (body: string) => body.replace('<g:price>159.00 USD</g:price>', '<g:price>149.00 USD</g:price>');

describe('import URL: a conditional GET', () => {
  const state = { etag: '"v1"', body: FEED };
  const url = () => `${base}/etag.xml`;

  it('200 with an ETag: the feed becomes the shop, its products sourced from the URL, the ETag kept', async () => {
    etagFeed('/etag.xml', state);
    const r = await cli('import', '--shop', 'shop_feed_etag', '--domain', 'feed-etag.localhost', '--json', url());
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ format: 'google', shop_created: true, unchanged: false, feeds: [{ url: url(), not_modified: false }] });
    expect(r.json().products.created).toBeGreaterThan(0);
    const { products } = await catalogOf('shop_feed_etag');
    expect(products.length).toBe(r.json().products.created);
    expect(new Set(products.map((p) => p.doc.source))).toEqual(new Set([url()]));
    expect((await feedRow('shop_feed_etag', url())).etag).toBe('"v1"');
  });

  it('again: If-None-Match is sent, 304 writes nothing and the report says unchanged', async () => {
    const before = await catalogOf('shop_feed_etag');
    const row = await feedRow('shop_feed_etag', url());
    const r = await cli('import', '--shop', 'shop_feed_etag', '--json', url());
    expect(r.code).toBe(0);
    expect(lastHeaders.get('/etag.xml')!['if-none-match']).toBe('"v1"');
    expect(r.json()).toMatchObject({ unchanged: true, products: { created: 0, updated: 0, unchanged: 0, unavailable: 0 }, feeds: [{ url: url(), not_modified: true }] });
    expect(await catalogOf('shop_feed_etag')).toEqual(before);
    expect(await feedRow('shop_feed_etag', url())).toEqual(row); // not scheduled: not even its row is written
  });

  it('a new ETag: fetched in full, the changed product updated', async () => {
    Object.assign(state, { etag: '"v2"', body: cheaper(FEED) });
    const r = await cli('import', '--shop', 'shop_feed_etag', '--json', url());
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ unchanged: false, products: { updated: 1, created: 0 } });
    expect((await feedRow('shop_feed_etag', url())).etag).toBe('"v2"');
  });

  it('Last-Modified likewise: If-Modified-Since is sent and 304 writes nothing', async () => {
    const stamp = 'Tue, 03 Mar 2026 10:00:00 GMT';
    routes.set('/lm.xml', (req, res) => {
      if (req.headers['if-modified-since'] === stamp) return void res.writeHead(304).end();
      res.writeHead(200, { 'last-modified': stamp }).end(FEED);
    });
    const first = await cli('import', '--shop', 'shop_feed_lm', '--domain', 'feed-lm.localhost', '--json', `${base}/lm.xml`);
    expect(first.code).toBe(0);
    expect(first.json().products.created).toBeGreaterThan(0);
    const before = await catalogOf('shop_feed_lm');
    const again = await cli('import', '--shop', 'shop_feed_lm', '--json', `${base}/lm.xml`);
    expect(again.code).toBe(0);
    expect(lastHeaders.get('/lm.xml')!['if-modified-since']).toBe(stamp);
    expect(again.json()).toMatchObject({ unchanged: true, feeds: [{ not_modified: true }] });
    expect(await catalogOf('shop_feed_lm')).toEqual(before);
  });

  it('a gzip body is decoded', async () => {
    routes.set('/gz.xml', (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(FEED)));
    const r = await cli('import', '--shop', 'shop_feed_gz', '--domain', 'feed-gz.localhost', '--json', `${base}/gz.xml`);
    expect(r.err).toBe('');
    expect(r.json().products.created).toBe((await catalogOf('shop_feed_etag')).products.length);
  });
});

describe('import URL: redirects, refusals, nothing written', () => {
  const refused = async (path: string, shop: string, match: RegExp) => {
    const r = await cli('import', '--shop', shop, '--domain', `${shop.replaceAll('_', '-')}.localhost`, `${base}${path}`);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(match);
    expect(await catalogOf(shop)).toEqual({ version: null, products: [] });
    expect(await feedRow(shop, `${base}${path}`)).toBeUndefined();
  };

  it('follows redirects (the source key stays the URL given); refuses a loop and a sixth redirect', async () => {
    for (let i = 1; i <= 5; i++) routes.set(`/hop${i}`, (_req, res) => res.writeHead(i % 2 ? 302 : 301, { location: i === 5 ? '/plain.xml' : `/hop${i + 1}` }).end());
    routes.set('/plain.xml', (_req, res) => res.writeHead(200).end(FEED));
    const r = await cli('import', '--shop', 'shop_feed_hops', '--domain', 'feed-hops.localhost', '--json', `${base}/hop1`);
    expect(r.err).toBe('');
    expect(r.json().products.created).toBeGreaterThan(0);
    expect(new Set((await catalogOf('shop_feed_hops')).products.map((p) => p.doc.source))).toEqual(new Set([`${base}/hop1`]));
    routes.set('/hop0', (_req, res) => res.writeHead(307, { location: '/hop1' }).end()); // six in all
    await refused('/hop0', 'shop_feed_six', /more than 5 redirects/);
    routes.set('/loop-a', (_req, res) => res.writeHead(302, { location: `${base}/loop-b` }).end());
    routes.set('/loop-b', (_req, res) => res.writeHead(302, { location: '/loop-a' }).end());
    await refused('/loop-a', 'shop_feed_loop', /redirect loop/);
  });

  it('404 and 5xx are refused', async () => {
    await refused('/missing.xml', 'shop_feed_404', /answered 404/);
    routes.set('/broken.xml', (_req, res) => res.writeHead(503).end());
    await refused('/broken.xml', 'shop_feed_503', /answered 503/);
  });

  it('too large is refused: by its Content-Length, and counted as a gzip body decodes', async () => {
    const max = FEED_LIMITS.maxBytes;
    FEED_LIMITS.maxBytes = 4096; // the fixture is about 11 KB
    try {
      routes.set('/big.xml', (_req, res) => res.writeHead(200, { 'content-length': Buffer.byteLength(FEED) }).end(FEED));
      await refused('/big.xml', 'shop_feed_big', /more than the 4096 bytes a feed may have/);
      routes.set('/big.gz', (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(FEED)));
      await refused('/big.gz', 'shop_feed_biggz', /more than 4096 bytes \(decoded\)/);
    } finally {
      FEED_LIMITS.maxBytes = max;
    }
  });

  it('a connection cut mid-body stops the import: an existing shop is left as it was', async () => {
    const before = await catalogOf('shop_feed_etag');
    const cut = cheaper(FEED).replace('LG', 'Zenith'); // would update the first product
    routes.set('/cut.xml', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/rss+xml' });
      res.write(cut.slice(0, cut.length / 2), () => setTimeout(() => res.socket!.destroy(), 50));
    });
    const r = await cli('import', '--shop', 'shop_feed_etag', '--source', `${base}/etag.xml`, `${base}/cut.xml`);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/connection broke|terminated|ended|unexpected end/i);
    expect(await catalogOf('shop_feed_etag')).toEqual(before);
  });

  it("a feed that pauses mid-body holds no transaction open: the shop's other queries answer meanwhile", async () => {
    // 1,100 items before the pause: an import reading from the network would have begun its
    // transaction (catalog-sync.ts) and, on the embedded database, held every other query.
    const items = Array.from({ length: 1100 }, (_, i) => `<item><g:id>slow-${i}</g:id><title>Slow ${i}</title><g:price>5.00 USD</g:price></item>\n`).join('');
    let paused!: () => void;
    const pausing = new Promise<void>((ok) => (paused = ok));
    routes.set('/slow.xml', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/rss+xml' });
      res.write(`<?xml version="1.0"?><rss xmlns:g="http://base.google.com/ns/1.0" version="2.0"><channel><title>Slow</title>\n${items}`, () => {
        paused();
        setTimeout(() => res.end('</channel></rss>\n'), 1500);
      });
    });
    const run = importWithFeeds(server.db, { urls: [`${base}/slow.xml`], shop: { id: 'shop_feed_slow', domain: 'feed-slow.localhost' }, fetch: { mode: 'development' } });
    let finished = false;
    void run.then(() => (finished = true), () => (finished = true));
    await pausing;
    await new Promise((ok) => setTimeout(ok, 300));
    await sql`select 1`.execute(server.db);
    expect(finished).toBe(false);
    expect((await run).products.created).toBe(1100);
  });

  it('production fetches from public addresses only: loopback refused in every spelling, nothing fetched', async () => {
    const port = new URL(base).port;
    routes.set('/prod.xml', (_req, res) => res.writeHead(200).end(FEED));
    for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]', '[::7f00:1]', '[::1]']) {
      const url = `http://${host}:${port}/prod.xml`;
      const run = importWithFeeds(server.db, { urls: [url], shop: { id: 'shop_feed_prod', domain: 'feed-prod.localhost' }, fetch: { mode: 'production' } });
      await expect(run, host).rejects.toThrow(/not a public internet address/);
    }
    expect(hits.get('/prod.xml')).toBeUndefined();
    // The same URL in development is fetched (loopback allowed).
    await importWithFeeds(server.db, { urls: [`http://127.0.0.1:${port}/prod.xml`], shop: { id: 'shop_feed_prod', domain: 'feed-prod.localhost' }, fetch: { mode: 'development' } });
    expect(hits.get('/prod.xml')).toBe(1);
  });
});

describe('--every: a feed the server keeps in step', () => {
  const state = { etag: '"s1"', body: FEED };
  const url = () => `${base}/scheduled.xml`;

  it('is stored with its period; less than 5 minutes is a usage mistake', async () => {
    etagFeed('/scheduled.xml', state);
    expect((await cli('import', '--shop', 'shop_feed_sched', '--every', '1m', url())).code).toBe(2);
    expect((await cli('import', '--shop', 'shop_feed_sched', '--every', 'soon', url())).code).toBe(2);
    const r = await cli('import', '--shop', 'shop_feed_sched', '--domain', 'feed-sched.localhost', '--every', '15m', '--json', url());
    expect(r.err).toBe('');
    expect(r.json().feeds).toEqual([{ url: url(), not_modified: false, every: '15m' }]);
    const row = await feedRow('shop_feed_sched', url());
    expect(row.interval_seconds).toBe(900);
    expect(new Date(row.next_due!).getTime() - Date.now()).toBeGreaterThan(14 * 60_000);
    const list = await cli('feeds', 'list', '--shop', 'shop_feed_sched');
    expect(list.out).toMatch(new RegExp(`shop_feed_sched\\s+${url().replaceAll('.', '\\.')}\\s+15m\\s+\\S+\\s+\\S+\\s+imported: created \\d+, updated 0, unchanged 0, unavailable 0`));
  });

  it("the server's loop imports it once due, and records the result", async () => {
    const hitsBefore = hits.get('/scheduled.xml')!;
    await new Promise((r) => setTimeout(r, 500));
    expect(hits.get('/scheduled.xml')).toBe(hitsBefore); // not due: not fetched
    Object.assign(state, { etag: '"s2"', body: cheaper(FEED) });
    await sql`update import_feeds set next_due = now() - interval '1 second' where shop_id = 'shop_feed_sched'`.execute(server.db);
    const row = await until(() => feedRow('shop_feed_sched', url()), (r) => r.etag === '"s2"');
    expect(row.last_status).toBe('imported');
    expect(new Date(row.next_due!).getTime() - Date.now()).toBeGreaterThan(14 * 60_000);
    const price = (await catalogOf('shop_feed_sched')).products.find((p) => p.id === 'TV_123456')!.doc.variants[0].price;
    expect(price).toBe(14900);
    const list = await cli('feeds', 'list', '--json');
    expect(list.json().find((f: { shop: string }) => f.shop === 'shop_feed_sched')).toMatchObject({ every: '15m', last_status: 'imported', last_counts: { updated: 1, created: 0 }, last_error: null });
  });

  it('a failing run is recorded as the last result; the shop is left as it was', async () => {
    const before = await catalogOf('shop_feed_sched');
    routes.set('/scheduled.xml', (_req, res) => res.writeHead(500).end());
    await sql`update import_feeds set next_due = now() - interval '1 second' where shop_id = 'shop_feed_sched'`.execute(server.db);
    const row = await until(() => feedRow('shop_feed_sched', url()), (r) => r.last_status === 'failed');
    expect(row.last_error).toMatch(/answered 500/);
    expect(row.etag).toBe('"s2"');
    expect(await catalogOf('shop_feed_sched')).toEqual(before);
    expect((await cli('feeds', 'list', '--shop', 'shop_feed_sched')).out).toMatch(/failed: .*answered 500/);
  });

  it('a worker stopped mid-import (its fetch aborted mid-body) leaves the shop as it was', async () => {
    const before = await catalogOf('shop_feed_sched');
    const changed = cheaper(FEED).replace('LG', 'Zenith');
    let started!: () => void;
    const midBody = new Promise<void>((r) => (started = r));
    routes.set('/stalls.xml', (_req, res) => {
      res.writeHead(200, { etag: '"x"' });
      res.write(changed.slice(0, changed.length / 2), () => started()); // and never the rest
    });
    feedTuning.maxPerPass = 0; // the server's own loop leaves it to this worker
    try {
      await sql`insert into import_feeds (shop_id, url, options, interval_seconds, next_due) values ('shop_feed_sched', ${`${base}/stalls.xml`}, ${JSON.stringify({ source: url() })}::jsonb, 300, now() - interval '1 second')`.execute(server.db);
      const worker = startFeedWorker(server.db, { mode: 'development', pollMs: 3_600_000, maxPerPass: 1 });
      const pass = worker.runOnce();
      await midBody;
      await new Promise((r) => setTimeout(r, 300)); // its headers are in: the import is reading the body
      await worker.stop();
      expect(await pass).toBe(1);
    } finally {
      feedTuning.maxPerPass = 20;
    }
    expect(await catalogOf('shop_feed_sched')).toEqual(before);
    const row = await feedRow('shop_feed_sched', `${base}/stalls.xml`);
    expect(row).toMatchObject({ last_status: 'failed', etag: null });
    expect(row.last_error).toMatch(/stopped after \d+ bytes/);
    await sql`delete from import_feeds where url = ${`${base}/stalls.xml`}`.execute(server.db);
  });

  it('several workers on one database fetch a due feed once per period', async () => {
    routes.set('/once.xml', (_req, res) => setTimeout(() => res.writeHead(200).end(FEED), 300)); // slow: the others try meanwhile
    const first = await cli('import', '--shop', 'shop_feed_once', '--domain', 'feed-once.localhost', '--every', '5m', `${base}/once.xml`);
    expect(first.code).toBe(0);
    expect(hits.get('/once.xml')).toBe(1);
    const workers = [1, 2, 3].map(() => startFeedWorker(server.db, { mode: 'development', pollMs: 20 }));
    try {
      await sql`update import_feeds set next_due = now() - interval '1 second' where shop_id = 'shop_feed_once'`.execute(server.db);
      await until(() => feedRow('shop_feed_once', `${base}/once.xml`), (r) => new Date(r.last_run_at!).getTime() > Date.now() - 5_000 && hits.get('/once.xml') === 2);
      await new Promise((r) => setTimeout(r, 1_000)); // every worker (and the server's own loop) polls many times meanwhile
      expect(hits.get('/once.xml')).toBe(2);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });

  it('feeds remove stops it; removing it again is refused', async () => {
    const r = await cli('feeds', 'remove', '--shop', 'shop_feed_once', '--url', `${base}/once.xml`);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect((await cli('feeds', 'list', '--shop', 'shop_feed_once')).out.trim()).toBe('none');
    const again = await cli('feeds', 'remove', '--shop', 'shop_feed_once', '--url', `${base}/once.xml`);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/No feed/);
  });
});
