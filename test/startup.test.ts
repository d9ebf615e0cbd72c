/**
 * What a fresh database gets at start (server/server.ts, server/seed/prepare.ts): demo shops in
 * development; nothing in production unless SEED_DEMO=1 asks for them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../server/db/index.ts';
import { prepareDatabase } from '../server/seed/prepare.ts';
import { loadCatalogFile } from '../server/core/catalog/catalog-load.ts';
import { generateCatalog } from '../server/seed/generate.ts';
import { main } from '../server/main.ts';
import { describe, expect, it } from 'vitest';
import { startTestServer } from './support/server.ts';
import { checkConfig, loadConfig } from '../server/config.ts';
import { demoShops } from '../server/server.ts';

const shopCount = async (s: Awaited<ReturnType<typeof startTestServer>>) => (await s.db.selectFrom('shops').select('id').execute()).length;

describe('first start', () => {
  it('production starts with no shops (no demo storefront on a real deployment); its protocol URLs are 404', async () => {
    const s = await startTestServer({ mode: 'production', seedDemo: undefined });
    try {
      expect(await shopCount(s)).toBe(0);
      expect((await s.req('demo.localhost', 'GET', '/.well-known/ucp')).status).toBe(404);
    } finally {
      await s.close();
    }
  });

  it('SEED_DEMO=1 loads the demo shops in production too; development loads them by default', async () => {
    const s = await startTestServer({ mode: 'production', seedDemo: true });
    try {
      expect(await shopCount(s)).toBeGreaterThanOrEqual(3);
      expect(await s.db.selectFrom('users').select('id').execute()).toEqual([]); // never demo accounts in production
    } finally {
      await s.close();
    }
  });

  it('reads SEED_DEMO', () => {
    expect(demoShops(loadConfig({ NODE_ENV: 'production' }))).toBe(false);
    expect(demoShops(loadConfig({ NODE_ENV: 'production', SEED_DEMO: '1' }))).toBe(true);
    expect(demoShops(loadConfig({}))).toBe(true);
    expect(demoShops(loadConfig({ SEED_DEMO: '0' }))).toBe(false);
  });
});

describe('PostgreSQL pool size', () => {
  it('refuses PG_POOL_SIZE below 2 or not whole, naming the setting, before opening anything', () => {
    expect(() => checkConfig(loadConfig({ PG_POOL_SIZE: '1' }))).toThrow(/PG_POOL_SIZE must be a whole number of at least 2.*\(got 1\)/);
    expect(() => checkConfig(loadConfig({ PG_POOL_SIZE: '2.5' }))).toThrow(/PG_POOL_SIZE must be/);
    expect(() => checkConfig(loadConfig({ PG_POOL_SIZE: '2' }))).not.toThrow();
    expect(() => checkConfig(loadConfig({}))).not.toThrow();
  });

  it('PG_QUERY_TIMEOUT_MS: whole milliseconds, 0 for no limit, unset for the default; anything else refuses to start', () => {
    expect(loadConfig({ PG_QUERY_TIMEOUT_MS: '5000' }).pgQueryTimeoutMs).toBe(5000);
    expect(loadConfig({ PG_QUERY_TIMEOUT_MS: '0' }).pgQueryTimeoutMs).toBe(0);
    expect(loadConfig({ PG_QUERY_TIMEOUT_MS: ' ' }).pgQueryTimeoutMs).toBeUndefined();
    for (const bad of ['30s', '-1', '1.5', 'off']) expect(() => checkConfig(loadConfig({ PG_QUERY_TIMEOUT_MS: bad }))).toThrow(/PG_QUERY_TIMEOUT_MS must be a whole number of milliseconds/);
  });
});

describe('the start-up banner', () => {
  it('names the first 20 shops and counts the rest: a platform of thousands starts as fast as one of three', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ucp-banner-'));
    try {
      const db = await openDatabase({ dataDir, durableCommits: false });
      await prepareDatabase(db, { demo: false, accounts: false });
      for (let i = 0; i < 23; i++) await loadCatalogFile(db, generateCatalog({ products: 1, shopId: `shop_b${i}`, domain: `b${String(i).padStart(2, '0')}.localhost`, name: `B${i}` }));
      await db.destroy();
      const lines: string[] = [];
      const running = await main({ port: 0, host: '127.0.0.1', dataDir, databaseUrl: undefined, durableCommits: false, seedDemo: false, transportRateLimits: false }, (line) => lines.push(line));
      await running.close();
      const banner = lines.join('\n');
      expect(banner).toMatch(/b19\.localhost/);
      expect(banner).not.toMatch(/b20\.localhost/);
      expect(banner).toMatch(/… and 3 more shops/);
      // The sandbox's pointers (docs/sandbox.md): the inspector always in development; no demo shop here, so no demo fixtures.
      expect(banner).toContain(`request inspector    http://localhost:${running.port}/dev/`);
      expect(banner).not.toContain('demo fixtures');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('search index budget', () => {
  it('reads SEARCH_INDEX_BUDGET_MB as megabytes, 0 or more; refuses anything else, naming the setting, before opening anything', () => {
    expect(loadConfig({}).searchIndexBudgetMb).toBeUndefined();
    expect(loadConfig({ SEARCH_INDEX_BUDGET_MB: '' }).searchIndexBudgetMb).toBeUndefined();
    expect(loadConfig({ SEARCH_INDEX_BUDGET_MB: '512' }).searchIndexBudgetMb).toBe(512);
    expect(loadConfig({ SEARCH_INDEX_BUDGET_MB: ' 0.5 ' }).searchIndexBudgetMb).toBe(0.5);
    expect(() => checkConfig(loadConfig({ SEARCH_INDEX_BUDGET_MB: '0' }))).not.toThrow();
    for (const bad of ['lots', '-1', '256MB', '1e3', 'Infinity', '0x10', '.5']) {
      expect(() => checkConfig(loadConfig({ SEARCH_INDEX_BUDGET_MB: bad })), bad).toThrow(/^SEARCH_INDEX_BUDGET_MB must be a number of megabytes, 0 or more/);
    }
  });

  it('the server refuses to start with a bad one, with the message and no stack', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'server/main.ts'], { env: { ...process.env, SEARCH_INDEX_BUDGET_MB: 'lots', DATA_DIR: 'memory://', PORT: '0' }, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Not starting: SEARCH_INDEX_BUDGET_MB must be a number of megabytes/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('the OAuth issuer never follows a stranger\'s Host header in production', () => {
  it('production refuses to start without AUTH_URL, naming the setting; and refuses a plain-http one', async () => {
    await expect(startTestServer({ mode: 'production', authUrl: undefined })).rejects.toThrow(/AUTH_URL is required in production/);
    await expect(startTestServer({ mode: 'production', authUrl: 'http://accounts.example.com' })).rejects.toThrow(/AUTH_URL must be https/);
    await expect(startTestServer({ authUrl: 'not a url' })).rejects.toThrow(/AUTH_URL must be an absolute/);
  });

  it('with AUTH_URL the metadata names it whatever Host says, cacheable; without (development) it follows Host, uncached', async () => {
    const prod = await startTestServer({ mode: 'production', authUrl: 'https://accounts.example.com/' });
    try {
      // A stranger's Host is refused outright (test/platform-hosts.test.ts); an allowed one other than AUTH_URL's is not echoed.
      expect((await prod.req('evil.example', 'GET', '/.well-known/oauth-authorization-server', undefined, { host: 'evil.example' })).status).toBe(421);
      const r = await prod.req('127.0.0.1', 'GET', '/.well-known/oauth-authorization-server', undefined, { host: '127.0.0.1' });
      expect(r.body.issuer).toBe('https://accounts.example.com');
      expect(r.body.token_endpoint).toBe('https://accounts.example.com/oauth2/access_token');
      expect(r.headers['cache-control']).toBe('public, max-age=300');
    } finally {
      await prod.close();
    }
    const dev = await startTestServer();
    try {
      const r = await dev.req('localhost', 'GET', '/.well-known/oauth-authorization-server');
      expect(r.body.issuer).toBe(`http://localhost:${dev.port}`);
      expect(r.headers['cache-control']).toBe('no-store');
    } finally {
      await dev.close();
    }
  });
});

/**
 * A PostgreSQL server that refuses every connection with `code` (its ErrorResponse right after the
 * startup message), as a real one does for a wrong password (28P01) or a missing database (3D000).
 */
async function refusingPostgres(code: string, message: string): Promise<{ server: TcpServer; port: number }> {
  const field = (t: string, v: string) => Buffer.concat([Buffer.from(t), Buffer.from(v), Buffer.from([0])]);
  const body = Buffer.concat([field('S', 'FATAL'), field('V', 'FATAL'), field('C', code), field('M', message), Buffer.from([0])]);
  const len = Buffer.alloc(4);
  len.writeInt32BE(body.length + 4);
  const reply = Buffer.concat([Buffer.from('E'), len, body]);
  const server = createTcpServer((socket) => socket.once('data', () => socket.end(reply)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port };
}

/** Runs server/main.ts to its exit; its output, every line. */
function runServer(env: NodeJS.ProcessEnv): Promise<{ code: number | null; lines: string[] }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) => resolve({ code, lines: out.split('\n').filter((l) => l.trim()) }));
  });
}

describe('a database that fails the start (issue 39 point 16)', () => {
  it('down, wrong password, missing database: one line naming the cause (JSON in production), exit 1, no stack, no blank migration name', async () => {
    const auth = await refusingPostgres('28P01', 'password authentication failed for user "shop"');
    const missing = await refusingPostgres('3D000', 'database "shopdb" does not exist');
    const down = await freeClosedPort();
    const cases = [
      { url: `postgres://shop:hunter2@127.0.0.1:${down}/shopdb`, cause: 'database_unreachable', words: new RegExp(`^Not starting: PostgreSQL at 127\\.0\\.0\\.1:${down} cannot be reached \\(ECONNREFUSED\\): is it running`) },
      { url: `postgres://shop:hunter2@127.0.0.1:${auth.port}/shopdb`, cause: 'database_auth_failed', words: /^Not starting: PostgreSQL at 127\.0\.0\.1:\d+ refused user "shop" \(password authentication failed for user "shop"\): check DATABASE_URL's user and password\.$/ },
      { url: `postgres://shop:hunter2@127.0.0.1:${missing.port}/shopdb`, cause: 'database_missing', words: /^Not starting: PostgreSQL at 127\.0\.0\.1:\d+ has no database "shopdb": create it \(createdb shopdb\)/ },
    ];
    const production = { NODE_ENV: 'production', AUTH_URL: 'https://accounts.example.com', KEY_ENCRYPTION_SECRET: 'k'.repeat(44) };
    try {
      const runs = await Promise.all(cases.flatMap((c) => [runServer({ ...production, DATABASE_URL: c.url }), runServer({ NODE_ENV: 'development', DATABASE_URL: c.url })]));
      cases.forEach((c, i) => {
        const [prod, dev] = [runs[2 * i], runs[2 * i + 1]];
        expect(prod.code, c.cause).toBe(1);
        expect(prod.lines, c.cause).toHaveLength(1);
        const line = JSON.parse(prod.lines[0]);
        expect(line).toMatchObject({ level: 'error', scope: 'start', cause: c.cause });
        expect(line.msg).toMatch(c.words);
        expect(dev.code, c.cause).toBe(1);
        expect(dev.lines, c.cause).toHaveLength(1);
        expect(dev.lines[0]).toMatch(c.words);
        for (const out of [prod.lines.join('\n'), dev.lines.join('\n')]) {
          expect(out).not.toMatch(/\n\s+at |hunter2|migration  failed/);
        }
      });
    } finally {
      auth.server.close();
      missing.server.close();
    }
  }, 120_000);

  it('PG_POOL_SIZE=ten, PG_CONNECT_TIMEOUT_MS=5s, SEARCH_INDEX_CHECK_MS=fast and the other numbers are refused by name, not replaced by defaults', () => {
    for (const [name, bad] of [['PG_POOL_SIZE', 'ten'], ['PG_CONNECT_TIMEOUT_MS', '5s'], ['SEARCH_INDEX_CHECK_MS', 'fast'], ['PG_RANDOM_PAGE_COST', 'low'], ['WEBHOOK_POLL_MS', '-1'], ['WEBHOOK_MAX_ATTEMPTS', '0'], ['WEBHOOK_LEASE_MS', '1e3'], ['WEBHOOK_RETRY_BASE_MS', 'x']]) {
      expect(() => checkConfig(loadConfig({ [name]: bad })), name).toThrow(new RegExp(`^${name} must be a number above 0.*got "${bad}"`));
    }
    expect(loadConfig({ PG_CONNECT_TIMEOUT_MS: ' 5000 ', SEARCH_INDEX_CHECK_MS: '', PG_RANDOM_PAGE_COST: '1.1' })).toMatchObject({ pgConnectTimeoutMs: 5000, searchIndexCheckMs: undefined, randomPageCost: 1.1 });
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'server/main.ts'], { env: { ...process.env, PG_POOL_SIZE: 'ten', DATA_DIR: 'memory://', PORT: '0' }, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Not starting: PG_POOL_SIZE must be a number above 0 \(connections\); got "ten"\.$/m);
  });
});

/** A port nothing listens on (bound, then closed). */
async function freeClosedPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}
