/**
 * host.js files of earlier builds keep answering after a deploy (server/storefront/host-archive.ts):
 * the pinned immutable twin `host.<hash>.js` and the chunks an older entry imports, from the
 * database, until 30 days after the last server that had them in its current build.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from './support/server.ts';
import { hostAsset, hostBundle, type HostBundle } from '../server/storefront/hostjs.ts';
import { RETENTION_DAYS, archivedAsset, ensurePublished, publishBundle, purgeArchive } from '../server/storefront/host-archive.ts';

/** A bundle as an earlier build would have produced it: an entry importing one chunk. */
function earlierBuild(tag: string): HostBundle {
  const chunkFile = `host-role-embedded-${tag}.js`;
  const chunk = hostAsset(Buffer.from(`export const role = ${JSON.stringify(tag)};\n`));
  const { hex, ...entry } = hostAsset(Buffer.from(`import('./${chunkFile}');\n`));
  return {
    ...entry,
    hash: hex.slice(0, 16),
    mtimeMs: 0,
    chunks: new Map([[chunkFile, { ...chunk, file: chunkFile, role: 'embedded', imports: [] }]]),
  };
}
const sri = (text: string) => `sha384-${createHash('sha384').update(text).digest('base64')}`;

let s: TestServer;
/** Was the file marked current within the last minute? */
const markedCurrent = async (file: string) =>
  (await s.db.selectFrom('host_assets').select(sql<boolean>`last_current > now() - interval '1 minute'`.as('fresh')).where('file', '=', file).executeTakeFirstOrThrow()).fresh;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

describe('host.js archive', () => {
  it('a starting server archives its current build: twin and every chunk', async () => {
    const b = hostBundle()!;
    const rows = await s.db.selectFrom('host_assets').select('file').execute();
    const names = rows.map((r) => r.file);
    expect(names).toContain(`host.${b.hash}.js`);
    for (const f of b.chunks.keys()) expect(names).toContain(f);
  });

  it('after a deploy, the previous build’s pinned entry and its chunks still answer, immutable, byte for byte', async () => {
    const old = earlierBuild('OldBuild1');
    await publishBundle(s.db, old); // what the server running that build did at its start
    const entry = await s.req('demo.localhost', 'GET', `/ucp/host.${old.hash}.js`);
    expect(entry.status).toBe(200);
    expect(entry.text).toBe(old.body.toString('utf8'));
    expect(sri(entry.text)).toBe(old.integrity); // the SRI hash the storefront pinned still matches
    expect(entry.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(entry.headers['content-type']).toMatch(/^text\/javascript/);
    expect(entry.headers['access-control-allow-origin']).toBe('*');

    const chunk = await s.req('demo.localhost', 'GET', '/ucp/host-role-embedded-OldBuild1.js');
    expect(chunk.status).toBe(200);
    expect(chunk.text).toBe('export const role = "OldBuild1";\n');

    // Same bytes on every protocol shop (the files are the platform's, not a shop's).
    expect((await s.req('other.localhost', 'GET', `/ucp/host.${old.hash}.js`)).text).toBe(entry.text);
  });

  it('the current build is still what host.js and host.json serve', async () => {
    const b = hostBundle()!;
    const r = await s.req('demo.localhost', 'GET', '/ucp/host.json');
    expect(r.body.url).toMatch(new RegExp(`/ucp/host\\.${b.hash}\\.js$`));
    expect((await s.req('demo.localhost', 'GET', '/ucp/host.js')).text).toBe(b.body.toString('utf8'));
  });

  it('a file no build ever had is a 404 error envelope; a shop without the protocol gets 404 for archived files too', async () => {
    const r = await s.req('demo.localhost', 'GET', '/ucp/host.0123456789abcdef.js');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'not_found' });
    expect(r.text).not.toMatch(/at .*\.ts:\d+/); // no stack trace
    const old = earlierBuild('OldBuild2');
    await publishBundle(s.db, old);
    expect((await s.req('offline.localhost', 'GET', `/ucp/host.${old.hash}.js`)).status).toBe(404);
  });

  it(`files leave the archive ${RETENTION_DAYS} days after they were last current; the current build never does`, async () => {
    const old = earlierBuild('OldBuild3');
    await publishBundle(s.db, old);
    expect((await s.req('demo.localhost', 'GET', `/ucp/host.${old.hash}.js`)).status).toBe(200); // also cached in memory now
    const files = [`host.${old.hash}.js`, 'host-role-embedded-OldBuild3.js'];
    await s.db
      .updateTable('host_assets')
      .set({ last_current: sql`now() - make_interval(days => ${RETENTION_DAYS + 1})` })
      .where('file', 'in', files)
      .execute();
    expect(await purgeArchive(s.db)).toBe(2);
    expect((await s.req('demo.localhost', 'GET', `/ucp/host.${old.hash}.js`)).status).toBe(404);
    expect((await s.req('demo.localhost', 'GET', '/ucp/host-role-embedded-OldBuild3.js')).status).toBe(404);
    const b = hostBundle()!;
    expect((await s.req('demo.localhost', 'GET', `/ucp/host.${b.hash}.js`)).status).toBe(200);
    expect(await archivedAsset(s.db, `host.${b.hash}.js`)).not.toBeNull();
  });

  it('a build seen again is marked current again (retention restarts), and is published once per process', async () => {
    const old = earlierBuild('OldBuild4');
    await publishBundle(s.db, old);
    await s.db.updateTable('host_assets').set({ last_current: sql`now() - interval '10 days'` }).where('file', '=', `host.${old.hash}.js`).execute();
    await ensurePublished(s.db, old); // e.g. a rollback to that build
    expect(await markedCurrent(`host.${old.hash}.js`)).toBe(true);
    // Publishing the same bundle object again is a no-op (no write): the stale mark stays.
    await s.db.updateTable('host_assets').set({ last_current: sql`now() - interval '10 days'` }).where('file', '=', `host.${old.hash}.js`).execute();
    await ensurePublished(s.db, old);
    expect(await markedCurrent(`host.${old.hash}.js`)).toBe(false);
  });
});
