/**
 * The `ucp-storefront` command line (server/cli): `--help` on every command, usage mistakes print
 * usage and exit 2, lists print a header row or `none`, `--json`, progress on stderr, and
 * `reset --shop` (directly on the database, and the running server's development endpoint).
 * Commands run in-process through `runCli` on a throwaway embedded database (or a fresh PostgreSQL
 * database in the PostgreSQL pass); one run goes through the real bin.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, runCli } from '../server/cli/main.ts';
import type { Io } from '../server/cli/cli.ts';
import { openDatabase } from '../server/db/index.ts';
import { createTestDatabase } from './support/postgres.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { BULK_LOAD_PRODUCTS } from '../server/core/catalog/catalog-store.ts';
import { startTestServer } from './support/server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What curl and scripts send to a development endpoint (server/dev/routes.ts). */
const JSON_TYPE = { 'content-type': 'application/json' };
let env: NodeJS.ProcessEnv;
let dir: string;
let dropPg: (() => Promise<void>) | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ucp-cli-'));
  const pg = process.env.TEST_DATABASE_URL ? await createTestDatabase(process.env.TEST_DATABASE_URL) : undefined;
  dropPg = pg?.drop;
  env = { DATA_DIR: join(dir, 'data'), DATABASE_URL: pg?.url ?? '', NODE_ENV: 'development' };
});
afterAll(async () => {
  await dropPg?.();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const io: Io = { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`), isTTY: false, env };
  const code = await runCli(argv, io);
  return { code, out, err };
}

describe('usage', () => {
  it('no command: the command list on stderr, exit 2; --help: on stdout, exit 0', async () => {
    const none = await cli();
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/^usage: ucp-storefront COMMAND/);
    for (const c of ['start', 'seed', 'apps', 'channel-keys', 'keys', 'reset']) expect(none.err).toContain(`  ${c} `);
    const help = await cli('--help');
    expect(help).toMatchObject({ code: 0, err: '' });
    expect(help.out).toBe(none.err);
  });

  it.each(COMMANDS.map((c) => c.name))('%s --help prints its usage and exits 0 (no database opened)', async (name) => {
    const r = await cli(name, '--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^usage: ucp-storefront ${name}`));
    expect(r.err).toBe('');
  });

  it.each([
    [['bogus'], /unknown command 'bogus'/],
    [['apps'], /missing subcommand \(one of: create, list\)/],
    [['apps', 'delete'], /unknown subcommand 'delete'/],
    [['apps', 'create', '--name', 'x'], /--redirect-uri is required/],
    [['apps', 'list', '--bogus'], /Unknown option '--bogus'/],
    [['keys', 'list'], /--shop is required/],
    [['keys', 'rotate', '--shop', 'shop_demo', '--grace-days', 'soon'], /--grace-days must be a number/],
    [['channel-keys', 'create', '--shop', 'shop_demo'], /--profile is required/],
    [['channel-keys', 'revoke', '--shop', 'shop_demo'], /--id is required/],
    [['seed'], /no catalog FILE given/],
    [['seed', 'a.json', '--demo'], /not both/],
    [['reset'], /--shop is required/],
    [['reset', '--shop'], /argument missing|--shop/],
    [['reset', '--shop', 'x', 'extra'], /Unexpected argument 'extra'|positional/i],
    [['start', '--port', 'eighty'], /--port must be a port number/],
  ])('%j is a usage mistake: message + usage on stderr, exit 2', async (argv, message) => {
    const r = await cli(...argv);
    expect(r.code, r.err).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(message);
    expect(r.err).toMatch(/usage: ucp-storefront/);
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('the bin itself: exit codes and output streams as a shell sees them', async () => {
    const run = (...args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const c = spawn(process.execPath, ['bin/ucp-storefront.mjs', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
        let out = '';
        let err = '';
        c.stdout.on('data', (d) => (out += d));
        c.stderr.on('data', (d) => (err += d));
        c.once('exit', (code) => resolve({ code, out, err }));
      });
    const [help, wrong] = await Promise.all([run('apps', '--help'), run('apps')]);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^usage: ucp-storefront apps/);
    expect(wrong.code).toBe(2);
    expect(wrong.out).toBe('');
    expect(wrong.err).toMatch(/missing subcommand/);
  });
});

describe('commands on a database', { timeout: 120_000 }, () => {
  it('seed --demo loads the demo shops with progress on stderr; --json gives the results', async () => {
    const r = await cli('seed', '--demo', '--json');
    expect(r.code, r.err).toBe(0);
    const results = JSON.parse(r.out);
    expect(results.map((x: { shop: string }) => x.shop).sort()).toEqual(['shop_demo', 'shop_offline', 'shop_other', 'shop_strict']);
    expect(r.err).toMatch(/^4 files: 4\/4 \(100%/m);
  });

  it('seed: a large file says when it has written every row and is finishing, then loads', async () => {
    const file = join(dir, 'large.json');
    writeFileSync(file, JSON.stringify(generateCatalog({ products: BULK_LOAD_PRODUCTS, shopId: 'shop_large', domain: 'large.localhost', name: 'Large' })));
    const r = await cli('seed', file);
    expect(r.code, r.err).toBe(0);
    const lines = r.err.split('\n');
    const full = lines.findIndex((l) => l.includes(`${BULK_LOAD_PRODUCTS}/${BULK_LOAD_PRODUCTS} (100%`));
    const finishing = lines.findIndex((l) => /large\.json: merging the search index and refreshing statistics \(\d+\.\d s\)/.test(l));
    expect(full, r.err).toBeGreaterThanOrEqual(0);
    expect(finishing, r.err).toBeGreaterThan(full);
    expect(r.out).toContain(`large.json: loaded ${BULK_LOAD_PRODUCTS} products into shop shop_large`);
  }, 60_000);

  it('seed: a bad file fails with its issues and exit 1; the others still load', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ shop: { id: 'x' } }));
    const r = await cli('seed', bad, join(ROOT, 'server/seed/data/other.json'));
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${bad}: not a valid catalog file\n  $.shop.domain: `);
    expect(r.out).toMatch(/other\.json: loaded 6 products into shop shop_other/);
  });

  it('seed DIR: every file in one run; a failing file leaves no shop, the rest load, the failures are listed last', async () => {
    const shops = join(dir, 'shops');
    mkdirSync(shops);
    const file = (i: number) => generateCatalog({ products: 40, shopId: `shop_cli_${i}`, domain: `cli-${i}.localhost`, name: `CLI ${i}` });
    for (const i of [1, 2, 3, 4, 10]) writeFileSync(join(shops, `shop_${i}.json`), JSON.stringify(file(i), null, 1));
    const dup = file(3);
    dup.products[30].variants[0].id = dup.products[7].variants[0].id;
    writeFileSync(join(shops, 'shop_3.json'), JSON.stringify(dup, null, 1));
    const text = JSON.stringify(file(4), null, 1).split('\n');
    text[9] = text[9].replace(/,$/, ''); // a comma missing at the end of line 10
    writeFileSync(join(shops, 'shop_4.json'), text.join('\n'));
    const missing = join(dir, 'nowhere.json');
    const r = await cli('seed', shops, missing);
    expect(r.code, r.err).toBe(1);
    expect(r.out.split('\n').filter((l) => l.includes(': loaded '))).toEqual([1, 2, 10].map((i) => `${join(shops, `shop_${i}.json`)}: loaded 40 products into shop shop_cli_${i}`));
    expect(r.out).toMatch(/^loaded 120 products into 3 shops from 3 of 6 files in \d+\.\d s \(\d+ products\/s\)$/m);
    expect(r.err).toContain(`${join(shops, 'shop_3.json')}: an id is used twice\n  $.products[30].variants[0].id: variant id ${dup.products[7].variants[0].id} is used by products ${dup.products[7].id} (products[7].variants[0]) and ${dup.products[30].id} (products[30].variants[0])`);
    expect(r.err).toMatch(new RegExp(`shop_4\\.json: invalid JSON at line 11, column \\d+: `));
    expect(r.err).toContain(`${missing}: no such file\n`);
    expect(r.err).not.toMatch(/ENOENT|position \d/);
    const summary = r.err.slice(r.err.indexOf('3 of 6 files failed and left nothing in the database:'));
    expect(summary.split('\n').slice(1, 4).map((l) => l.trim().split(': ')[0])).toEqual([join(shops, 'shop_3.json'), join(shops, 'shop_4.json'), missing]);
    const db = await openDatabase({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL || undefined });
    try {
      const ids = await db.selectFrom('shops').select('id').where('id', 'like', 'shop_cli_%').orderBy('id').execute();
      expect(ids.map((x) => x.id)).toEqual(['shop_cli_1', 'shop_cli_10', 'shop_cli_2']);
    } finally {
      await db.destroy();
    }
    const json = await cli('seed', join(shops, 'shop_3.json'), '--json');
    expect(JSON.parse(json.out)).toEqual([{ file: join(shops, 'shop_3.json'), error: 'an id is used twice', issues: [expect.stringMatching(/^\$\.products\[30\]\.variants\[0\]\.id: variant id /)] }]);
  }, 60_000);

  it("import into a new shop says the currency it took from the file (the report's first line, and `currency` in --json)", async () => {
    const feed = 'test/fixtures/import/google/example_feed_xml_rss.xml';
    const eur = join(dir, 'feed-eur.xml');
    writeFileSync(eur, readFileSync(feed, 'utf8').replaceAll(' USD<', ' EUR<'));
    const r = await cli('import', '--shop', 'shop_cli_eur', '--domain', 'cli-eur.localhost', eur);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')[0]).toBe('imported google into shop shop_cli_eur (new, prices in EUR)');
    const again = await cli('import', '--shop', 'shop_cli_eur', '--json', eur);
    expect(JSON.parse(again.out)).toMatchObject({ shop: 'shop_cli_eur', currency: 'EUR', shop_created: false, unchanged: true });
    expect(Object.keys(JSON.parse(again.out)).slice(0, 3)).toEqual(['shop', 'currency', 'format']);
  });

  it('import of a file that is not there, or of a directory, exits 1 naming it and opens no database (a new DATA_DIR stays uncreated)', async () => {
    const fresh = { ...env, DATA_DIR: join(dir, 'never-created') };
    const run = async (...argv: string[]) => {
      let err = '';
      const code = await runCli(argv, { out: () => {}, err: (t) => (err += `${t}\n`), isTTY: false, env: fresh });
      return { code, err };
    };
    const missing = await run('import', '--shop', 'shop_typo', '--domain', 'typo.localhost', join(dir, 'prodcts.csv'));
    expect(missing).toEqual({ code: 1, err: `ucp-storefront import: ${join(dir, 'prodcts.csv')}: no such file\n` });
    const folder = await run('import', '--shop', 'shop_typo', '--domain', 'typo.localhost', dir);
    expect(folder).toEqual({ code: 1, err: `ucp-storefront import: ${dir}: a directory, not a file\n` });
    expect(existsSync(fresh.DATA_DIR)).toBe(false);
  });

  it('seed: an empty directory and a directory given as --catalog are said in words', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    expect(await cli('seed', empty)).toMatchObject({ code: 1, err: `${empty}: a directory with no .json files in it\n` });
    const reset = await cli('reset', '--shop', 'shop_demo', '--catalog', empty);
    expect(reset).toMatchObject({ code: 1, err: `ucp-storefront reset: ${empty}: a directory, not a file\n` });
  });

  it('lists: a header row or none, and --json', async () => {
    const empty = await cli('channel-keys', 'list', '--shop', 'shop_demo');
    expect(empty).toMatchObject({ code: 0, out: 'none\n' });
    expect(JSON.parse((await cli('channel-keys', 'list', '--shop', 'shop_demo', '--json')).out)).toEqual([]);

    const created = await cli('apps', 'create', '--name', 'CLI test', '--redirect-uri', 'https://app.example/cb', '--json');
    expect(created.code, created.err).toBe(0);
    const app = JSON.parse(created.out);
    expect(app).toMatchObject({ type: 'confidential', redirect_uris: ['https://app.example/cb'] });
    expect(app.client_secret).toEqual(expect.any(String));
    const list = await cli('apps', 'list');
    const [header, ...rows] = list.out.trimEnd().split('\n');
    expect(header).toMatch(/^CLIENT_ID\s+TYPE\s+NAME\s+REDIRECT_URIS$/);
    expect(rows.some((l) => l.startsWith(app.client_id) && l.includes('CLI test'))).toBe(true);
    const json = JSON.parse((await cli('apps', 'list', '--json')).out);
    expect(json).toContainEqual({ id: app.client_id, type: 'confidential', name: 'CLI test', redirect_uris: ['https://app.example/cb'] });

    const rotated = JSON.parse((await cli('keys', 'rotate', '--shop', 'shop_demo', '--json')).out);
    const keys = await cli('keys', 'list', '--shop', 'shop_demo');
    expect(keys.out.split('\n')[0]).toMatch(/^KID\s+CREATED\s+STATE$/);
    expect(keys.out).toMatch(new RegExp(`${rotated.new_key}\\s+\\S+\\s+current`));
  });

  it('a failure that is not a usage mistake: one line on stderr, exit 1', async () => {
    const r = await cli('keys', 'list', '--shop', 'shop_nope');
    expect(r).toMatchObject({ code: 1, out: '', err: 'ucp-storefront keys: No shop shop_nope.\n' });
  });
});

describe('reset --shop', { timeout: 120_000 }, () => {
  it('deletes carts, idempotency records, orders and customers, and restores the seeded catalog', async () => {
    const db = await openDatabase({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL || undefined });
    try {
      const now = new Date();
      await db.insertInto('carts').values({ shop_id: 'shop_demo', id: 'cart_x', currency: 'USD', language: 'en', context: '{}', buyer: null, line_items: '[]', discounts: '{}', created_at: now, updated_at: now, expires_at: now } as never).execute();
      await db.insertInto('carts').values({ shop_id: 'shop_other', id: 'cart_y', currency: 'USD', language: 'en', context: '{}', buyer: null, line_items: '[]', discounts: '{}', created_at: now, updated_at: now, expires_at: now } as never).execute();
      await db.insertInto('idempotency_keys').values({ shop_id: 'shop_demo', operation: 'create_cart', key: 'k1', fingerprint: 'f', status: 201, body: '{}', created_at: now }).execute();
      await db.insertInto('customers').values({ shop_id: 'shop_demo', id: 'cus_1', email: 'a@b.example', first_name: null, last_name: null, created_at: now }).execute();
      await db.insertInto('orders').values({ shop_id: 'shop_demo', id: 'ord_1', customer_id: 'cus_1', status: 'created', currency: 'USD', items: '[]', subtotal: 0, total: 0, created_at: now } as never).execute();
      await db.updateTable('products').set({ handle: 'changed' }).where('shop_id', '=', 'shop_demo').where('id', '=', 'prod_engraved_flask').execute();
      await db.insertInto('products').values({ shop_id: 'shop_demo', id: 'prod_added', handle: 'added', doc: '{}', price_min: 1, price_max: 1, categories: '[]' } as never).execute();
    } finally {
      await db.destroy();
    }

    const r = await cli('reset', '--shop', 'shop_demo', '--json');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      shop: 'shop_demo',
      deleted: { webhook_deliveries: 0, orders: 1, customers: 1, carts: 1, idempotency_keys: 1, products: 1 },
      catalog: { source: 'server/seed/data/demo.json', products: 49 },
    });

    const after = await openDatabase({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL || undefined });
    try {
      const count = async (t: 'carts' | 'orders' | 'customers' | 'idempotency_keys' | 'products', shop: string) =>
        Number((await after.selectFrom(t).select((eb) => eb.fn.countAll<number>().as('n')).where('shop_id', '=', shop).executeTakeFirstOrThrow()).n);
      expect(await count('carts', 'shop_demo')).toBe(0);
      expect(await count('orders', 'shop_demo')).toBe(0);
      expect(await count('customers', 'shop_demo')).toBe(0);
      expect(await count('idempotency_keys', 'shop_demo')).toBe(0);
      expect(await count('products', 'shop_demo')).toBe(49);
      expect(await count('carts', 'shop_other')).toBe(1); // other shops untouched
      const flask = await after.selectFrom('products').select('handle').where('shop_id', '=', 'shop_demo').where('id', '=', 'prod_engraved_flask').executeTakeFirstOrThrow();
      expect(flask.handle).not.toBe('changed');
    } finally {
      await after.destroy();
    }

    const text = await cli('reset', '--shop', 'shop_demo');
    expect(text.out).toMatch(/^shop: +shop_demo\ndeleted: +0 webhook_deliveries, 0 orders, 0 customers, 0 carts, 0 idempotency_keys, 0 products\ncatalog: +49 products from server\/seed\/data\/demo.json\n$/);
  });

  it('an unknown shop is exit 1; a catalog file for another shop is refused before anything is deleted', async () => {
    expect(await cli('reset', '--shop', 'shop_nope')).toMatchObject({ code: 1, err: "ucp-storefront reset: No shop with id or domain 'shop_nope'.\n" });
    const r = await cli('reset', '--shop', 'shop_demo', '--catalog', join(ROOT, 'server/seed/data/other.json'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/for shop shop_other, not shop_demo/);
  });

  it('no web page can fire a development reset: simple (form-encodable) requests and foreign origins are refused, nothing deleted', async () => {
    const s = await startTestServer();
    try {
      const created = await s.req('other.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'other_var_pewter_flask' }, quantity: 1 }] });
      expect(created.status).toBe(201);
      const attacks: Array<[string, Record<string, string>, string | undefined, number, string]> = [
        // What an auto-submitted <form> sends (issue 29: text/plain from another origin wiped the carts).
        ['text/plain form from another origin', { 'content-type': 'text/plain', origin: 'http://evil.example' }, 'x=1', 403, 'cross_origin_refused'],
        ['urlencoded form, no Origin', { 'content-type': 'application/x-www-form-urlencoded' }, 'x=1', 415, 'unsupported_media_type'],
        ['multipart form, no Origin', { 'content-type': 'multipart/form-data; boundary=b' }, '--b--', 415, 'unsupported_media_type'],
        ['text/plain, no Origin', { 'content-type': 'text/plain' }, '{}', 415, 'unsupported_media_type'],
        ['no Content-Type', {}, undefined, 415, 'unsupported_media_type'],
        ['JSON from another origin', { 'content-type': 'application/json', origin: 'http://evil.example' }, '{}', 403, 'cross_origin_refused'],
        ['JSON from a shop origin', { 'content-type': 'application/json', origin: `http://demo.localhost:${s.port}` }, '{}', 403, 'cross_origin_refused'],
        ['JSON with Origin null (sandboxed frame)', { 'content-type': 'application/json', origin: 'null' }, '{}', 403, 'cross_origin_refused'],
        ['JSON, Sec-Fetch-Site cross-site', { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' }, '{}', 403, 'cross_origin_refused'],
      ];
      for (const [what, headers, body, status, code] of attacks) {
        const r = await s.req('localhost', 'POST', '/dev/shops/shop_other/reset', body, headers);
        expect(r.status, what).toBe(status);
        expect(r.body.code, what).toBe(code);
        expect(r.body.content, what).toMatch(/Content-Type: application\/json/);
      }
      // The browser's preflight for a JSON POST from another origin is never granted.
      const preflight = await s.req('localhost', 'OPTIONS', '/dev/shops/shop_other/reset', undefined, { origin: 'http://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' });
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      // Nothing was deleted.
      expect((await s.req('other.localhost', 'GET', `/api/ucp/carts/${created.body.id}`)).body.id).toBe(created.body.id);
      // What curl and scripts send still works: JSON, no Origin.
      const ok = await s.req('localhost', 'POST', '/dev/shops/shop_other/reset', undefined, { 'content-type': 'application/json; charset=utf-8' });
      expect(ok.status).toBe(200);
      expect(ok.body.deleted.carts).toBeGreaterThanOrEqual(1);
    } finally {
      await s.close();
    }
  });

  it('the running server resets a shop itself: POST /dev/shops/{id}/reset (development only)', async () => {
    const s = await startTestServer();
    try {
      const created = await s.req('demo.localhost', 'POST', '/api/ucp/carts', { line_items: [{ item: { id: 'var_tee_m_navy' }, quantity: 1 }] });
      expect(created.status).toBe(201);
      const r = await s.req('localhost', 'POST', '/dev/shops/shop_demo/reset', undefined, JSON_TYPE);
      expect(r.status).toBe(200);
      expect(r.body.deleted.carts).toBeGreaterThanOrEqual(1);
      const gone = await s.req('demo.localhost', 'GET', `/api/ucp/carts/${created.body.id}`);
      expect(gone.body.messages[0].code).toBe('not_found');
      expect((await s.req('localhost', 'POST', '/dev/shops/shop_nope/reset', undefined, JSON_TYPE)).status).toBe(404);
      // The same origin may send it too (a page of the platform itself), with a JSON body.
      const same = await s.req('localhost', 'POST', '/dev/shops/shop_demo/reset', {}, { origin: `http://localhost:${s.port}`, 'sec-fetch-site': 'same-origin' });
      expect(same.status).toBe(200);
    } finally {
      await s.close();
    }
    const prod = await startTestServer({ mode: 'production', seedDemo: true });
    try {
      expect((await prod.req('localhost', 'POST', '/dev/shops/shop_demo/reset', undefined, JSON_TYPE)).status).toBe(404);
    } finally {
      await prod.close();
    }
  });
});
