/**
 * Random identifiers from a pooled CSPRNG buffer. `randomBytes(16)` per cart id cost 5-30 µs each
 * (one call into the system's random source per id; the slow end under CPU contention), a visible
 * share of a cart create (bench/profile.ts). Drawing 4 KiB at a time makes that one call per 256
 * ids, as node's own `randomUUID()` does with its cache. Same source, same unpredictability; bytes
 * are never handed out twice.
 */
import { randomBytes } from 'node:crypto';

const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

/** `bytes` (≤ 4096) random bytes, base64url-encoded. */
export function randomId(bytes: number): string {
  if (offset + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + bytes);
  offset += bytes;
  return id;
}
