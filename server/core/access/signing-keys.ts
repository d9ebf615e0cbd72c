/**
 * Per-shop EC P-256 signing keys for webhooks (ES256). The public half is published as a JWK in the
 * shop's discovery profile (`signing_keys`, only while order webhooks are enabled); the private half
 * is stored encrypted (AES-256-GCM, key = HKDF-SHA256 of KEY_ENCRYPTION_SECRET, the kid as AAD).
 *
 * Each shop has at most one current key (`retire_at` null), used to sign. Rotation creates a new
 * current key and sets the old one's `retire_at` to now + grace (default 7 days, the UCP minimum
 * overlap): until then it stays published so receivers can verify deliveries signed just before the
 * rotation. Keys past `retire_at` are never published and are deleted at the next rotation.
 *
 * KEY_ENCRYPTION_SECRET: any long random string (e.g. `openssl rand -base64 32`). Unset, a fixed
 * development secret is used; production refuses to start without one (config.ts checkConfig, and
 * the CLI's withDb). Changing the secret makes stored private keys unreadable: rotate (which creates
 * a fresh key) after changing it.
 */
import { createCipheriv, createDecipheriv, createHash, createPrivateKey, generateKeyPairSync, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { sql } from 'kysely';
import type { DB } from '../../db/index.ts';
import { DEVELOPMENT_KEY_ENCRYPTION_SECRET } from '../../config.ts';

export interface PublicSigningJwk {
  kid: string;
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  alg: 'ES256';
  use: 'sig';
}


/**
 * The secret keys are derived from: set once per process by each entry point that opens the
 * database (server, cluster primary, CLI) from its Config, before any key is read or written.
 */
let configuredSecret: string | undefined;

export function useKeyEncryptionSecret(secret: string | undefined): void {
  configuredSecret = secret;
}

function secret(): string {
  return configuredSecret || DEVELOPMENT_KEY_ENCRYPTION_SECRET;
}

/** A 32-byte key for one purpose, derived from KEY_ENCRYPTION_SECRET (HKDF-SHA256, `label` as salt). */
export function derivedKey(label: string, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret(), label, info, 32));
}

function dataKey(): Buffer {
  return derivedKey('ucp-storefront/signing-keys', 'aes-256-gcm v1');
}

export function encryptPrivateKey(kid: string, key: KeyObject): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', dataKey(), iv);
  cipher.setAAD(Buffer.from(kid, 'utf8'));
  const der = key.export({ format: 'der', type: 'pkcs8' });
  const ct = Buffer.concat([cipher.update(der), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64');
}

export function decryptPrivateKey(kid: string, enc: string): KeyObject {
  const raw = Buffer.from(enc, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', dataKey(), raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(kid, 'utf8'));
  decipher.setAuthTag(raw.subarray(12, 28));
  const der = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
}

/** RFC 7638 JWK thumbprint (SHA-256, base64url): a stable, collision-free kid. */
function thumbprint(x: string, y: string): string {
  return createHash('sha256').update(JSON.stringify({ crv: 'P-256', kty: 'EC', x, y })).digest('base64url');
}

function newKey(): { kid: string; jwk: PublicSigningJwk; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pub = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  const kid = thumbprint(pub.x, pub.y);
  return { kid, privateKey, jwk: { kid, kty: 'EC', crv: 'P-256', x: pub.x, y: pub.y, alg: 'ES256', use: 'sig' } };
}

async function insertKey(db: DB, shopId: string) {
  const k = newKey();
  const inserted = await db
    .insertInto('shop_signing_keys')
    .values({ kid: k.kid, shop_id: shopId, public_jwk: JSON.stringify(k.jwk), private_key_enc: encryptPrivateKey(k.kid, k.privateKey), retire_at: null })
    .onConflict((oc) => oc.column('shop_id').where('retire_at', 'is', null).doNothing())
    .returning('kid')
    .executeTakeFirst();
  return inserted ? k : null;
}

const privateCache = new Map<string, KeyObject>();

export interface ShopSigner {
  kid: string;
  privateKey: KeyObject;
}

/** The shop's current signing key, created on first use (safe under concurrent callers). */
export async function ensureShopKey(db: DB, shopId: string): Promise<ShopSigner> {
  for (let i = 0; i < 3; i++) {
    const row = await db
      .selectFrom('shop_signing_keys')
      .select(['kid', 'private_key_enc'])
      .where('shop_id', '=', shopId)
      .where('retire_at', 'is', null)
      .executeTakeFirst();
    if (row) {
      let key = privateCache.get(row.kid);
      if (!key) {
        key = decryptPrivateKey(row.kid, row.private_key_enc);
        privateCache.set(row.kid, key);
      }
      return { kid: row.kid, privateKey: key };
    }
    const created = await insertKey(db, shopId);
    if (created) {
      privateCache.set(created.kid, created.privateKey);
      return { kid: created.kid, privateKey: created.privateKey };
    }
  }
  throw new Error(`could not create a signing key for ${shopId}`);
}

/**
 * Replaces the shop's current key. The old key is published until now + graceDays, then dropped.
 * Returns the new kid and the retiring one (if any).
 */
export async function rotateShopKey(db: DB, shopId: string, { graceDays = 7 }: { graceDays?: number } = {}): Promise<{ kid: string; retired: string | null; retireAt: Date | null }> {
  if (!(graceDays >= 0)) throw new Error('graceDays must be >= 0');
  const retireAt = new Date(Date.now() + graceDays * 86_400_000);
  const k = newKey();
  const retired = await db.transaction().execute(async (tx) => {
    // Keys whose grace period is over are of no use to anyone: drop them.
    await tx.deleteFrom('shop_signing_keys').where('shop_id', '=', shopId).where('retire_at', '<=', sql<Date>`now()`).execute();
    const old = await tx
      .updateTable('shop_signing_keys')
      .set({ retire_at: retireAt })
      .where('shop_id', '=', shopId)
      .where('retire_at', 'is', null)
      .returning('kid')
      .executeTakeFirst();
    await tx
      .insertInto('shop_signing_keys')
      .values({ kid: k.kid, shop_id: shopId, public_jwk: JSON.stringify(k.jwk), private_key_enc: encryptPrivateKey(k.kid, k.privateKey), retire_at: null })
      .execute();
    return old?.kid ?? null;
  });
  privateCache.set(k.kid, k.privateKey);
  return { kid: k.kid, retired, retireAt: retired ? retireAt : null };
}

/** Public JWKs to publish: the current key first, then retiring keys still in their grace period. */
export async function publishedKeys(db: DB, shopId: string): Promise<PublicSigningJwk[]> {
  const rows = await db
    .selectFrom('shop_signing_keys')
    .select(['public_jwk', 'retire_at', 'created_at'])
    .where('shop_id', '=', shopId)
    .where((eb) => eb.or([eb('retire_at', 'is', null), eb('retire_at', '>', sql<Date>`now()`)]))
    .orderBy('created_at', 'desc')
    .execute();
  rows.sort((a, b) => Number(a.retire_at !== null) - Number(b.retire_at !== null));
  return rows.map((r) => r.public_jwk as unknown as PublicSigningJwk);
}

/** Every key of a shop, for the CLI. */
export async function listShopKeys(db: DB, shopId: string) {
  return db.selectFrom('shop_signing_keys').select(['kid', 'created_at', 'retire_at']).where('shop_id', '=', shopId).orderBy('created_at').execute();
}
