/**
 * The embedded database's memory settings (issue 38 point 6; docs/packaging.md "Sandbox memory"):
 * PGLITE_SHARED_BUFFERS_MB reaches PostgreSQL, on disk and in memory; development defaults to 16 MB,
 * production keeps PGlite's own default; a value that is not a positive number refuses to start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { checkConfig, loadConfig } from '../server/config.ts';
import { openDatabase } from '../server/db/index.ts';

async function sharedBuffers(dataDir: string, mb: number | undefined): Promise<string> {
  const db = await openDatabase({ dataDir, embeddedSharedBuffersMb: mb });
  try {
    const { rows } = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(db);
    return rows[0]!.shared_buffers;
  } finally {
    await db.destroy();
  }
}

describe('embedded shared_buffers', () => {
  it('reaches PostgreSQL on disk and in memory; without it PGlite keeps its own (larger) default', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ucp-shared-buffers-'));
    try {
      expect(await sharedBuffers(join(dir, 'data'), 16)).toBe('16MB');
      expect(await sharedBuffers(join(dir, 'data'), 24)).toBe('24MB'); // a setting, not the cluster's: a restart takes a new one
      expect(await sharedBuffers('memory://', 8)).toBe('8MB');
      const pgliteDefault = await sharedBuffers('memory://', undefined);
      expect(pgliteDefault).not.toBe('8MB');
      expect(Number.parseInt(pgliteDefault, 10)).toBeGreaterThanOrEqual(128);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('defaults to 16 MB in development and to PGlite\'s default in production; PGLITE_SHARED_BUFFERS_MB overrides both', () => {
    expect(loadConfig({}).embeddedSharedBuffersMb).toBe(16);
    expect(loadConfig({ NODE_ENV: 'production' }).embeddedSharedBuffersMb).toBeUndefined();
    expect(loadConfig({ NODE_ENV: 'production', PGLITE_SHARED_BUFFERS_MB: '256' }).embeddedSharedBuffersMb).toBe(256);
    expect(loadConfig({ PGLITE_SHARED_BUFFERS_MB: '64' }).embeddedSharedBuffersMb).toBe(64);
  });

  it('refuses a value that is not a positive number, naming the setting', () => {
    for (const bad of ['lots', '16MB', '-1', '0']) {
      expect(() => checkConfig(loadConfig({ PGLITE_SHARED_BUFFERS_MB: bad })), bad).toThrow(/PGLITE_SHARED_BUFFERS_MB must be a number above 0 \(megabytes\)/);
    }
  });
});
