/**
 * host.js files of earlier builds, kept in the database so a deploy never breaks a page that is
 * still using the previous one:
 *  - a storefront that pinned `/ucp/host.<hash>.js` with SRI (the recommended embed) keeps loading
 *    exactly that file until it updates its tag;
 *  - a browser holding an entry from before the deploy (`/ucp/host.js` is cached for 5 minutes)
 *    imports that build's chunks, whose names the new build no longer has.
 * Every server publishes its current build's files at start and whenever dist/ changes under it;
 * files leave the archive RETENTION_DAYS after the last time any server had them in its current
 * build. The table is shared by every process on one PostgreSQL database, so a fresh machine or
 * container serves what its predecessors built. Contents are immutable (the name holds the hash),
 * so they are cached in memory once read.
 */
import { sql } from 'kysely';
import type { DB } from '../db/index.ts';
import { hostAsset, hostBundle, type HostAsset, type HostBundle } from './host-bundle.ts';
import { log } from '../lib/log.ts';

export const RETENTION_DAYS = 30;

/** The files of a bundle as the archive names them: the entry's immutable twin and the chunks. */
function files(b: HostBundle): Array<[string, Buffer]> {
  return [[`host.${b.hash}.js`, b.body], ...[...b.chunks.values()].map((c): [string, Buffer] => [c.file, c.body])];
}

/** Records a bundle's files as current (inserting the new ones) and drops files past retention. */
export async function publishBundle(db: DB, b: HostBundle): Promise<void> {
  const rows = files(b);
  await db
    .insertInto('host_assets')
    .values(rows.map(([file, body]) => ({ file, body })))
    .onConflict((oc) => oc.column('file').doUpdateSet({ last_current: sql`now()` }))
    .execute();
  await purgeArchive(db);
}

export async function purgeArchive(db: DB, days = RETENTION_DAYS): Promise<number> {
  const r = await db.deleteFrom('host_assets').where(sql<boolean>`last_current < now() - make_interval(days => ${days})`).executeTakeFirst();
  memoryOf(db).clear();
  return Number(r.numDeletedRows);
}

/** Per database (tests run several servers in one process): the last build published, and the publication. */
const published = new WeakMap<DB, { bundle: HostBundle; done: Promise<void> }>();

/**
 * Publishes the current build once per build this process sees (at start, and after a rebuild
 * under a running server). Never fails a request: an error is logged and retried on the next call.
 */
export function ensurePublished(db: DB, b: HostBundle | null = hostBundle()): Promise<void> {
  const last = published.get(db);
  if (!b || last?.bundle === b) return last?.done ?? Promise.resolve();
  const done = publishBundle(db, b).catch((e: Error) => {
    if (published.get(db)?.bundle === b) published.delete(db);
    log.error('host.js', 'could not archive the current build', { err: e });
  });
  published.set(db, { bundle: b, done });
  return done;
}

/** Read files, by database; contents never change (the name holds the hash). */
const MEMORY_MAX = 64;
const memories = new WeakMap<DB, Map<string, HostAsset>>();
function memoryOf(db: DB): Map<string, HostAsset> {
  let m = memories.get(db);
  if (!m) memories.set(db, (m = new Map()));
  return m;
}

/** A file of an earlier build, or null when the archive does not hold it. */
export async function archivedAsset(db: DB, file: string): Promise<HostAsset | null> {
  const memory = memoryOf(db);
  const hit = memory.get(file);
  if (hit) return hit;
  const row = await db.selectFrom('host_assets').select('body').where('file', '=', file).executeTakeFirst();
  if (!row) return null;
  const { hex: _, ...a } = hostAsset(Buffer.from(row.body));
  if (memory.size >= MEMORY_MAX) memory.delete(memory.keys().next().value!);
  memory.set(file, a);
  return a;
}
