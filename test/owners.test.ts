/**
 * Shop owners (`ucp-storefront owners`, issue: "a shop loaded from a file has no owner"): a shop
 * loaded with `seed FILE` gets an owner from the command line, who then signs in at /admin and
 * through the OAuth authorization-code flow and lists the shop's products with the merchant API;
 * the refusals (unknown shop, malformed or taken e-mail, empty or short password), the sign-in
 * throttle as for any account, the start banner naming only accounts that exist, and removal
 * revoking the owner's tokens. Commands run in-process (runCli, stdin fed through the Io) on a data
 * directory (or a fresh PostgreSQL database) the test server then opens.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../server/cli/main.ts';
import type { Io } from '../server/cli/cli.ts';
import { LOGIN_FAILURES } from '../server/oauth/routes.ts';
import { accountsText } from '../server/seed/accounts.ts';
import { createTestDatabase } from './support/postgres.ts';
import { startTestServer, type TestServer } from './support/server.ts';
import { Browser, hidden, tokensFor } from './support/oauth.ts';

const SHOP = 'shop_owned';
const OWNER = { username: 'ada@owned.example', password: 'correct horse battery' };
const SECOND = { username: 'bo@owned.example', password: 'another-long-one' };
/** A platform administrator (`owners create --platform-admin`), owner of SHOP, creating an owner for OTHER from /admin. */
const ADMIN = { username: 'root@platform.example', password: 'platform-admin-pass' };
const OTHER = 'shop_other_owned';
let dir: string;
let env: NodeJS.ProcessEnv;
let pgUrl: string | undefined;
let dropPg: (() => Promise<void>) | undefined;
let s: TestServer | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ucp-owners-'));
  const pg = process.env.TEST_DATABASE_URL ? await createTestDatabase(process.env.TEST_DATABASE_URL) : undefined;
  pgUrl = pg?.url;
  dropPg = pg?.drop;
  env = { DATA_DIR: join(dir, 'data'), DATABASE_URL: pgUrl ?? '', NODE_ENV: 'development' };
  const product = (n: number) => ({ id: `lamp_${n}`, handle: `lamp-${n}`, title: `Lamp ${n}`, description: 'A lamp.', variants: [{ id: `lamp_${n}_v`, sku: `LAMP-${n}`, price: 1000 + n }] });
  writeFileSync(join(dir, 'shop.json'), JSON.stringify({ shop: { id: SHOP, domain: 'owned.localhost', name: 'Owned' }, products: [1, 2, 3].map(product) }));
  writeFileSync(join(dir, 'other.json'), JSON.stringify({ shop: { id: OTHER, domain: 'other-owned.localhost', name: 'Other' }, products: [4].map(product) }));
  const seeded = await cli(null, 'seed', join(dir, 'shop.json'), join(dir, 'other.json'));
  expect(seeded.code, seeded.err).toBe(0);
}, 120_000);
afterAll(async () => {
  await s?.close();
  await dropPg?.();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a command in-process; `stdin`: what standard input holds (null: a run without input). */
async function cli(stdin: string | null, ...argv: string[]) {
  let out = '';
  let err = '';
  const io: Io = { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`), isTTY: false, env, ...(stdin === null ? {} : { stdin: async () => stdin }) };
  const code = await runCli(argv, io);
  return { code, out, err };
}

const create = (email: string, password: string | null, shop = SHOP, ...more: string[]) => cli(password, 'owners', 'create', '--shop', shop, '--email', email, '--password-stdin', ...more);
const startServer = async () => (s = await startTestServer({ dataDir: env.DATA_DIR, ...(pgUrl ? { databaseUrl: pgUrl } : {}) }));
const products = (token: string, shop = SHOP) => s!.req('localhost', 'GET', `/merchants/${shop}/3.0/products`, undefined, { authorization: `Bearer ${token}` });

async function adminSignIn(user: { username: string; password: string }) {
  const b = new Browser(s!.url);
  const form = await b.fetch('/admin');
  return { b, res: await b.post('/admin/login', { csrf: hidden(await form.text(), 'csrf'), ...user }) };
}

describe('owners on the command line', { timeout: 120_000 }, () => {
  it('refuses an unknown shop, a malformed e-mail, a missing or bad password; creates nothing', async () => {
    const noShop = await create(OWNER.username, `${OWNER.password}\n`, 'shop_nowhere');
    expect(noShop).toMatchObject({ code: 1, out: '' });
    expect(noShop.err).toBe('ucp-storefront owners: No shop shop_nowhere.\n');
    const malformed = await create('not-an-email', `${OWNER.password}\n`);
    expect(malformed.code).toBe(2);
    expect(malformed.err).toContain("'not-an-email' is not an e-mail address");
    expect(malformed.err).toContain('usage: ucp-storefront owners create');
    const empty = await create(OWNER.username, '\n');
    expect(empty).toMatchObject({ code: 1, out: '' });
    expect(empty.err).toContain('the password is empty');
    const short = await create(OWNER.username, 'short\n');
    expect(short.code).toBe(1);
    expect(short.err).toContain('at least 8 characters');
    const twoLines = await create(OWNER.username, 'long enough\nand more\n');
    expect(twoLines.code).toBe(1);
    expect(twoLines.err).toContain('no control characters');
    const noFlag = await cli(`${OWNER.password}\n`, 'owners', 'create', '--shop', SHOP, '--email', OWNER.username);
    expect(noFlag.code).toBe(2);
    expect(noFlag.err).toContain('--password-stdin is required');
    const noInput = await create(OWNER.username, null);
    expect(noInput.code).toBe(1);
    expect((await cli(null, 'owners', 'list', '--shop', SHOP)).out).toBe('none\n');
  });

  it('creates owners (the e-mail lower-cased, the trailing newline not part of the password); a taken e-mail is refused', async () => {
    const made = await create(OWNER.username.toUpperCase(), `${OWNER.password}\r\n`, SHOP, '--name', 'Ada Owner', '--json');
    expect(made.code, made.err).toBe(0);
    expect(JSON.parse(made.out)).toMatchObject({ id: expect.stringMatching(/^usr_/), email: OWNER.username, name: 'Ada Owner', shop: SHOP });
    expect((await create(SECOND.username, `${SECOND.password}\n`)).code).toBe(0);
    const again = await create(OWNER.username, 'whatever-password\n');
    expect(again.code).toBe(1);
    expect(again.err).toBe(`ucp-storefront owners: ${OWNER.username} is already an account (owner of ${SHOP}).\n`);
    const table = await cli(null, 'owners', 'list');
    const [header, ...rows] = table.out.trimEnd().split('\n');
    expect(header).toMatch(/^EMAIL\s+NAME\s+SHOP\s+CREATED$/);
    expect(rows.map((r) => r.split(/\s{2,}/).slice(0, 3))).toEqual([[OWNER.username, 'Ada Owner', SHOP], [SECOND.username, 'bo', SHOP]]);
    const json = JSON.parse((await cli(null, 'owners', 'list', '--shop', SHOP, '--json')).out);
    expect(json.map((u: { email: string }) => u.email)).toEqual([OWNER.username, SECOND.username]);
    expect((await cli(null, 'owners', 'list', '--shop', 'shop_nowhere')).code).toBe(1);
  });
});

describe('platform administrators', { timeout: 120_000 }, () => {
  it('--platform-admin marks the account; list says so', async () => {
    const made = await create(ADMIN.username, `${ADMIN.password}\n`, SHOP, '--platform-admin', '--json');
    expect(made.code, made.err).toBe(0);
    expect(JSON.parse(made.out)).toMatchObject({ email: ADMIN.username, shop: SHOP, platform_admin: true });
    const list = JSON.parse((await cli(null, 'owners', 'list', '--json')).out) as Array<{ email: string; platform_admin: boolean }>;
    expect(list.filter((u) => u.platform_admin).map((u) => u.email)).toEqual([ADMIN.username]);
    expect((await cli(null, 'owners', 'list', '--platform-admin')).code).toBe(2);
  });
});

describe('a created owner at the running server', { timeout: 120_000 }, () => {
  let token = '';
  beforeAll(startServer, 120_000);

  it('signs in at /admin and lands on their own shop', async () => {
    const { b, res } = await adminSignIn(OWNER);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/admin/${SHOP}`);
    const page = await b.fetch(`/admin/${SHOP}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`/merchants/${SHOP}`);
  });

  it('authorizes an app through the code flow, and the token lists the shop’s products', async () => {
    token = (await tokensFor(s!, 'products_read', OWNER)).access_token;
    const r = await products(token);
    expect(r.status).toBe(200);
    expect(r.body.products.map((p: { id: string }) => p.id)).toEqual(['lamp_1', 'lamp_2', 'lamp_3']);
    // Only that shop: another merchant's path is 404 with this token.
    expect((await products(token, 'shop_other')).status).toBe(404);
  });

  it('a platform administrator creates an owner for another shop from /admin, who then signs in there; mistakes are shown, not created', async () => {
    const { b } = await adminSignIn(ADMIN);
    const admin = await (await b.fetch(`/admin/${SHOP}`)).text();
    expect(admin).toContain('Shop owners (platform administrator)');
    const csrf = hidden(admin, 'csrf');
    const NEW = { username: 'cy@other.example', password: 'other-shop-owner' };
    const bad = await b.post(`/admin/${SHOP}/owners`, { csrf, shop: OTHER, email: NEW.username, password: 'short' });
    expect(bad.status).toBe(422);
    const badText = await bad.text();
    expect(badText).toContain('a password has at least 8 characters');
    expect(badText).not.toContain('value="short"');
    expect((await b.post(`/admin/${SHOP}/owners`, { csrf, shop: 'shop_nowhere', email: NEW.username, password: NEW.password })).status).toBe(422);
    expect((await b.post(`/admin/${SHOP}/owners`, { shop: OTHER, email: NEW.username, password: NEW.password })).status).toBe(403); // no CSRF token
    const made = await b.post(`/admin/${SHOP}/owners`, { csrf, shop: OTHER, email: NEW.username, password: NEW.password });
    expect(made.status).toBe(200);
    expect(await made.text()).toContain(`${NEW.username} now owns <code>${OTHER}</code>`);
    const signed = await adminSignIn(NEW);
    expect(signed.res.headers.get('location')).toBe(`/admin/${OTHER}`);
    // The new owner is no platform administrator: no owners section, and its POST is refused.
    const own = await (await signed.b.fetch(`/admin/${OTHER}`)).text();
    expect(own).not.toContain('Shop owners (platform administrator)');
    const refused = await signed.b.post(`/admin/${OTHER}/owners`, { csrf: hidden(own, 'csrf'), shop: SHOP, email: 'dee@x.example', password: 'whatever-long' });
    expect(refused.status).toBe(403);
    expect((await s!.db.selectFrom('users').select('username').execute()).map((u) => u.username)).not.toContain('dee@x.example');
    expect((await s!.db.selectFrom('users').select('merchant_id').where('username', '=', NEW.username).executeTakeFirst())?.merchant_id).toBe(OTHER);
  });

  it('a wrong password is refused and throttled like any account’s', async () => {
    for (let i = 0; i < LOGIN_FAILURES.capacity; i++) expect((await adminSignIn({ ...SECOND, password: 'wrong password' })).res.status).toBe(401);
    const locked = await adminSignIn(SECOND);
    expect(locked.res.status).toBe(429);
    expect(Number(locked.res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('the start banner names the accounts in the database, not the demo ones that are not there', async () => {
    const text = await accountsText(s!.db, s!.port);
    expect(text).toContain(`${OWNER.username} (${SHOP})`);
    expect(text).toContain(`${SECOND.username} (${SHOP})`);
    expect(text).not.toContain('owner@demo.localhost');
    expect(text).not.toContain(OWNER.password);
    expect(text).toMatch(new RegExp(`/merchants/(${SHOP}|${OTHER})/3.0/products`));
  });

  it('removing the owner (server stopped, embedded database) revokes their token and their sign-in', async () => {
    if (!pgUrl) {
      const busy = await cli(null, 'owners', 'remove', '--email', OWNER.username);
      expect(busy.code).toBe(1);
      expect(busy.err).toContain('Stop the server first');
      await s!.close();
      s = undefined;
    }
    const removed = await cli(null, 'owners', 'remove', '--email', OWNER.username, '--json');
    expect(removed.code, removed.err).toBe(0);
    expect(JSON.parse(removed.out)).toMatchObject({ email: OWNER.username, shop: SHOP });
    expect((await cli(null, 'owners', 'remove', '--email', OWNER.username)).err).toBe(`ucp-storefront owners: No owner ${OWNER.username}.\n`);
    if (!s) await startServer();
    const refused = await products(token);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_token');
    expect((await adminSignIn(OWNER)).res.status).toBe(401);
    expect(await accountsText(s!.db, s!.port)).not.toContain(OWNER.username);
  });
});
