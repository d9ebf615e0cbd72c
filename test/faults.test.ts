/**
 * A short run of the crash and fault scenarios (the full report: `npm run test:faults`).
 * Embedded pass: kill -9 under write load on the embedded database. PostgreSQL pass
 * (TEST_DATABASE_URL set): kill -9 on PostgreSQL and a database restart mid-load, on a throwaway
 * local server of this test's own (the restart needs control of the server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseRestartDuringWrites, killDuringWrites, type ScenarioResult } from '../scripts/faults/scenarios.ts';
import { createTestDatabase, startTempPostgres, type TempPostgres } from './support/postgres.ts';

const PG = process.env.TEST_DATABASE_URL;
const expectPass = (r: ScenarioResult) => expect(r.pass, `${r.name}\n${r.lines.join('\n')}`).toBe(true);

describe.skipIf(!!PG)('faults on the embedded database', () => {
  it('kill -9 under write load loses no acknowledged cart, order or token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ucp-faults-'));
    try {
      expectPass(await killDuringWrites({ label: 'embedded', env: { DATA_DIR: join(dir, 'data') } }, { seconds: 2 }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe.skipIf(!PG)('faults on PostgreSQL', () => {
  let pg: TempPostgres;
  beforeAll(async () => {
    pg = await startTempPostgres();
  }, 300_000);
  afterAll(() => pg?.stop());

  it('kill -9 under write load loses no acknowledged cart, order or token', async () => {
    const db = await createTestDatabase(pg.url);
    expectPass(await killDuringWrites({ label: 'PostgreSQL', env: { DATABASE_URL: db.url } }, { seconds: 2 }));
  }, 120_000);

  it('a database restart mid-load answers 2xx or 503 + Retry-After, resumes by itself, loses nothing', async () => {
    const db = await createTestDatabase(pg.url);
    expectPass(await databaseRestartDuringWrites(db.url, () => pg.restart('immediate'), { seconds: 2 }));
  }, 120_000);
});
