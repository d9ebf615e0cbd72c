/**
 * Channel API keys (the token tier, docs/access.md): issued per shop for one platform profile URL,
 * shown once, stored as sha256, revocable. Format `ucp_sk_<43 base64url chars>` (256 random bits),
 * so a hash lookup is safe; the stored hash is still compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { DB } from '../../db/index.ts';
import { InvalidRequest } from '../shared/errors.ts';
import { profileHref } from './platform-profiles.ts';

export const KEY_PREFIX = 'ucp_sk_';

/** The body that issues a key (merchant API): exactly these fields; the URL rules are checked on issue. */
export const ChannelKeyInput = z.strictObject({
  profile_url: z.string().describe('The platform profile URL the key acts for.'),
  label: z.string().max(200).nullable().optional().describe('A name for telling keys apart.'),
});
const KEY_RE = /^ucp_sk_[A-Za-z0-9_-]{43}$/;

export interface ChannelKey {
  id: string;
  shop_id: string;
  /** First characters of the key (`ucp_sk_AbCd…`), for telling keys apart. */
  prefix: string;
  label: string | null;
  profile_url: string;
  created_at: string;
  revoked_at: string | null;
}

const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

function toKey(row: { id: string; shop_id: string; prefix: string; label: string | null; profile_url: string; created_at: Date | string; revoked_at: Date | string | null }): ChannelKey {
  return { id: row.id, shop_id: row.shop_id, prefix: row.prefix, label: row.label, profile_url: row.profile_url, created_at: iso(row.created_at)!, revoked_at: iso(row.revoked_at) };
}

/** The normalized profile URL a key is bound to (https; loopback http only when allowed). */
export function normalizeProfileUrl(raw: unknown, allowInsecureLoopback = false): string {
  try {
    return profileHref(raw, allowInsecureLoopback);
  } catch (e) {
    throw new InvalidRequest('invalid_profile_url', (e as Error).message, [{ path: '$.profile_url', code: 'invalid_profile_url', content: (e as Error).message }]);
  }
}

/** Issues a key. The plain key is returned here only; it is never stored or shown again. */
export async function issueChannelKey(
  db: DB,
  shopId: string,
  input: { profileUrl: unknown; label?: unknown },
  opts: { allowInsecureLoopback?: boolean } = {},
): Promise<{ key: string; record: ChannelKey }> {
  const profile_url = normalizeProfileUrl(input.profileUrl, opts.allowInsecureLoopback);
  if (input.label !== undefined && input.label !== null && (typeof input.label !== 'string' || input.label.length > 200)) {
    throw new InvalidRequest('invalid_request', 'label must be a string of at most 200 characters.', [{ path: '$.label', code: 'invalid_type', content: 'expected a string (≤200 characters)' }]);
  }
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const row = {
    id: `ck_${randomBytes(12).toString('base64url')}`,
    shop_id: shopId,
    key_hash: hashKey(key),
    prefix: key.slice(0, KEY_PREFIX.length + 4),
    label: (input.label as string | undefined) ?? null,
    profile_url,
    created_at: new Date(),
    revoked_at: null,
  };
  await db.insertInto('channel_keys').values(row).execute();
  return { key, record: toKey(row) };
}

export async function listChannelKeys(db: DB, shopId: string): Promise<ChannelKey[]> {
  const rows = await db
    .selectFrom('channel_keys')
    .select(['id', 'shop_id', 'prefix', 'label', 'profile_url', 'created_at', 'revoked_at'])
    .where('shop_id', '=', shopId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toKey);
}

/** Revokes a key of the shop; false when there is no such key. Revoking twice keeps the first time. */
export async function revokeChannelKey(db: DB, shopId: string, id: string): Promise<ChannelKey | null> {
  await db.updateTable('channel_keys').set({ revoked_at: new Date() }).where('shop_id', '=', shopId).where('id', '=', id).where('revoked_at', 'is', null).execute();
  const row = await db
    .selectFrom('channel_keys')
    .select(['id', 'shop_id', 'prefix', 'label', 'profile_url', 'created_at', 'revoked_at'])
    .where('shop_id', '=', shopId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toKey(row) : null;
}

/** The live key of this shop matching `key`, or null (unknown, malformed, another shop's, revoked). */
export async function verifyChannelKey(db: DB, shopId: string, key: string): Promise<ChannelKey | null> {
  if (!KEY_RE.test(key)) return null;
  const hash = hashKey(key);
  const row = await db
    .selectFrom('channel_keys')
    .select(['id', 'shop_id', 'key_hash', 'prefix', 'label', 'profile_url', 'created_at', 'revoked_at'])
    .where('key_hash', '=', hash)
    .executeTakeFirst();
  if (!row || row.shop_id !== shopId || row.revoked_at !== null) return null;
  if (!timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
  return toKey(row);
}
