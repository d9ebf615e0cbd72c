/** Pooled random ids (server/core/shared/random-ids.ts): right length, alphabet, and never repeated. */
import { describe, expect, it } from 'vitest';
import { randomId } from '../server/core/shared/random-ids.ts';

describe('randomId', () => {
  it('gives base64url text of the asked size, across pool refills, with no repeats', () => {
    const seen = new Set<string>();
    // 3 × 4096 / 16 ids: three refills of the pool.
    for (let i = 0; i < 768; i++) {
      const id = randomId(16);
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(768);
    expect(randomId(12)).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });
});
